/**
 * Prepared statements (src/db/prepared.ts, database.ts `prepare`): which texts are named,
 * that PostgreSQL keeps them and still plans each execution for its values, that a table
 * swapped or retyped underneath changes no answer, and which of the service's statements
 * ask for it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery } from 'kysely';
import { isStalePrepared, preparedNames } from '../../src/db/prepared.js';
import { openDatabase, type Database, type RunOptions } from '../../src/db/database.js';
import { createReportService } from '../../src/reports/service.js';
import { serviceStateReader } from '../../src/reports/data-version.js';
import { jsonOf } from '../../src/reports/cache.js';
import type { Caller } from '../../src/server/access/caller.js';
import { engines } from '../helpers/engines.js';
import { adminCaller, fixtureApp, NOW, type FixtureApp } from '../helpers/fixture-app.js';

describe('the names of prepared statements', () => {
  test('a text is named when it comes back, with the same name ever after', () => {
    const names = preparedNames(4);
    assert.equal(names.nameOf('select 1'), undefined, 'seen once: unnamed');
    const name = names.nameOf('select 1');
    assert.match(name ?? '', /^pr_[A-Za-z0-9_-]+$/);
    assert.equal(names.nameOf('select 1'), name);
    assert.equal(preparedNames(4).nameOf('select 2'), undefined);
    const other = preparedNames(4);
    other.nameOf('select 1');
    assert.equal(other.nameOf('select 1'), name, 'one text, one name, on every connection');
    assert.notEqual(names.nameOf('select 2') ?? names.nameOf('select 2'), name);
  });

  test('at most `max` texts are named; the rest run unnamed', () => {
    const names = preparedNames(2);
    for (const t of ['a', 'b', 'c']) names.nameOf(t);
    assert.ok(names.nameOf('a') && names.nameOf('b'));
    assert.equal(names.nameOf('c'), undefined);
    assert.equal(names.size(), 2);
  });

  test('a refused text is never named again, and frees its place', () => {
    const names = preparedNames(1);
    names.nameOf('a');
    assert.ok(names.nameOf('a'));
    names.refuse('a');
    assert.equal(names.nameOf('a'), undefined);
    assert.equal(names.nameOf('a'), undefined);
    names.nameOf('b');
    assert.ok(names.nameOf('b'), 'the place went to another text');
  });

  test('only the stale-plan error is one to retry unnamed', () => {
    assert.equal(isStalePrepared(Object.assign(new Error('cached plan must not change result type'), { code: '0A000' })), true);
    assert.equal(isStalePrepared(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })), false);
    assert.equal(isStalePrepared(new Error('cached plan must not change result type')), false);
  });
});

for (const engine of engines) {
  describe(`prepared statements on ${engine.name}`, () => {
    let f: FixtureApp;
    let caller: Caller;
    before(async () => {
      f = await fixtureApp(engine);
      caller = await adminCaller(f.database);
    });
    after(() => f.close());

    test('the service prepares its lookups and pages, nothing else, and answers as without', async () => {
      const asked: Array<{ sql: string; prepare: boolean }> = [];
      const note = (q: CompiledQuery, o?: RunOptions) => asked.push({ sql: q.sql, prepare: o?.prepare === true });
      const recording: Database = {
        ...f.database,
        arrays: (q, o) => (note(q, o), f.database.arrays(q, o)),
        rows: (q, o) => (note(q, o), f.database.rows(q, o)),
      };
      // minRows 0: the fixture's small tenant is read through the column store, as a large one is.
      const service = createReportService({ database: recording, clock: () => NOW * 1000, columnStore: { minRows: 0 }, pageCacheRows: 0 });
      const plain = createReportService({ database: f.database, clock: () => NOW * 1000, columnStore: false, precomputed: false, pageCacheRows: 0 });
      const bodies = [{}, { filters: { city: 'an-?-' } }, { filters: { city: 'zz-^-' } }, { search: 'a' }, { filters: { city: 'o-^-' } }];
      for (const [query, body] of bodies.flatMap((b) => [[{}, b], [{ sort: 'annual_revenue,desc' }, b]] as const)) {
        const call = { caller, reportId: 'GLOBAL_VERTICAL_ACCOUNTS', query, body };
        assert.equal(jsonOf(await service.records(call)), jsonOf(await plain.records(call)), JSON.stringify(call));
      }
      const prepared = asked.filter((a) => a.prepare).map((a) => a.sql);
      const kinds = (sqls: string[]) => new Set(sqls.map((s) => (/from service_state/.test(s) ? 'versions' : /from rpt_value_counts/.test(s) ? 'dictionary' : /from rpt_search_values/.test(s) ? 'search values' : /^select r\.account_name as c0/.test(s) ? 'page' : `other: ${s.slice(0, 80)}`)));
      assert.deepEqual([...kinds(prepared)].sort(), ['dictionary', 'page', 'search values', 'versions']);
      // The pages read by rid (the store's picks) and the sorted ones (SQL's) alike.
      assert.ok(prepared.some((q) => /r\.rid = any\(/.test(q)) && prepared.some((q) => /order by r\.annual_revenue desc/.test(q)));
      // Counts, probes, metadata and the stored figures' loads go through Kysely, unnamed.
    });

    if (engine.name !== 'postgres') return;

    /** A database of one connection, so that pg_prepared_statements shows what it prepared. */
    const oneConnection = () => openDatabase({ databaseUrl: f.database.url, maxConnections: 1, migrate: false });
    const preparedOf = async (d: Database) => d.rows<{ name: string; statement: string; generic_plans: number; custom_plans: number }>(CompiledQuery.raw("select name, statement, generic_plans, custom_plans from pg_prepared_statements where name like 'pr\\_%'"));

    test('a text asked for twice is kept prepared, and planned for its values on every execution', async () => {
      const d = await oneConnection();
      try {
        await d.rows(CompiledQuery.raw('create table prep_lookup (k int primary key, v text)'));
        await d.rows(CompiledQuery.raw("insert into prep_lookup select i, 'v' || i from generate_series(1, 1000) i"));
        const lookup = (k: number) => CompiledQuery.raw('select v from prep_lookup where k = $1', [k]);
        for (let k = 1; k <= 8; k++) assert.deepEqual(await d.rows(lookup(k), { prepare: true }), [{ v: `v${k}` }]);
        for (let k = 1; k <= 3; k++) await d.rows(CompiledQuery.raw('select v from prep_lookup where k = $1 + 0', [k]));
        const kept = await preparedOf(d);
        assert.deepEqual(kept.map((p) => p.statement), ['select v from prep_lookup where k = $1'], 'only the text asked to be prepared, once');
        // Named from the second time on: seven executions. A primary-key lookup would get
        // PostgreSQL's generic plan from the sixth on without plan_cache_mode.
        assert.equal(Number(kept[0]!.custom_plans), 7);
        assert.equal(Number(kept[0]!.generic_plans), 0);
      } finally {
        await d.close();
      }
    });

    test('the versions read every request makes is planned once per connection', async () => {
      const d = await oneConnection();
      try {
        const read = serviceStateReader(d);
        for (let i = 0; i < 8; i++) assert.match((await read()).dataVersion, /^\d+\.[0-9a-f]{8}$/);
        const kept = (await preparedOf(d)).filter((p) => /service_state/.test(p.statement));
        assert.equal(kept.length, 1);
        assert.equal(Number(kept[0]!.custom_plans), 0);
        assert.equal(Number(kept[0]!.generic_plans), 7);
      } finally {
        await d.close();
      }
    });

    /**
     * A one-connection database holding `table` (k int primary key, v text) with the row
     * (1, `value`), and the lookup of that row already kept prepared.
     */
    const withKeptLookup = async (table: string, value: string, body: (d: Database, lookup: CompiledQuery) => Promise<void>) => {
      const d = await oneConnection();
      try {
        await d.rows(CompiledQuery.raw(`create table ${table} (k int primary key, v text)`));
        await d.rows(CompiledQuery.raw(`insert into ${table} values (1, '${value}')`));
        const lookup = CompiledQuery.raw(`select v from ${table} where k = $1`, [1]);
        await d.rows(lookup, { prepare: true });
        assert.deepEqual(await d.rows(lookup, { prepare: true }), [{ v: value }]);
        assert.equal((await preparedOf(d)).length, 1);
        await body(d, lookup);
      } finally {
        await d.close();
      }
    };

    test('a table swapped under a prepared statement (as an import does) answers from the new one', () =>
      withKeptLookup('prep_swap', 'old', async (d, lookup) => {
        for (const s of ['create table prep_swap__next (k int primary key, v text)', "insert into prep_swap__next values (1, 'new')", 'drop table prep_swap', 'alter table prep_swap__next rename to prep_swap']) await d.rows(CompiledQuery.raw(s));
        assert.deepEqual(await d.rows(lookup, { prepare: true }), [{ v: 'new' }]);
      }));

    test('a column retyped under a prepared statement: the statement runs unnamed from then on', () =>
      withKeptLookup('prep_retype', '41', async (d, lookup) => {
        await d.rows(CompiledQuery.raw('alter table prep_retype alter column v type int using v::int + 1'));
        // The kept statement would now fail ("cached plan must not change result type").
        assert.deepEqual(await d.rows(lookup, { prepare: true }), [{ v: 42 }]);
        assert.deepEqual(await d.arrays(lookup, { prepare: true }), [[42]]);
      }));
  });
}
