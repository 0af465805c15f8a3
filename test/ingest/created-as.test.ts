/**
 * The large reports are rebuilt by `create table ... as select` (materialize.ts createAs)
 * over rows numbered first (numberRows), so that PostgreSQL can run their queries in
 * parallel workers. Each table it swaps in must be the one the migrations declare (column
 * order, types, collations, NOT NULL, defaults), and its rows must not depend on whether
 * workers ran the query: workers read the rows the import transaction wrote and has not
 * committed. All but the links report are written in (org_id, rid) order.
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

/** The tables createAs writes, and whether it writes them in (org_id, rid) order. */
const CREATED_AS = [
  ['rpt_global_accounts', true],
  ['rpt_global_opportunities', true],
  ['rpt_attribution_events', true],
  ['rpt_attribution_links', false],
  ['rpt_matched_accounts', true],
] as const;

/** Every row, every column, in key order. */
async function rows(db: Kysely<any>, table: string): Promise<unknown[]> {
  return (await sql`select to_jsonb(l) as row from ${sql.table(table)} l order by org_id, rid`.execute(db)).rows.map((r: any) => r.row);
}

/** Rows whose place on disk (ctid) is out of (org_id, rid) order. */
async function outOfOrder(db: Kysely<any>, table: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from (
      select org_id, rid, lag(org_id) over w as po, lag(rid) over w as pr from ${sql.table(table)} window w as (order by ctid)) x
    where (org_id, rid) < (po, pr)`.execute(db);
  return rows[0]!.n;
}

for (const engine of engines) {
  describe(`reports created as a query (${engine.name})`, () => {
    test('each table swapped in is the one the migrations declare, holds its rows, in rid order where asked', async () => {
      const db = await engine.open();
      try {
        const declared = new Map<string, unknown>();
        for (const [table] of CREATED_AS) {
          const columns = await definition(db.db, table);
          assert.ok(columns.length > 20, `the migrated table ${table}`);
          declared.set(table, columns);
        }
        const result = await importBundle(db, bundle());
        assert.equal(result.ok, true, JSON.stringify(result));
        for (const [table, ordered] of CREATED_AS) {
          assert.deepEqual(await definition(db.db, table), declared.get(table), table);
          const written = await rows(db.db, table);
          assert.ok(written.length >= 3, `the fixture has rows in ${table} (${written.length})`);
          // rid counts 1..n in each organization.
          const { rows: gaps } = await sql<{ n: number }>`select count(*)::int as n from (select org_id, count(*) as c, max(rid) as m, min(rid) as lo from ${sql.table(table)} group by org_id) g where c <> m or lo <> 1`.execute(db.db);
          assert.equal(gaps[0]!.n, 0, `${table}: rids 1..n per organization`);
          if (ordered) assert.equal(await outOfOrder(db.db, table), 0, `${table} on disk in (org_id, rid) order`);
          const keys = (await sql<{ pk: string }>`select pg_get_constraintdef(oid) as pk from pg_constraint where conrelid = ${table}::regclass and contype = 'p'`.execute(db.db)).rows;
          assert.deepEqual(keys.map((k) => k.pk), ['PRIMARY KEY (org_id, rid)'], table);
        }
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
        for (const [table, ordered] of CREATED_AS) {
          const expected = await rows(serial.db, table);
          assert.ok(expected.length >= 3, table);
          assert.deepEqual(await rows(forced.db, table), expected, table);
          if (ordered) assert.equal(await outOfOrder(forced.db, table), 0, `${table} on disk in (org_id, rid) order`);
        }
      } finally {
        await forced.close();
        await serial.dispose();
        await parallel.dispose();
      }
    });
  });
}
