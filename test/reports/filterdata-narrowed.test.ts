/**
 * Filter values of the attribution reports under narrowed bodies (a context of some
 * partners and event types, filters, a search, filterSearch, paging) are exactly the
 * distinct values of the rows `/records` gives for the same body (without the filter on
 * `filterField`, contract section 4), in text order, less the values a filter cannot name
 * (readsAsItself). And `readsAsItselfSql` is written so PostgreSQL estimates it from the
 * column's statistics: its earlier form (two `strpos(...) = 0` tests) made the planner
 * take 16,520 opportunities for 1 row, and the summary's filter values ran into the
 * statement timeout at scale 20 (docs/benchmarks.md, twenty-seventh session).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { BUNDLE, DAY, ORG, T0 } from '../fixtures/small-bundle.js';
import { readsAsItself } from '../../src/reports/filter-language.js';
import { readsAsItselfSql } from '../../src/reports/query.js';

const R = '/v1/report-analytics/report';
/** Names a filter cannot name (not offered), look-alikes it can, and LIKE's special characters. */
const UNNAMEABLE = ['Deal-,-Split', '1<->2 Range', 'Trail-!-', 'Q-?-', 'x-^-'];
const NAMEABLE = ['Plain-!-x', 'a-,b', '<- > no', 'Dash-', '-?', '50% Off_Deal', 'Back\\slash', 'Ünïcode deal'];
const NAMES = [...UNNAMEABLE, ...NAMEABLE];

// A1's opportunities follow ALPHA's ACTION_LIST event E1 (T0 - 10 days), A2's BETA's
// WORKFLOW event E2 (T0 - 30 days), both within ACME's 30-day window.
const bundle = {
  opportunities: [
    ...BUNDLE.opportunities!,
    ...NAMES.map((name, i) => ({
      org: ORG.ACME,
      crmOpportunityId: `N${i}`,
      crmAccountId: i % 2 ? 'A2' : 'A1',
      name,
      createdDate: i % 2 ? T0 - 20 * DAY + i : T0 + i,
      amount: 100 + i,
      stageName: ['Proposal', 'Closed Won', 'Closed Lost'][i % 3],
      isClosed: i % 3 !== 0,
      isWon: i % 3 === 1,
      opportunityType: i % 4 ? 'Expansion' : `Type-${i % 3 ? '!' : '?'}-`,
    })),
  ],
};

const ALL = [ORG.ALPHA, ORG.BETA, ORG.GAMMA];
const TYPES = ['ACTION_LIST', 'WORKFLOW', 'CRM_UPDATE'];
const BODIES: Array<{ body: Record<string, unknown>; filterSearch?: string }> = [
  { body: { context: { partnerPublicIds: [ORG.ALPHA], eventTypeCodes: ['ACTION_LIST'] } } },
  { body: { context: { partnerPublicIds: [ORG.BETA], eventTypeCodes: ['WORKFLOW'] } } },
  { body: { context: { partnerPublicIds: ALL, eventTypeCodes: TYPES } } },
  { body: { context: { partnerPublicIds: ALL, eventTypeCodes: TYPES } }, filterSearch: '-' },
  { body: { context: { partnerPublicIds: [ORG.ALPHA, ORG.BETA], eventTypeCodes: ['ACTION_LIST', 'WORKFLOW'] }, filters: { opp_name: 'a-?-', opp_stage_name: 'Proposal-,-Closed Won' } } },
  { body: { context: { partnerPublicIds: ALL, eventTypeCodes: TYPES }, search: 'deal' }, filterSearch: 'e' },
];
const FIELDS: Record<string, string[]> = {
  PIPELINE_ATTRIBUTION_SUMMARY: ['opp_name', 'opp_is_won', 'opp_opportunity_type', 'opp_stage_name', 'top_parent_crm_account_name'],
  PIPELINE_ATTRIBUTION_DETAIL: ['opp_name', 'opp_is_won', 'opp_opportunity_type', 'event_name', 'partner_org_name'],
  ATTRIBUTION_EVENTS: ['event_name', 'account_name', 'partner_org_name'],
};

/** Contract section 2's text order: lower-cased value, then value, both by code point. */
const textOrder = (a: string, b: string) => {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
};

for (const engine of engines) {
  describe(`filter values under narrowed bodies on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine, { bundle, reports: { columnStore: false, precomputed: false, pageCacheRows: 0 } });
    });
    after(() => f.close());

    test('readsAsItselfSql keeps exactly the strings readsAsItself keeps', async () => {
      const values = ['', ...NAMES, '-,-', '<->', '-!-', '-?-', '-^-', 'ab', 'a', '%', '_', '%-!-', 'a-!-b-!-', 'x-^- ', ' -,- '];
      const rows = await sql<{ v: string; ok: boolean }>`select v, ${readsAsItselfSql(sql`v`)} as ok from unnest(${values}::text[]) v`.execute(f.database.db);
      assert.deepEqual(
        rows.rows.map((r) => [r.v, r.ok]),
        values.map((v) => [v, readsAsItself(v)]),
      );
    });

    test('the planner estimates readsAsItselfSql from the statistics, not as 0.005 twice over', async () => {
      const db = f.database.db;
      await sql`create table estimate_probe as select 'Opportunity ' || i as v from generate_series(1, 20000) i`.execute(db);
      await sql`analyze estimate_probe`.execute(db);
      const plan = await sql<{ 'QUERY PLAN': unknown }>`explain (format json) select v from estimate_probe where v is not null and ${readsAsItselfSql(sql`v`)}`.execute(db);
      const raw = plan.rows[0]!['QUERY PLAN'];
      const rows = (typeof raw === 'string' ? JSON.parse(raw) : raw)[0].Plan['Plan Rows'] as number;
      // Every row reads as itself. The strpos form was estimated at 1 row here.
      assert.ok(rows >= 10_000, `estimated ${rows} of 20,000 rows`);
      await sql`drop table estimate_probe`.execute(db);
    });

    test('values, counts and pages equal the distinct values of the records of the same body', async () => {
      let unnameableSeen = 0;
      for (const [report, fields] of Object.entries(FIELDS)) {
        for (const { body, filterSearch } of BODIES) {
          for (const field of fields) {
            // The filter on filterField is not applied (contract section 4), and the events
            // report has no opportunity columns to filter on.
            const filters = Object.fromEntries(Object.entries((body.filters ?? {}) as Record<string, string>).filter(([k]) => k !== field && (report !== 'ATTRIBUTION_EVENTS' || !k.startsWith('opp_'))));
            const b = { ...body, filters };
            const records = (await f.ok(`${R}/${report}/records?size=2000`, b)).content as Array<Record<string, unknown>>;
            const all = records.map((r) => r[field]).filter((v) => v !== null && v !== undefined).map(String);
            unnameableSeen += all.filter((v) => UNNAMEABLE.includes(v)).length;
            const expected = [...new Set(all)].filter((v) => readsAsItself(v) && (!filterSearch || v.toLowerCase().includes(filterSearch.toLowerCase()))).sort(textOrder);
            const q = `filterField=${field}${filterSearch ? `&filterSearch=${encodeURIComponent(filterSearch)}` : ''}`;
            const what = `${report} ${field} ${JSON.stringify(b)} ${filterSearch ?? ''}`;
            const whole = await f.ok(`${R}/${report}/filterdata?${q}&size=2000`, b);
            assert.deepEqual(whole.content.map((c: { filterData: string }) => c.filterData), expected, what);
            assert.equal(whole.totalElements, expected.length, what);
            for (const [page, size] of [[0, 1], [1, 2], [2, 3]] as const) {
              const part = await f.ok(`${R}/${report}/filterdata?${q}&size=${size}&page=${page}`, b);
              assert.deepEqual([part.content.map((c: { filterData: string }) => c.filterData), part.totalElements], [expected.slice(page * size, (page + 1) * size), expected.length], `${what} page ${page} of ${size}`);
            }
          }
        }
      }
      assert.ok(unnameableSeen > 0, 'the narrowed records hold names a filter cannot name');
    });
  });
}
