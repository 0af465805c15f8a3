/**
 * Filtered counts of GLOBAL_VERTICAL_ACCOUNTS read `rpt_account_facts` when every
 * condition falls on its columns (src/reports/narrow-copies.ts): the copy holds exactly
 * the report rows' values (masked partner values included, so a count can reveal nothing
 * the rows do not), its table has the columns the module names, every count equals the
 * number of rows the same request lists, and filter values, ranges and a filtered
 * dashboard read from it equal those read from the report rows.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type RawBuilder } from 'kysely';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { ORG } from '../fixtures/small-bundle.js';
import { ACCOUNT_FACT_COLUMNS, narrowCopyFor } from '../../src/reports/narrow-copies.js';
import { reportById } from '../../src/reports/catalog/index.js';
import { buildPlan } from '../../src/reports/plan.js';
import { dashboardQueries } from '../../src/reports/query-dashboard.js';
import { batchQuery, boundariesQuery, recordsQuery } from '../../src/reports/query.js';
import { compile } from '../helpers/compile.js';
import { countOnOnePath } from '../helpers/one-access-path.js';
import { loadOrgMetadata } from '../../src/reports/metadata.js';
import { loadPrecomputed, NOTHING_PRECOMPUTED } from '../../src/reports/precomputed.js';
import { accelerate, countStatement } from '../../src/reports/direct-sql.js';

const GVA = '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records?size=2000';

/** Filters on copy columns only (every operation), and some that are not (the report rows count). */
const FILTERS: object[] = [
  { country: 'US' },
  { country: 'US-,-DE', number_of_employees: '1<->100000' },
  { annual_revenue: '<->1000000' },
  { account_acv: '100<->', recent_open_opp_date: '0<->' },
  { partner_first_match_date: '0<->9999999999' },
  { city: 'an-?-' },
  { city: 'o-^-', state: 'CA-!-' },
  { partner_org_name: 'alpha-?-' },
  { partner_account_type: 'x-^-' },
  { partner_account_acv: '1<->' },
  { industry: 'soft-?-', territory: 'x-!-' },
  { account_name: 'acme-?-' },
  { account_name: 'acme-?-', country: 'US' },
  { street: 'x-!-' },
  { street: 'x-!-', account_name: 'a-?-' },
];

describe('narrow copy definition', () => {
  test('a count uses the copy only when every filter column is in it and there is no search', () => {
    const report = reportById('GLOBAL_VERTICAL_ACCOUNTS');
    const col = (key: string) => report.columns.find((c) => c.key === key)!;
    const base = { report, scope: {}, search: [] as string[] };
    assert.equal(narrowCopyFor({ ...base, filters: [{ column: col('country'), filter: { operation: 'exact', values: ['US'] } }] } as never)?.table, 'rpt_account_facts');
    assert.equal(narrowCopyFor({ ...base, filters: [{ column: col('account_name'), filter: { operation: 'contains', values: ['x'] } }] } as never)?.table, 'rpt_account_facts');
    assert.equal(narrowCopyFor({ ...base, filters: [{ column: col('street'), filter: { operation: 'exact', values: ['x'] } }] } as never), undefined);
    assert.equal(narrowCopyFor({ ...base, search: ['x'], filters: [] } as never), undefined);
  });

  test('the accounts dashboard aggregates the copy when the filters allow it', () => {
    const report = reportById('GLOBAL_VERTICAL_ACCOUNTS');
    const plan = (filters: Record<string, string>) =>
      buildPlan({ report, meta: { orgId: 7, customFields: [], partners: new Map(), eventTypeCodes: new Set(), partnerCustomFields: new Map() }, body: { filters, search: '', columns: undefined, context: undefined }, paging: { page: 0, size: 1, sort: [] }, nowSeconds: 0 });
    const statement = (q: ReturnType<typeof dashboardQueries>) => compile('combined' in q ? q.combined : q.totals).sql;
    const narrow = statement(dashboardQueries(plan({ country: 'US', annual_revenue: '1<->' })));
    // Once: totals and breakdown read the rows in one pass.
    assert.equal(narrow.match(/"rpt_account_facts"/g)?.length, 1, narrow);
    assert.doesNotMatch(narrow, /rpt_global_accounts/);
    const wide = statement(dashboardQueries(plan({ street: 'x' })));
    assert.match(wide, /"rpt_global_accounts"/);
    assert.doesNotMatch(wide, /rpt_account_facts/);
  });
});

for (const engine of engines) {
  describe(`rpt_account_facts on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine);
    });
    after(() => f.close());

    test('its columns are the ones the module names, and its rows the report rows projected', async () => {
      const columns = await sql<{ name: string }>`select column_name as name from information_schema.columns where table_name = 'rpt_account_facts' order by ordinal_position`.execute(f.database.db);
      assert.deepEqual(columns.rows.map((r) => r.name), ['org_id', 'rid', 'partner_org_id', ...ACCOUNT_FACT_COLUMNS]);
      const list = ['org_id', 'rid', 'partner_org_id', ...ACCOUNT_FACT_COLUMNS].join(', ');
      const report = await sql.raw(`select ${list} from rpt_global_accounts order by org_id, rid`).execute(f.database.db);
      const copy = await sql.raw(`select ${list} from rpt_account_facts order by org_id, rid`).execute(f.database.db);
      assert.ok(report.rows.length > 0);
      assert.deepEqual(copy.rows, report.rows);
    });

    test('every filtered count equals the rows listed', async () => {
      let nonEmpty = 0;
      for (const filters of FILTERS) {
        for (const key of [f.keys.acme, f.keys.other]) {
          const page = await f.ok(GVA, { filters }, key);
          assert.equal(page.totalElements, page.content.length, JSON.stringify(filters));
          if (page.content.length) nonEmpty++;
        }
      }
      assert.ok(nonEmpty >= 8, `only ${nonEmpty} filtered requests list rows`);
    });

    test('filter values and ranges from the copy equal those from the report rows', async () => {
      const url = (field: string) => `/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/filterdata?filterField=${field}&size=50`;
      let nonEmpty = 0;
      for (const field of ['city', 'industry', 'partner_org_name', 'annual_revenue', 'partner_first_match_date']) {
        for (const filters of FILTERS.slice(0, 8)) {
          const fromCopy = await f.ok(url(field), { filters });
          const fromRows = await f.ok(url(field), { filters: { street: 'zzqq-^-', ...filters } });
          assert.deepEqual(fromCopy, fromRows, `${field} ${JSON.stringify(filters)}`);
          if (JSON.stringify(fromCopy).length > 80) nonEmpty++;
        }
      }
      assert.ok(nonEmpty >= 10, `only ${nonEmpty} answers hold values`);
    });

    test('a "contains" on the account name is counted from its trigram index, with the counts of a scan', async () => {
      const index = await sql<{ def: string }>`select indexdef as def from pg_indexes where indexname = 'rpt_account_facts_account_name_trgm'`.execute(f.database.db);
      assert.match(index.rows[0]?.def ?? 'missing', /USING gin \(org_id, account_name gin_trgm_ops\)/);
      const orgId = (await f.database.db.selectFrom('orgs').select('id').where('public_id', '=', ORG.ACME).executeTakeFirstOrThrow()).id;
      const meta = await loadOrgMetadata(f.database.db, orgId);
      // The fixture's few names have a dictionary (precomputed.ts), which a tenant with more
      // than 1,000 distinct names does not: the statement is built without it, as there.
      const pre = NOTHING_PRECOMPUTED;
      assert.ok((await loadPrecomputed(f.database.db, orgId)).tables.get('rpt_global_accounts')?.columns.get('account_name')?.hasValues);
      // The service's own count statement, run with the planner held to one access path,
      // so the index path is proved to give the same count as reading every row, for terms
      // with and without trigrams, LIKE's own characters and letter case.
      const count = async (term: string, path: 'bitmap' | 'scan') => {
        const plan = accelerate(buildPlan({ report: reportById('GLOBAL_VERTICAL_ACCOUNTS'), meta, body: { filters: { account_name: `${term}-?-` }, search: '', columns: undefined, context: undefined }, paging: { page: 0, size: 20, sort: [] }, nowSeconds: 0 }), pre);
        const statement = countStatement(plan, pre);
        assert.notEqual(typeof statement, 'number');
        return countOnOnePath(f.database.db, statement as Exclude<typeof statement, number>, 'rpt_account_facts', 'rpt_account_facts_account_name_trgm', path);
      };
      const names = (await sql<{ name: string | null }>`select account_name as name from rpt_global_accounts where org_id = ${orgId}`.execute(f.database.db)).rows.map((r) => r.name);
      const counts: number[] = [];
      for (const term of ['acme', 'ACME HOLD', 'cme', 'ac', 'a', '100%', 'a_c', 'back\\sl', 'zeta', 'nowhere']) {
        const viaIndex = await count(term, 'bitmap');
        const viaScan = await count(term, 'scan');
        assert.equal(viaIndex.n, viaScan.n, term);
        assert.equal(viaIndex.n, names.filter((n) => n?.toLowerCase().includes(term.toLowerCase())).length, term);
        if (term.length >= 3) assert.match(viaIndex.planText, /Bitmap Index Scan on rpt_account_facts_account_name_trgm/, term);
        assert.doesNotMatch(viaScan.planText, /_trgm/, term);
        counts.push(viaIndex.n);
      }
      assert.ok(counts.filter((n) => n > 0).length >= 6, counts.join(','));
    });

    test('pages, page boundaries and batches probing the copy by trigrams list the rows the report rows give', async () => {
      const orgId = (await f.database.db.selectFrom('orgs').select('id').where('public_id', '=', ORG.ACME).executeTakeFirstOrThrow()).id;
      const meta = await loadOrgMetadata(f.database.db, orgId);
      const report = reportById('GLOBAL_VERTICAL_ACCOUNTS');
      // Accelerations without a name dictionary (a tenant with more than 1,000 names): the
      // probe applies; no accelerations: the plain conditions on the report rows.
      const plan = (filters: Record<string, string>, sort: Array<[string, 'asc' | 'desc']>, page: number, probe: boolean) => {
        const p = buildPlan({ report, meta, body: { filters, search: '', columns: undefined, context: undefined }, paging: { page, size: 2, sort: sort.map(([key, direction]) => ({ key, direction })) }, nowSeconds: 0 });
        return probe ? Object.assign(p, { accel: { dictionary: new Set<string>() } }) : p;
      };
      const run = async (q: RawBuilder<unknown>) => (await q.execute(f.database.db)).rows;
      const cases: Array<[Record<string, string>, boolean]> = [
        [{ account_name: 'acme-?-' }, true],
        [{ account_name: 'ACME-?-', country: 'US' }, true],
        [{ account_name: 'a-?-', city: 'land-^-' }, true],
        [{ account_name: 'corp-,-100%-?-' }, true],
        [{ account_name: 'nowhere-?-' }, true],
        [{ account_name: 'acme-!-' }, false],
        [{ account_name: 'acme-?-', street: 'x-!-' }, false],
        [{ country: 'US' }, false],
      ];
      let listed = 0;
      for (const [filters, probes] of cases) {
        for (const sort of [[], [['annual_revenue', 'desc']], [['account_name', 'asc'], ['partner_org_name', 'desc']]] as Array<Array<[string, 'asc' | 'desc']>>) {
          for (const page of [0, 1, 2]) {
            const label = `${JSON.stringify(filters)} ${JSON.stringify(sort)} page ${page}`;
            const [withProbe, plain] = [plan(filters, sort, page, true), plan(filters, sort, page, false)];
            assert.equal(/r\.rid in \(select r\.rid from "rpt_account_facts" r/.test(compile(recordsQuery(withProbe)).sql), probes, label);
            assert.doesNotMatch(compile(recordsQuery(plain)).sql, /rpt_account_facts/, label);
            const rows = await run(recordsQuery(withProbe));
            assert.deepEqual(rows, await run(recordsQuery(plain)), label);
            listed += rows.length;
            assert.deepEqual(await run(boundariesQuery(withProbe, 1, { last: true })), await run(boundariesQuery(plain, 1, { last: true })), label);
            assert.deepEqual(await run(batchQuery(withProbe, null, 3)), await run(batchQuery(plain, null, 3)), label);
          }
        }
      }
      assert.ok(listed >= 30, `only ${listed} rows listed`);
    });

    test("a filtered dashboard's totals and breakdown equal the figures of the rows listed", async () => {
      let nonEmpty = 0;
      for (const filters of FILTERS) {
        for (const [key, org] of [[f.keys.acme, ORG.ACME], [f.keys.other, ORG.OTHER]] as const) {
          const rows: Array<Record<string, any>> = (await f.ok(GVA, { filters }, key)).content;
          const dashboard = await f.ok('/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/dashboard', { filters }, key);
          const orgId = (await f.database.db.selectFrom('orgs').select('id').where('public_id', '=', org).executeTakeFirstOrThrow()).id;
          const customers = new Set((await sql<{ id: string }>`select distinct crm_account_id as id from rpt_global_accounts where org_id = ${orgId} and is_customer`.execute(f.database.db)).rows.map((r) => r.id));
          // Amounts belong to the account: counted once per account however many partner rows it has.
          const perAccount = new Map<string, { pipeline: number | null; acv: number | null }>();
          for (const r of rows) perAccount.set(r.crm_account_id, { pipeline: r.open_pipeline_amount, acv: r.account_acv });
          const sum = (pick: (a: { pipeline: number | null; acv: number | null }) => number | null) => [...perAccount.values()].reduce((t, a) => t + (pick(a) ?? 0), 0);
          assert.deepEqual(dashboard.totals, {
            overlappingAccounts: perAccount.size,
            overlaps: rows.length,
            partners: new Set(rows.map((r) => r.partnerOrgPublicId)).size,
            customers: [...perAccount.keys()].filter((id) => customers.has(id)).length,
            openPipelineAmount: sum((a) => a.pipeline),
            accountAcv: sum((a) => a.acv),
          }, `${org} ${JSON.stringify(filters)}`);
          // A partner's pipeline: each of its accounts' amounts once.
          const partners = new Map<string, { overlaps: number; accounts: Map<string, number> }>();
          for (const r of rows) {
            const p = partners.get(r.partnerOrgPublicId) ?? { overlaps: 0, accounts: new Map() };
            p.overlaps++;
            p.accounts.set(r.crm_account_id, r.open_pipeline_amount ?? 0);
            partners.set(r.partnerOrgPublicId, p);
          }
          assert.deepEqual(
            Object.fromEntries(dashboard.byPartner.map((p: any) => [p.partnerOrgPublicId, [p.overlaps, p.overlappingAccounts, p.openPipelineAmount]])),
            Object.fromEntries([...partners].map(([id, p]) => [id, [p.overlaps, p.accounts.size, [...p.accounts.values()].reduce((t, v) => t + v, 0)]])),
            `${org} ${JSON.stringify(filters)}`,
          );
          if (rows.length > 1) nonEmpty++;
        }
      }
      assert.ok(nonEmpty >= 6, `only ${nonEmpty} filtered dashboards aggregate more than one row`);
    });

    test('a filtered dashboard from the copy equals the one from the report rows', async () => {
      // `street` does not contain an absent term: true for every row (NULLs kept), and
      // not a copy column, so that request aggregates the report rows themselves.
      for (const filters of FILTERS) {
        for (const key of [f.keys.acme, f.keys.other]) {
          const fromCopy = await f.ok('/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/dashboard', { filters }, key);
          const fromRows = await f.ok('/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/dashboard', { filters: { street: 'zzqq-^-', ...filters } }, key);
          assert.deepEqual(fromCopy, fromRows, JSON.stringify(filters));
        }
      }
    });
  });
}
