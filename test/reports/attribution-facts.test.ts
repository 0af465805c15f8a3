/**
 * PIPELINE_ATTRIBUTION_SUMMARY aggregates `rpt_attribution_facts` (migration 0004), the
 * narrow copy of `rpt_attribution_links`, and counts without the opportunity join when
 * there are no filters. Both give exactly what aggregating the links themselves and
 * joining the opportunities gives (the SQL the report ran before), for several contexts:
 * every row with its counters, and every count.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engines } from '../helpers/engines.js';
import { fixtureApp, NOW, type FixtureApp } from '../helpers/fixture-app.js';
import { DAY, ORG, T0 } from '../fixtures/small-bundle.js';

const URL = '/v1/report-analytics/report/PIPELINE_ATTRIBUTION_SUMMARY/records?size=2000';
const ALL = [ORG.ALPHA, ORG.BETA, ORG.GAMMA];
const CONTEXTS: Array<Record<string, unknown>> = [
  { partnerPublicIds: ALL, eventTypeCodes: ['ACTION_LIST', 'WORKFLOW', 'CRM_UPDATE'] },
  { partnerPublicIds: ALL, eventTypeCodes: ['ACTION_LIST', 'WORKFLOW'], dateRangeDays: 90, oppCreatedDateDays: 90 },
  { partnerPublicIds: [ORG.ALPHA], eventTypeCodes: ['ACTION_LIST'] },
  { partnerPublicIds: [ORG.BETA, ORG.GAMMA], eventTypeCodes: ['WORKFLOW', 'CRM_UPDATE'] },
  { partnerPublicIds: ALL, eventTypeCodes: ['ACTION_LIST', 'WORKFLOW', 'CRM_UPDATE'], eventDateStart: String(T0 - 5 * DAY), eventDateEnd: String(T0 + 15 * DAY) },
  { partnerPublicIds: ALL, eventTypeCodes: ['ACTION_LIST', 'WORKFLOW', 'CRM_UPDATE'], oppCreatedDateStart: String(T0), oppCreatedDateEnd: String(NOW) },
  { partnerPublicIds: ALL, eventTypeCodes: ['ACTION_LIST'], eventDateStart: String(NOW), eventDateEnd: String(NOW + DAY) },
];
/** What a context selects, for the reference queries: partner organization ids and the event / opportunity windows (null: open). */
async function contextBounds(f: FixtureApp, context: Record<string, unknown>) {
  const partners = (await f.database.db.selectFrom('orgs').select('id').where('public_id', 'in', context.partnerPublicIds as string[]).execute()).map((r) => r.id);
  const day = (n: unknown) => NOW - Number(n) * DAY;
  return {
    partners,
    eventMin: context.dateRangeDays !== undefined ? day(context.dateRangeDays) : context.eventDateStart !== undefined ? Number(context.eventDateStart) : null,
    eventMax: context.eventDateEnd !== undefined ? Number(context.eventDateEnd) : null,
    oppMin: context.oppCreatedDateDays !== undefined ? day(context.oppCreatedDateDays) : context.oppCreatedDateStart !== undefined ? Number(context.oppCreatedDateStart) : null,
    oppMax: context.oppCreatedDateEnd !== undefined ? Number(context.oppCreatedDateEnd) : null,
  };
}

const COUNTERS = ['action_lists_created_count', 'action_list_downloads_count', 'workflows_initiated_count', 'workflow_intros_completed_count', 'total_attribution_events', 'total_partners'];

for (const engine of engines) {
  describe(`pipeline summary over rpt_attribution_facts on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine);
    });
    after(() => f.close());

    test('the facts are the links projected (same rows, same values)', async () => {
      const cols = 'org_id, rid, opp_rid, partner_org_id, event_date, opp_created_date, event_type_code, event_subtype_code';
      const links = await sql.raw(`select ${cols} from rpt_attribution_links order by org_id, rid`).execute(f.database.db);
      const facts = await sql.raw(`select ${cols} from rpt_attribution_facts order by org_id, rid`).execute(f.database.db);
      assert.ok(links.rows.length > 0);
      assert.deepEqual(facts.rows, links.rows);
    });

    test('rows, counters and counts equal the aggregate of the links joined to the opportunities', async () => {
      const org = await f.database.db.selectFrom('orgs').select('id').where('public_id', '=', ORG.ACME).executeTakeFirstOrThrow();
      let nonEmpty = 0;
      for (const context of CONTEXTS) {
        const page = await f.ok(URL, { context });
        // The reference: the scope of the context over the wide links, joined (as before 0004).
        const { partners, eventMin, eventMax, oppMin, oppMax } = await contextBounds(f, context);
        const reference = await sql<Record<string, unknown>>`
          select o.opp_crm_opportunity_id,
            count(*) filter (where l.event_type_code = 'ACTION_LIST' and l.event_subtype_code = 'CREATED') as action_lists_created_count,
            count(*) filter (where l.event_type_code = 'ACTION_LIST' and l.event_subtype_code = 'DOWNLOADED') as action_list_downloads_count,
            count(*) filter (where l.event_type_code = 'WORKFLOW' and l.event_subtype_code = 'INITIATED') as workflows_initiated_count,
            count(*) filter (where l.event_type_code = 'WORKFLOW' and l.event_subtype_code = 'INTRO_COMPLETED') as workflow_intros_completed_count,
            count(*) as total_attribution_events, count(distinct l.partner_org_id) as total_partners
          from rpt_attribution_links l join rpt_new_opportunities o on o.org_id = ${org.id} and o.rid = l.opp_rid
          where l.org_id = ${org.id} and l.partner_org_id = any(${partners}::int[]) and l.event_type_code = any(${context.eventTypeCodes}::text[])
            and (${eventMin}::bigint is null or l.event_date >= ${eventMin}) and (${eventMax}::bigint is null or l.event_date <= ${eventMax})
            and (${oppMin}::bigint is null or l.opp_created_date >= ${oppMin}) and (${oppMax}::bigint is null or l.opp_created_date <= ${oppMax})
          group by o.rid, o.opp_crm_opportunity_id order by o.rid`.execute(f.database.db);
        const expected = reference.rows.map((r) => ({ id: r.opp_crm_opportunity_id, ...(Object.fromEntries(COUNTERS.map((c) => [c, Number(r[c])])) as Record<string, number>) }));
        const actual = page.content.map((r: Record<string, unknown>) => ({ id: r.opp_crm_opportunity_id, ...Object.fromEntries(COUNTERS.map((c) => [c, Number(r[c])])) }));
        assert.deepEqual(actual, expected, JSON.stringify(context));
        assert.equal(page.totalElements, expected.length, JSON.stringify(context));
        // The count with a filter (joined relation) agrees with the rows it keeps.
        const filtered = await f.ok(URL, { context, filters: { total_partners: '2<->' } });
        assert.equal(filtered.totalElements, expected.filter((r) => (r as Record<string, unknown>).total_partners as number >= 2).length, JSON.stringify(context));
        if (expected.length) nonEmpty++;
      }
      assert.ok(nonEmpty >= 3, `only ${nonEmpty} contexts select opportunities`);
    });
  });
}

/**
 * ATTRIBUTION_EVENTS and PIPELINE_ATTRIBUTION_DETAIL count a context-only request on their
 * narrow copies (rpt_event_facts, rpt_attribution_facts): the totals must equal a count
 * of the wide report rows under the same context, and with a filter (wide count) the
 * total must equal the rows listed.
 */
for (const engine of engines) {
  describe(`context-only counts on the narrow copies on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine);
    });
    after(() => f.close());

    test('the event facts are the events report projected (same rows, same values)', async () => {
      const cols = 'org_id, rid, partner_org_id, event_date, event_type_code';
      const events = await sql.raw(`select ${cols} from rpt_attribution_events order by org_id, rid`).execute(f.database.db);
      const facts = await sql.raw(`select ${cols} from rpt_event_facts order by org_id, rid`).execute(f.database.db);
      assert.ok(events.rows.length > 0);
      assert.deepEqual(facts.rows, events.rows);
    });

    for (const [report, table] of [['ATTRIBUTION_EVENTS', 'rpt_attribution_events'], ['PIPELINE_ATTRIBUTION_DETAIL', 'rpt_attribution_links']] as const) {
      test(`${report}: totalElements equals the wide rows under each context`, async () => {
        const org = await f.database.db.selectFrom('orgs').select('id').where('public_id', '=', ORG.ACME).executeTakeFirstOrThrow();
        let nonEmpty = 0;
        for (const context of CONTEXTS) {
          const page = await f.ok(`/v1/report-analytics/report/${report}/records?size=2000`, { context });
          const { partners, eventMin, eventMax, oppMin, oppMax } = await contextBounds(f, context);
          // The events report has no opportunity window; the detail has.
          const oppWindow = report === 'PIPELINE_ATTRIBUTION_DETAIL'
            ? sql`and (${oppMin}::bigint is null or r.opp_created_date >= ${oppMin}) and (${oppMax}::bigint is null or r.opp_created_date <= ${oppMax})`
            : sql``;
          const reference = await sql<{ n: number }>`
            select count(*) as n from ${sql.table(table)} r
            where r.org_id = ${org.id} and r.partner_org_id = any(${partners}::int[]) and r.event_type_code = any(${context.eventTypeCodes}::text[])
              and (${eventMin}::bigint is null or r.event_date >= ${eventMin}) and (${eventMax}::bigint is null or r.event_date <= ${eventMax})
              ${oppWindow}`.execute(f.database.db);
          const expected = Number(reference.rows[0]!.n);
          assert.equal(page.totalElements, expected, JSON.stringify(context));
          assert.equal(page.content.length, expected, JSON.stringify(context));
          // A filter takes the wide count; it must agree with the rows it lists.
          const filtered = await f.ok(`/v1/report-analytics/report/${report}/records?size=2000`, { context, filters: { partner_org_name: 'a-?-' } });
          assert.equal(filtered.totalElements, filtered.content.length, JSON.stringify(context));
          if (expected) nonEmpty++;
        }
        assert.ok(nonEmpty >= 3, `only ${nonEmpty} contexts select rows`);
      });
    }
  });
}
