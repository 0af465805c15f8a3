/**
 * Dictionary "contains" / "does not contain" filters are resolved to value lists before
 * the statements are built (src/reports/dictionary-filters.ts): the lists are what the
 * dictionary holds, a filter that rejects no value is left out (so stored figures answer
 * it), one that selects none compiles to `false` and counts 0 without a statement. The
 * answers equal the plain path's in keyset-and-cache.test.ts; here the rewrite itself.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { ORG } from '../fixtures/small-bundle.js';
import { reportById } from '../../src/reports/catalog/index.js';
import { buildPlan } from '../../src/reports/plan.js';
import { loadOrgMetadata } from '../../src/reports/metadata.js';
import { loadPrecomputed } from '../../src/reports/precomputed.js';
import { accelerate, countStatement } from '../../src/reports/direct-sql.js';
import { resolveDictionaryFilters, type RunQuery } from '../../src/reports/dictionary-filters.js';
import { recordsQuery } from '../../src/reports/query.js';
import { compile } from '../helpers/compile.js';

for (const engine of engines) {
  describe(`dictionary filters resolved on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine);
    });
    after(() => f.close());

    const setup = async () => {
      const orgId = (await f.database.db.selectFrom('orgs').select('id').where('public_id', '=', ORG.ACME).executeTakeFirstOrThrow()).id;
      const meta = await loadOrgMetadata(f.database.db, orgId);
      const pre = await loadPrecomputed(f.database.db, orgId);
      let statements = 0;
      const run: RunQuery = async <T>(q: Parameters<RunQuery>[0]) => {
        statements++;
        return (await q.execute(f.database.db)).rows as T[];
      };
      const plan = (filters: Record<string, string>) =>
        accelerate(buildPlan({ report: reportById('GLOBAL_VERTICAL_ACCOUNTS'), meta, body: { filters, search: '', columns: undefined, context: undefined }, paging: { page: 0, size: 20, sort: [] }, nowSeconds: 0 }), pre);
      const cities = (await sql<{ c: string }>`select distinct city as c from rpt_global_accounts where org_id = ${orgId} and city is not null`.execute(f.database.db)).rows.map((r) => r.c);
      return { orgId, pre, run, plan, cities, statements: () => statements };
    };

    test('contains becomes the list of dictionary values holding every term', async () => {
      const { run, plan, cities } = await setup();
      const resolved = await resolveDictionaryFilters(plan({ city: 'an-?-' }), run);
      const expected = cities.filter((c) => c.toLowerCase().includes('an'));
      assert.ok(expected.length >= 2 && expected.length < cities.length, `fixture cities: ${cities.join(', ')}`);
      assert.equal(resolved.filters.length, 1);
      assert.equal(resolved.filters[0]!.filter.operation, 'exact');
      assert.deepEqual([...(resolved.filters[0]!.filter as { values: string[] }).values].sort(), expected.sort());
    });

    test('does not contain becomes "not equal" to the rejected values, or goes when none is rejected', async () => {
      const { run, plan, pre, cities } = await setup();
      const some = await resolveDictionaryFilters(plan({ city: 'o-^-' }), run);
      assert.equal(some.filters[0]!.filter.operation, 'notEqual');
      assert.deepEqual([...(some.filters[0]!.filter as { values: string[] }).values].sort(), cities.filter((c) => c.toLowerCase().includes('o')).sort());
      const none = await resolveDictionaryFilters(plan({ state: 'zz-^-' }), run);
      assert.equal(none.filters.length, 0);
      // No filter left: the stored row count answers.
      assert.equal(typeof countStatement(none, pre), 'number');
    });

    test('contains that no value holds compiles to false and counts 0 without a statement', async () => {
      const { run, plan, pre } = await setup();
      const nothing = await resolveDictionaryFilters(plan({ city: 'qqqq-?-', account_acv: '1<->' }), run);
      assert.equal(countStatement(nothing, pre), 0);
      assert.match(compile(recordsQuery(nothing)).sql, /\bfalse\b/);
    });

    test('other filters stay as they are, and a memo answers a repeated filter without a statement', async () => {
      const { run, plan, statements } = await setup();
      const original = plan({ country: 'US', account_acv: '1<->', city: 'an-?-' });
      const memo = new Map<string, readonly string[]>();
      const first = await resolveDictionaryFilters(original, run, { memo, key: 'k' });
      assert.deepEqual(first.filters.slice(0, 2), original.filters.slice(0, 2));
      const before = statements();
      const second = await resolveDictionaryFilters(plan({ country: 'US', account_acv: '1<->', city: 'an-?-' }), run, { memo, key: 'k' });
      assert.equal(statements(), before);
      assert.deepEqual(second.filters, first.filters);
      // Without accelerations (no dictionary), nothing is resolved.
      const bare = { ...original, accel: undefined };
      assert.equal(await resolveDictionaryFilters(bare, run), bare);
    });
  });
}
