/**
 * The links report is rebuilt by `create table ... as select` (materialize.ts createAs), so
 * that PostgreSQL can run its query in parallel workers. The table it swaps in must be
 * the one the migrations declare (column order, types, collations, NOT NULL, defaults),
 * and its rows must not depend on whether workers ran the query: workers read the rows
 * the import transaction wrote and has not committed.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { engines } from '../helpers/engines.js';
import { openDatabase } from '../../src/db/database.js';
import { importBundle } from '../../src/ingest/import-bundle.js';
import { writeSmallBundle } from '../fixtures/small-bundle.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function bundle(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pr-created-as-'));
  dirs.push(dir);
  return writeSmallBundle(dir, {});
}

/** What the catalog says of each column, in order. */
async function definition(db: Kysely<any>, table: string) {
  return (
    await sql`select a.attnum, a.attname, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull, a.attcollation::regcollation::text as collation,
        pg_get_expr(d.adbin, d.adrelid) as default_value, a.attcompression::text as compression
      from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where a.attrelid = ${table}::regclass and a.attnum > 0 and not a.attisdropped order by a.attnum`.execute(db)
  ).rows;
}

/** Every row, every column, in key order. */
async function rows(db: Kysely<any>): Promise<unknown[]> {
  return (await sql`select to_jsonb(l) as row from rpt_attribution_links l order by org_id, rid`.execute(db)).rows.map((r: any) => r.row);
}

for (const engine of engines) {
  describe(`links report created as a query (${engine.name})`, () => {
    test('the table swapped in is the one the migrations declare, and holds the links', async () => {
      const db = await engine.open();
      try {
        const declared = await definition(db.db, 'rpt_attribution_links');
        assert.ok(declared.length > 80, 'the migrated table');
        const result = await importBundle(db, bundle());
        assert.equal(result.ok, true, JSON.stringify(result));
        assert.deepEqual(await definition(db.db, 'rpt_attribution_links'), declared);
        const links = await rows(db.db);
        assert.ok(links.length >= 3, `the fixture has links (${links.length})`);
        const keys = (await sql<{ pk: string }>`select pg_get_constraintdef(oid) as pk from pg_constraint where conrelid = 'rpt_attribution_links'::regclass and contype = 'p'`.execute(db.db)).rows;
        assert.deepEqual(keys.map((k) => k.pk), ['PRIMARY KEY (org_id, rid)']);
        // No scratch table outlives the import.
        const left = (await sql<{ n: number }>`select count(*)::int as n from pg_class where relname like 'tmp\\_%' and relkind = 'r'`.execute(db.db)).rows[0]!.n;
        assert.equal(left, 0);
      } finally {
        await db.dispose();
      }
    });

    if (engine.name !== 'postgres') return;

    test('rows written by parallel workers equal those of a serial plan', async () => {
      const serial = await engine.open();
      const parallel = await engine.open();
      // Every parallel-safe query run by workers (force_parallel_mode), with parallel plans made free.
      const url = new URL(parallel.url!);
      url.searchParams.set('options', '-c force_parallel_mode=on -c parallel_setup_cost=0 -c parallel_tuple_cost=0 -c min_parallel_table_scan_size=0');
      const forced = await openDatabase({ databaseUrl: url.toString(), maxConnections: 2 });
      try {
        const shown = (await sql<{ v: string }>`select current_setting('force_parallel_mode') as v`.execute(forced.db)).rows[0]!.v;
        assert.equal(shown, 'on', 'the connection option took effect');
        const dir = bundle();
        assert.equal((await importBundle(serial, dir)).ok, true);
        assert.equal((await importBundle(forced, dir)).ok, true);
        const expected = await rows(serial.db);
        assert.ok(expected.length >= 3);
        assert.deepEqual(await rows(forced.db), expected);
      } finally {
        await forced.close();
        await serial.dispose();
        await parallel.dispose();
      }
    });
  });
}
