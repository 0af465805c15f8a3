/**
 * The accounts report's free-text search has a trigram index over its search text
 * (materialize.ts REPORT_INDEXES: `rpt_global_accounts_search`). The index only decides
 * how the rows are found: this proves that the service's own count statement for a search
 * gives the same count through the index as through a scan, for terms with and without
 * trigrams, several terms, LIKE's own characters, letter case and custom values, and that
 * the index path really is the index.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type RawBuilder } from 'kysely';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { countOnOnePath } from '../helpers/one-access-path.js';
import { ORG } from '../fixtures/small-bundle.js';
import { reportById } from '../../src/reports/catalog/index.js';
import { buildPlan } from '../../src/reports/plan.js';
import { loadOrgMetadata } from '../../src/reports/metadata.js';
import { NOTHING_PRECOMPUTED } from '../../src/reports/precomputed.js';
import { accelerate, countStatement } from '../../src/reports/direct-sql.js';
import { byValueNames, resolveSearchValues } from '../../src/reports/search-values.js';

const GVA = '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records';

for (const engine of engines) {
  describe(`search index on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine);
    });
    after(() => f.close());

    test('the import builds it, tenant first, over the search text and the by-value columns', async () => {
      const index = await sql<{ def: string }>`select indexdef as def from pg_indexes where indexname = 'rpt_global_accounts_search'`.execute(f.database.db);
      const names = [...byValueNames(reportById('GLOBAL_VERTICAL_ACCOUNTS'))];
      assert.ok(names.length >= 20, names.join());
      assert.match(index.rows[0]?.def ?? 'missing', new RegExp(`ON public\\.rpt_global_accounts USING gin \\(org_id, search_text gin_trgm_ops, ${names.join(', ')}\\)`));
    });

    test('a search counts the same rows through the index as through a scan, and as the records list', async () => {
      const orgId = (await f.database.db.selectFrom('orgs').select('id').where('public_id', '=', ORG.ACME).executeTakeFirstOrThrow()).id;
      const meta = await loadOrgMetadata(f.database.db, orgId);
      const run = async <T>(q: RawBuilder<unknown>) => (await q.execute(f.database.db)).rows as T[];
      // resolved: the by-value columns tested against the values that contain the term, as
      // the service does (search-values.ts); unresolved: tested with ILIKE on the row.
      const count = async (search: string, path: 'bitmap' | 'scan', resolved: boolean) => {
        const built = accelerate(buildPlan({ report: reportById('GLOBAL_VERTICAL_ACCOUNTS'), meta, body: { filters: {}, search, columns: undefined, context: undefined }, paging: { page: 0, size: 20, sort: [] }, nowSeconds: 0 }), NOTHING_PRECOMPUTED);
        const plan = resolved ? await resolveSearchValues(built, run) : built;
        const statement = countStatement(plan, NOTHING_PRECOMPUTED);
        assert.notEqual(typeof statement, 'number');
        return countOnOnePath(f.database.db, statement as Exclude<typeof statement, number>, 'rpt_global_accounts', 'rpt_global_accounts_search', path);
      };
      const counts: number[] = [];
      // Names, places (by-value columns: san francisco, ca), partner records (by-value:
      // alpha), custom values (Gold, Enterprise), two terms, LIKE's characters, case.
      for (const search of ['acme', 'ACME hold', 'cme', 'ac', 'a', '100%', 'a_c', 'back\\sl', 'gold', 'francisco CA', 'olive@acme', 'alpha', 'zeta', 'nowhere']) {
        const viaIndex = await count(search, 'bitmap', true);
        const viaScan = await count(search, 'scan', true);
        const unresolved = await count(search, 'scan', false);
        assert.equal(viaIndex.n, viaScan.n, search);
        assert.equal(unresolved.n, viaScan.n, search);
        const listed = await f.ok(`${GVA}?size=2000`, { search });
        assert.equal(listed.totalElements, viaIndex.n, search);
        assert.equal(listed.content.length, viaIndex.n, search);
        if (search.split(' ').every((t) => t.length >= 3)) {
          assert.match(viaIndex.planText, /Bitmap Index Scan on rpt_global_accounts_search/, search);
          // Every arm of the term is an index condition: no column is tested with ILIKE.
          assert.doesNotMatch(viaIndex.planText, /~~\*/, search);
        }
        assert.doesNotMatch(viaScan.planText, /rpt_global_accounts_search/, search);
        counts.push(viaIndex.n);
      }
      assert.ok(counts.filter((n) => n > 0).length >= 9, counts.join(','));
    });

    test('the by-value columns are out of the search text, and their stored values are every distinct value', async () => {
      const db = f.database.db;
      const names = [...byValueNames(reportById('GLOBAL_VERTICAL_ACCOUNTS'))];
      const stored = await sql<{ org_id: number; col: string; value: string }>`select org_id, col, value from rpt_search_values where tbl = 'rpt_global_accounts' order by 1, 2, 3`.execute(db);
      const direct = await sql
        .raw<{ org_id: number; col: string; value: string }>(names.map((n) => `select distinct org_id, '${n}' as col, ${n} as value from rpt_global_accounts where ${n} is not null`).join(' union all ') + ' order by 1, 2, 3')
        .execute(db);
      assert.ok(direct.rows.length > 20, String(direct.rows.length));
      assert.deepEqual(stored.rows, direct.rows);
      // The partner's website is a by-value column and nothing else holds it in the fixture.
      const rows = await sql<{ website: string; text: string }>`select partner_website as website, search_text as text from rpt_global_accounts where partner_website is not null`.execute(db);
      assert.ok(rows.rows.length > 0);
      for (const r of rows.rows) assert.ok(!r.text.includes(r.website.toLowerCase()), `${r.website} in ${JSON.stringify(r.text)}`);
    });
  });
}
