/**
 * The column store (src/reports/column-store.ts) answers counts, filter values and ranges
 * exactly as SQL does: the service with the store on for every tenant (minRows 0) gives
 * the answers of the service with no store and no precomputed figures, for filters of
 * every kind it holds (dictionary exact / not equal / resolved contains, number, currency
 * and date ranges, NULLs), and declines what it does not hold.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type KyselyPlugin } from 'kysely';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { ORG } from '../fixtures/small-bundle.js';
import { reportById } from '../../src/reports/catalog/index.js';
import { buildPlan } from '../../src/reports/plan.js';
import { loadOrgMetadata } from '../../src/reports/metadata.js';
import { loadPrecomputed } from '../../src/reports/precomputed.js';
import { accelerate } from '../../src/reports/direct-sql.js';
import { resolveDictionaryFilters, type RunQuery } from '../../src/reports/dictionary-filters.js';
import { countQuery, whereClause } from '../../src/reports/query.js';
import { columnStore, nthSetBits, runsSink, type StorePlan } from '../../src/reports/column-store.js';

const GVA = '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS';

const FILTERS: Array<Record<string, string>> = [
  { country: 'US' },
  { country: 'US-,-DE-,-nowhere' },
  { country: 'US-!-' },
  { state: 'CA-!-' },
  { city: 'an-?-' },
  { city: 'o-^-', country: 'US' },
  { partner_account_type: 'Customer' },
  { partner_account_type: 'Customer-!-' },
  { account_acv: '100<->' },
  { account_acv: '<->100' },
  { account_acv: '50.5<->700' },
  { open_pipeline_amount: '100<->300', country: 'US' },
  { number_of_employees: '1<->100000' },
  // Bounds between two whole numbers, and beyond the Int32 range.
  { number_of_employees: '50.2<->50.8' },
  { account_acv: '-5000000000<->5000000000' },
  { account_acv: '99.5<->100.5', open_pipeline_amount: '-1e12<->' },
  { partner_first_match_date: '0<->9999999999' },
  { recent_open_opp_date: '1<->' },
  { partner_org_name: 'alpha-?-', account_acv: '1<->' },
  { partner_account_type: 'x-^-', partner_count: '1<->' },
  { country: 'nowhere' },
  { city: 'qqqq-?-' },
  // The account's name has no dictionary: held as runs (column-text.ts).
  { account_name: 'ACME-?-' },
  { account_name: 'acme-,-west-?-' },
  { account_name: '_corp-?-' },
  { account_name: '100%-?-', country: 'US' },
  { account_name: '\\-?-' },
  { account_name: 'acme-^-' },
  { account_name: 'acme-,-zeta-^-', account_acv: '1<->' },
  { account_name: 'qqqq-?-' },
];

/** Conditions the held columns cannot test, selected by SQL once and kept as bitsets (probes). */
const PROBED: Array<{ filters: Record<string, string>; search: string }> = [
  { filters: {}, search: 'acme' },
  { filters: { country: 'US' }, search: 'acme' },
  { filters: {}, search: 'alpha ACME' },
  { filters: { account_name: 'acme-?-' }, search: 'us' },
  { filters: { account_acv: '1<->' }, search: '100%' },
  { filters: { street: 'x-!-' }, search: '' },
  { filters: { custom_tier: 'Gold' }, search: '' },
  { filters: { custom_ispartnerpaid: 'true', country: 'US' }, search: '' },
  { filters: { account_name: 'Zeta' }, search: '' },
  { filters: {}, search: 'qqqq' },
];

const FIELDS = ['account_name', 'city', 'country', 'state', 'partner_org_name', 'partner_account_type', 'partner_count', 'account_acv', 'open_pipeline_amount', 'number_of_employees', 'partner_first_match_date', 'recent_open_opp_date'];

/** Account runs from 9 bytes a row in `rid` order, loaded as one chunk. */
function runsOf(bytes: Uint8Array, rows: number, accounts: number) {
  const sink = runsSink(rows);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  sink.begin(0, rows);
  for (let i = 0; i < rows; i++) sink.put(i, view, i * 9);
  sink.end();
  return sink.result(accounts);
}

/** A Kysely plugin that records every statement's tree as JSON. */
const recorder = (statements: string[]): KyselyPlugin => ({
  transformQuery: (args) => {
    statements.push(JSON.stringify(args.node));
    return args.node;
  },
  transformResult: async (args) => args.result,
});

for (const engine of engines) {
  describe(`column store on ${engine.name}`, () => {
    let plain: FixtureApp;
    let held: FixtureApp;
    before(async () => {
      plain = await fixtureApp(engine, { reports: { columnStore: false, precomputed: false, pageCacheRows: 0 } });
      held = await fixtureApp(engine, { reports: { columnStore: { minRows: 0, waitForLoads: true, loadChunk: 2 } } });
      // A small tenant's account names get a value dictionary; a large one's do not. Without
      // it, as at scale, a "contains" on the name is probed (or, with textRuns, held as runs).
      await sql`update rpt_summaries set has_values = false, distinct_values = null where tbl = 'rpt_global_accounts' and col = 'account_name'`.execute(held.database.db);
      await sql`delete from rpt_value_counts where tbl = 'rpt_global_accounts' and col = 'account_name'`.execute(held.database.db);
    });
    after(async () => {
      await plain.close();
      await held.close();
    });

    const plan = async (filters: Record<string, string>, search = ''): Promise<StorePlan> => {
      const db = held.database.db;
      const orgId = (await db.selectFrom('orgs').select('id').where('public_id', '=', ORG.ACME).executeTakeFirstOrThrow()).id;
      const meta = await loadOrgMetadata(db, orgId);
      const pre = await loadPrecomputed(db, orgId);
      const built = accelerate(Object.assign(buildPlan({ report: reportById('GLOBAL_VERTICAL_ACCOUNTS'), meta, body: { filters, search, columns: undefined, context: undefined }, paging: { page: 0, size: 20, sort: [] }, nowSeconds: 0 }), { version: 'test', pre }), pre);
      const run = (async (q) => (await q.execute(db)).rows) as RunQuery;
      return resolveDictionaryFilters(built, run);
    };

    for (const textRuns of [true, false]) {
      test(`counts equal SQL counts, and the store answers them itself (name ${textRuns ? 'held as runs' : 'probed'})`, async () => {
        const statements: string[] = [];
        const db = held.database.db.withPlugin(recorder(statements));
        const store = columnStore({ db, minRows: 0, waitForLoads: true, loadChunk: 2, textRuns });
        const cases = [...FILTERS.map((filters) => ({ filters, search: '' })), ...PROBED];
        for (const { filters, search } of cases) {
          const p = await plan(filters, search);
          const fromStore = await store.count(p);
          assert.notEqual(fromStore, undefined, JSON.stringify(filters));
          const fromSql = Number(((await countQuery(p).execute(held.database.db)).rows[0] as { n: unknown }).n);
          assert.equal(fromStore, fromSql, `${JSON.stringify(filters)} ${search}`);
        }
        // A filter set that keeps some rows and drops others proves the test is not vacuous.
        const counts = await Promise.all(cases.map(async (c) => store.count(await plan(c.filters, c.search))));
        assert.ok(new Set(counts).size >= 4, `counts: ${counts.join(', ')}`);
        // The name's runs are loaded only when it is held (else its fragments are probed).
        assert.equal(statements.some((q) => q.includes('lag(')), textRuns);
        // A probe is run once: asked again, every count comes from the bitsets.
        const before = statements.length;
        for (const { filters, search } of PROBED) await store.count(await plan(filters, search));
        assert.equal(statements.length, before, 'no statement the second time');
      });
    }

    test('a new data version: the columns held for the one before load in the background, after the first request\'s own', async () => {
      const statements: string[] = [];
      const store = columnStore({ db: held.database.db.withPlugin(recorder(statements)), minRows: 0, waitForLoads: true, loadChunk: 2, textRuns: true });
      const at = async (version: string, filters: Record<string, string>) => store.count({ ...(await plan(filters)), version });
      const used: Array<Record<string, string>> = [{ account_acv: '100<->' }, { partner_account_type: 'Customer' }, { account_name: 'acme-?-' }];
      // Version 1: a column loaded and then pushed out of the budget is not loaded again.
      const tiny = columnStore({ db: held.database.db.withPlugin(recorder(statements)), minRows: 0, waitForLoads: true, maxBytes: 1 });
      const expected = await Promise.all(used.map(async (f) => Number(((await countQuery(await plan(f)).execute(held.database.db)).rows[0] as { n: unknown }).n)));
      for (const f of [{ country: 'US' }, ...used]) await at('1', f);
      const country = await at('2', { country: 'US' });
      assert.equal(country, Number(((await countQuery(await plan({ country: 'US' })).execute(held.database.db)).rows[0] as { n: unknown }).n));
      await store.warmed();
      const loaded = statements.length;
      for (const [k, f] of used.entries()) assert.equal(await at('2', f), expected[k], JSON.stringify(f));
      assert.equal(statements.length, loaded, 'every column in use was loaded for version 2 before it was asked for');
      // Version 1's columns were let go: a request still on it loads again (and changes nothing).
      assert.equal(await at('1', used[0]!), expected[0]);
      assert.ok(statements.length > loaded, 'version 1 is no longer held');
      // A later version warms again; a late load for an older one (a request that read the
      // version before an import) does not take its place.
      await at('3', { number_of_employees: '1<->100000' });
      await store.warmed();
      const warmed3 = statements.length;
      for (const f of used) await at('3', f);
      assert.equal(statements.length, warmed3, 'version 3 warmed from version 2');
      await at('2', { recent_open_opp_date: '1<->' });
      await at('4', { country: 'US' });
      await store.warmed();
      const warmed4 = statements.length;
      for (const f of used) await at('4', f);
      assert.equal(statements.length, warmed4, 'version 4 warmed from version 3, not from the late load of version 2');
      // Without a version before, nothing loads ahead of being asked for.
      const fresh = columnStore({ db: held.database.db.withPlugin(recorder(statements)), minRows: 0, waitForLoads: true, loadChunk: 2 });
      await fresh.count({ ...(await plan({ country: 'US' })), version: '7' });
      await fresh.warmed();
      const asked = statements.length;
      await fresh.count({ ...(await plan({ account_acv: '100<->' })), version: '7' });
      assert.ok(statements.length > asked, 'a column nobody used is loaded when it is asked for');
      // A budget that holds nothing keeps nothing to warm: version 2 loads only what it is asked.
      for (const f of [{ country: 'US' }, ...used]) await tiny.count({ ...(await plan(f)), version: '1' });
      await tiny.count({ ...(await plan({ country: 'US' })), version: '2' });
      const before = statements.length;
      await tiny.warmed();
      assert.equal(statements.length, before, 'nothing held, nothing warmed');
    });

    test('the name is held as runs only with a budget of 128 MiB or more', async () => {
      for (const [mb, runs] of [[64, false], [128, true]] as const) {
        const statements: string[] = [];
        const store = columnStore({ db: held.database.db.withPlugin(recorder(statements)), minRows: 0, maxBytes: mb * 1024 * 1024 });
        assert.notEqual(await store.count(await plan({ account_name: 'acme-?-' })), undefined);
        assert.equal(statements.some((q) => q.includes('lag(')), runs, `${mb} MiB`);
      }
    });

    test('it declines small tenants and stale row counts', async () => {
      const store = columnStore({ db: held.database.db, minRows: 0, waitForLoads: true });
      // A "contains" not resolved to a value list (dictionary-filters.ts) is selected by SQL.
      const resolved = await plan({ city: 'an-?-' });
      const unresolved = { ...resolved, filters: [{ column: resolved.filters[0]!.column, filter: { operation: 'contains' as const, values: ['an'] } }] };
      assert.equal(await store.count(unresolved), await store.count(resolved));
      assert.equal(await columnStore({ db: held.database.db }).count(await plan({ country: 'US' })), undefined);
      // rids that are not 1..N (a row count that does not match): SQL answers.
      const p = await plan({ country: 'US' });
      const wrong = { ...p, version: 'other', pre: { ...p.pre, tables: new Map([['rpt_global_accounts', { ...p.pre.tables.get('rpt_global_accounts')!, rows: 999 }]]) } };
      assert.equal(await store.count(wrong), undefined);
    });

    test('records, filter values and ranges through the service equal the plain path', async () => {
      for (const body of [...FILTERS.map((filters) => ({ filters })), ...PROBED]) {
        for (const q of ['size=3', 'page=1&size=2', 'page=2&size=1', 'page=50&size=20', 'size=2&sort=account_name,desc']) {
          const [a, b] = await Promise.all([plain.ok(`${GVA}/records?${q}`, body), held.ok(`${GVA}/records?${q}`, body)]);
          assert.deepEqual(b, a, `${q} ${JSON.stringify(body)}`);
        }
        for (const field of FIELDS) {
          for (const q of ['', '&filterSearch=a', '&page=1&size=1']) {
            const u = `${GVA}/filterdata?filterField=${field}${q}`;
            const [x, y] = await Promise.all([plain.ok(u, body), held.ok(u, body)]);
            assert.deepEqual(y, x, `${u} ${JSON.stringify(body)}`);
          }
        }
      }
    });

    test('pages in the default order: the store picks the rids SQL would, for every offset', async () => {
      const store = columnStore({ db: held.database.db, minRows: 0, waitForLoads: true, loadChunk: 2 });
      let nonEmpty = 0;
      for (const { filters, search } of [...FILTERS.map((filters) => ({ filters, search: '' })), ...PROBED]) {
        const p = await plan(filters, search);
        for (const [offset, size] of [[0, 20], [0, 1], [1, 2], [2, 5], [100, 20]] as const) {
          const rids = await store.pageRids(p, offset, size);
          assert.ok(rids, JSON.stringify(filters));
          const expected = (await sql<{ rid: string }>`select r.rid from rpt_global_accounts r where ${whereClause(p)} order by r.rid limit ${size} offset ${offset}`.execute(held.database.db)).rows.map((r) => Number(r.rid));
          assert.deepEqual(rids, expected, `${offset}/${size} ${JSON.stringify(filters)}`);
          if (expected.length > 0 && offset > 0) nonEmpty++;
        }
      }
      assert.ok(nonEmpty >= 5, 'later pages hold rows too');
      assert.equal(await store.pageRids(await plan({}), 0, 20), undefined, 'no filter: SQL seeks');
      assert.notEqual(await store.pageRids(await plan({}, 'acme'), 0, 20), undefined, 'a search alone: the store picks the page');
    });

    test('runsOf: account runs from ids hashed per row, refused when starts and accounts disagree', () => {
      // Rows: a a NULL b b c (hash bytes stand in for the ids' hashes).
      const row = (id: number | null) => (id === null ? [0, 0, 0, 0, 0, 0, 0, 0, 0] : [1, 0, 0, 0, 0, 0, 0, 0, id]);
      const bytes = (ids: Array<number | null>) => Uint8Array.from(ids.flatMap(row));
      assert.deepEqual([...runsOf(bytes([7, 7, null, 8, 8, 9]), 6, 3)!.data], [1, 2, 0, 1, 2, 1]);
      // An account split in two runs (a b a): more starts than accounts.
      assert.equal(runsOf(bytes([7, 8, 7]), 3, 2), null);
      // Neighbours whose hashes collide (two accounts, one hash): fewer starts than accounts.
      assert.equal(runsOf(bytes([7, 7, 7]), 3, 2), null);
      // A NULL between two rows of one account ends its run: two starts for one account.
      assert.equal(runsOf(bytes([7, null, 7]), 3, 1), null);
      // Chunks loaded in any order: runs continue across their edges.
      const ids = [7, 7, 7, 8, 8, null, 9, 9];
      const all = bytes(ids);
      const sink = runsSink(ids.length);
      const view = new DataView(all.buffer);
      for (const [first, n] of [[4, 2], [0, 2], [6, 2], [2, 2]] as const) {
        sink.begin(first, n);
        for (const i of [first + n - 1, first]) sink.put(i, view, i * 9);
        sink.end();
      }
      assert.deepEqual([...sink.result(3)!.data], [1, 2, 2, 1, 2, 0, 1, 2]);
    });

    test('nthSetBits skips whole words and returns positions in order', () => {
      const bits = new Uint32Array(4);
      const set = [0, 5, 31, 32, 33, 64, 100, 127];
      for (const i of set) bits[i >>> 5]! |= 1 << (i & 31);
      for (let skip = 0; skip <= set.length; skip++) for (const take of [1, 2, 3, 20]) assert.deepEqual(nthSetBits(bits, skip, take), set.slice(skip, skip + take), `${skip}/${take}`);
    });

    test('columns a request needs together are read together: one statement per chunk for all of them', async () => {
      const statements: string[] = [];
      const db = held.database.db.withPlugin(recorder(statements));
      const store = columnStore({ db, minRows: 0, waitForLoads: true, loadChunk: 2 });
      const p = await plan({ country: 'US-!-', account_acv: '1<->', number_of_employees: '<->1000000' });
      const rows = p.pre.tables.get('rpt_global_accounts')!.rows;
      assert.ok(rows >= 3, `rows: ${rows}`);
      const n = await store.count(p);
      const fromSql = Number(((await countQuery(p).execute(held.database.db)).rows[0] as { n: unknown }).n);
      assert.equal(n, fromSql);
      const loads = statements.filter((q) => q.includes('string_agg'));
      assert.equal(loads.length, Math.ceil(rows / 2), 'three columns, one statement per chunk');
    });

    test('with waitForLoads false a request does not wait for a load: SQL answers until the columns are in', async () => {
      const store = columnStore({ db: held.database.db, minRows: 0, waitForLoads: false });
      const p = await plan({ country: 'US', account_acv: '1<->' });
      assert.equal(await store.count(p), undefined, 'the first request starts the loads and is left to SQL');
      let n: number | undefined;
      for (let i = 0; i < 200 && n === undefined; i++) {
        await new Promise((r) => setTimeout(r, 10));
        n = await store.count(p);
      }
      const fromSql = Number(((await countQuery(p).execute(held.database.db)).rows[0] as { n: unknown }).n);
      assert.equal(n, fromSql, 'once loaded, the store answers');
      assert.equal(await store.dashboard(p), undefined, 'the dashboard columns are not loaded yet');
    });

    test('filtered dashboards equal the SQL ones, and the store computes them itself', async () => {
      for (const body of [{ filters: {} }, ...FILTERS.map((filters) => ({ filters })), ...PROBED]) {
        const [a, b] = await Promise.all([plain.ok(`${GVA}/dashboard`, body), held.ok(`${GVA}/dashboard`, body)]);
        assert.deepEqual(b, a, JSON.stringify(body));
      }
      // Chunks of two rows: accounts' runs cross chunk edges.
      const store = columnStore({ db: held.database.db, minRows: 0, waitForLoads: true, loadChunk: 2 });
      const figures = await store.dashboard(await plan({ country: 'US' }));
      assert.ok(figures, 'the store answered');
      // Without the stored unfiltered dashboard, the accounts are counted by SQL for the runs check.
      await sql`delete from rpt_dashboards`.execute(held.database.db);
      const counted = await columnStore({ db: held.database.db, minRows: 0, waitForLoads: true }).dashboard(await plan({ country: 'US' }));
      assert.deepEqual(counted, figures);
      assert.ok(Number(figures.totals.overlaps) > 0 && figures.byPartner.length > 0, JSON.stringify(figures));
    });

    test('held columns are typed by their values: Int32 for whole numbers, Float64 otherwise, positions for dictionaries', async () => {
      const db = held.database.db;
      const p = await plan({});
      const store = columnStore({ db, minRows: 0, waitForLoads: true });
      // Ranges read the held columns; compare with SQL's min and max.
      for (const name of ['account_acv', 'number_of_employees', 'partner_first_match_date']) {
        const column = p.columns.find((c) => c.key === name)!;
        const r = await store.range(p, column);
        const row = (await sql<{ min: number | null; max: number | null }>`select min(${sql.ref(name)})::double precision as min, max(${sql.ref(name)})::double precision as max from rpt_account_facts where org_id = ${p.orgId}`.execute(db)).rows[0]!;
        assert.deepEqual(r, { min: row.min, max: row.max }, name);
      }
      const city = p.columns.find((c) => c.key === 'city')!;
      const values = await store.values(p, city, undefined);
      const expected = (await sql<{ v: string }>`select distinct city as v from rpt_global_accounts where org_id = ${p.orgId} and city is not null`.execute(db)).rows.map((r) => r.v);
      assert.deepEqual([...(values ?? [])].sort(), expected.sort());
    });
  });
}
