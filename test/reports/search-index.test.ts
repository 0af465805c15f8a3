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
import { sql } from 'kysely';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { countOnOnePath } from '../helpers/one-access-path.js';
import { ORG } from '../fixtures/small-bundle.js';
import { reportById } from '../../src/reports/catalog/index.js';
import { buildPlan } from '../../src/reports/plan.js';
import { loadOrgMetadata } from '../../src/reports/metadata.js';
import { NOTHING_PRECOMPUTED } from '../../src/reports/precomputed.js';
import { accelerate, countStatement } from '../../src/reports/direct-sql.js';

const GVA = '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records';

for (const engine of engines) {
  describe(`search index on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine);
    });
    after(() => f.close());

    test('the import builds it, tenant first, over the search text', async () => {
      const index = await sql<{ def: string }>`select indexdef as def from pg_indexes where indexname = 'rpt_global_accounts_search'`.execute(f.database.db);
      assert.match(index.rows[0]?.def ?? 'missing', /ON public\.rpt_global_accounts USING gin \(org_id, search_text gin_trgm_ops\)/);
    });

    test('a search counts the same rows through the index as through a scan, and as the records list', async () => {
      const orgId = (await f.database.db.selectFrom('orgs').select('id').where('public_id', '=', ORG.ACME).executeTakeFirstOrThrow()).id;
      const meta = await loadOrgMetadata(f.database.db, orgId);
      const count = async (search: string, path: 'bitmap' | 'scan') => {
        const plan = accelerate(buildPlan({ report: reportById('GLOBAL_VERTICAL_ACCOUNTS'), meta, body: { filters: {}, search, columns: undefined, context: undefined }, paging: { page: 0, size: 20, sort: [] }, nowSeconds: 0 }), NOTHING_PRECOMPUTED);
        const statement = countStatement(plan, NOTHING_PRECOMPUTED);
        assert.notEqual(typeof statement, 'number');
        return countOnOnePath(f.database.db, statement as Exclude<typeof statement, number>, 'rpt_global_accounts', 'rpt_global_accounts_search', path);
      };
      const counts: number[] = [];
      // Names, places, custom values (Gold, Enterprise), two terms, LIKE's characters, case.
      for (const search of ['acme', 'ACME hold', 'cme', 'ac', 'a', '100%', 'a_c', 'back\\sl', 'gold', 'francisco CA', 'olive@acme', 'zeta', 'nowhere']) {
        const viaIndex = await count(search, 'bitmap');
        const viaScan = await count(search, 'scan');
        assert.equal(viaIndex.n, viaScan.n, search);
        const listed = await f.ok(`${GVA}?size=2000`, { search });
        assert.equal(listed.totalElements, viaIndex.n, search);
        assert.equal(listed.content.length, viaIndex.n, search);
        if (search.split(' ').every((t) => t.length >= 3)) assert.match(viaIndex.planText, /Bitmap Index Scan on rpt_global_accounts_search/, search);
        assert.doesNotMatch(viaScan.planText, /rpt_global_accounts_search/, search);
        counts.push(viaIndex.n);
      }
      assert.ok(counts.filter((n) => n > 0).length >= 8, counts.join(','));
    });
  });
}
