/**
 * The report rows' `custom` objects and search text (src/ingest/custom-objects.ts): a
 * custom column's value comes from the entity that owns the column (the catalog's
 * precedence), keys no definition names are in no row and match no search, and the two
 * SQL forms (per-key CASE, subquery past MAX_CUSTOM_LOOKUPS) give the same values.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { BUNDLE, ORG } from '../fixtures/small-bundle.js';
import { customParts, loadDefinitions, type Owners } from '../../src/ingest/custom-objects.js';
import { reportById } from '../../src/reports/catalog/index.js';

const R = '/v1/report-analytics/report';
const CONTEXT = { partnerPublicIds: [ORG.ALPHA, ORG.BETA, ORG.GAMMA], eventTypeCodes: ['ACTION_LIST', 'WORKFLOW', 'CRM_UPDATE'] };
const field = (entity: string, key: string, type = 'string') => ({ org: ORG.ACME, entity, key, title: `${entity} ${key}`, type, classification: 'CUSTOM_CRM_FIELD' });

// `note` is defined for accounts and events; A1 and E1 both hold one, E3 (also on A1) none.
// A1 and O2 hold keys no definition names (the import keeps them in the base tables).
const bundle = {
  custom_fields: [...BUNDLE.custom_fields!, field('account', 'note'), field('event', 'note')],
  accounts: BUNDLE.accounts!.map((a: any) => (a.crmAccountId === 'A1' ? { ...a, custom: { ...a.custom, note: 'Account-Note', stray: 'Hidden-Stray' } } : a)),
  events: BUNDLE.events!.map((e: any) => (e.eventId === 'E1' ? { ...e, custom: { ...e.custom, note: 'Event-Note' } } : e)),
  opportunities: BUNDLE.opportunities!.map((o: any) => (o.crmOpportunityId === 'O2' ? { ...o, custom: { tier: 'Opp-Stray' } } : o)),
};

for (const engine of engines) {
  describe(`custom objects on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine, { bundle });
    });
    after(() => f?.close());

    test("a custom column's value comes from the entity that owns it", async () => {
      // Events report: event before account, so `custom_note` is the event's (null on E3, not A1's note).
      const events = (await f.ok(`${R}/ATTRIBUTION_EVENTS/records?size=50`, { context: CONTEXT, columns: ['event_name', 'custom_note', 'custom_tier'], filters: { crm_account_id: 'A1' } })).content;
      assert.deepEqual(
        Object.fromEntries(events.map((r: any) => [r.event_name, [r.custom_note, r.custom_tier]])),
        { 'List one': ['Event-Note', 'Gold'], 'List download': [null, 'Gold'] },
      );
      // Detail report: opportunity, account, event: `custom_note` is the account's, whatever the event holds.
      const detail = (await f.ok(`${R}/PIPELINE_ATTRIBUTION_DETAIL/records?size=50`, { context: CONTEXT, columns: ['event_name', 'opp_crm_opportunity_id', 'custom_note'] })).content;
      assert.ok(detail.some((r: any) => r.event_name === 'List one'), JSON.stringify(detail));
      for (const r of detail) assert.equal(r.custom_note, r.opp_crm_opportunity_id === 'O2' ? 'Account-Note' : null, JSON.stringify(r));
      const columns = (await f.ok(`${R}/PIPELINE_ATTRIBUTION_DETAIL/columns`, {})).filter((c: any) => c.key === 'custom_note');
      assert.deepEqual(columns.map((c: any) => c.title), ['account note']);
    });

    test('values no column shows are stored in no row and found by no search', async () => {
      for (const term of ['hidden-stray', 'opp-stray']) {
        for (const [report, body] of [['GLOBAL_VERTICAL_ACCOUNTS', {}], ['GLOBAL_VERTICAL_OPPORTUNITIES', {}], ['ATTRIBUTION_EVENTS', { context: CONTEXT }], ['PIPELINE_ATTRIBUTION_DETAIL', { context: CONTEXT }], ['PIPELINE_ATTRIBUTION_SUMMARY', { context: CONTEXT }]] as const) {
          assert.equal((await f.ok(`${R}/${report}/records`, { ...body, search: term })).totalElements, 0, `${report} ${term}`);
        }
        assert.equal((await f.ok('/v1/channelecosystem/records', { channelReportType: 'PARTNER_ORG_MATCHED_ACCOUNTS', matchingType: 'MUTUAL', companyPartnerPublicId: ORG.ALPHA, search: term })).totalElements, 0);
      }
      // The events report shows the event's note, not the account's: only the event's is searchable there.
      assert.equal((await f.ok(`${R}/ATTRIBUTION_EVENTS/records`, { context: CONTEXT, search: 'event-note' })).totalElements, 1);
      assert.equal((await f.ok(`${R}/ATTRIBUTION_EVENTS/records`, { context: CONTEXT, search: 'account-note' })).totalElements, 0);
      assert.ok((await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records`, { search: 'account-note' })).totalElements > 0);
      const stored = await sql<{ n: number }>`select count(*)::int as n from rpt_global_accounts where custom ? 'stray'`.execute(f.database.db);
      assert.equal(stored.rows[0]!.n, 0);
    });

    test('the per-key CASE and the subquery form give the same objects and strings', async () => {
      const defs = await loadDefinitions(f.database.db);
      const cases: Array<[string, Owners, string]> = [
        ['ATTRIBUTION_EVENTS', { event: 'e', account: 'a' }, 'from events e join accounts a on a.org_id = e.org_id and a.crm_account_id = e.crm_account_id'],
        ['PIPELINE_ATTRIBUTION_DETAIL', { opportunity: 'o', account: 'oa', event: 'e' }, 'from events e join opportunities o on o.org_id = e.org_id join accounts oa on oa.org_id = o.org_id and oa.crm_account_id = o.crm_account_id'],
        ['GLOBAL_VERTICAL_ACCOUNTS', { account: 'a' }, 'from accounts a'],
      ];
      for (const [id, owners, from] of cases) {
        const lookups = customParts(reportById(id as never), owners, defs, `${Object.values(owners)[0]}.org_id`);
        const subquery = customParts(reportById(id as never), owners, defs, `${Object.values(owners)[0]}.org_id`, 0);
        assert.match(lookups.object, /^case /);
        assert.match(subquery.object, /^coalesce\(\(select jsonb_object_agg/);
        const rows = (await sql.raw<{ a: unknown; b: unknown; sa: string; sb: string }>(`select ${lookups.object} as a, ${subquery.object} as b, ${lookups.strings} as sa, ${subquery.strings} as sb ${from}`).execute(f.database.db)).rows;
        assert.ok(rows.length > 0 && rows.some((r) => r.sa !== ''), id);
        for (const r of rows) {
          assert.deepEqual(r.a, r.b, id);
          assert.deepEqual(r.sa.split('\x1f').sort(), r.sb.split('\x1f').sort(), id);
        }
      }
    });
  });
}
