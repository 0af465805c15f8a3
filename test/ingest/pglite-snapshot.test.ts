/**
 * The test databases' shortcut (test/helpers/pglite-snapshot.ts) is only a shortcut: a
 * database loaded from the dump has the schema a new, migrated cluster has, column for
 * column and index for index, and the same migrations on record.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { openDatabase } from '../../src/db/database.js';
import { openPgliteFromSnapshot } from '../helpers/pglite-snapshot.js';

async function schemaOf(db: Kysely<any>) {
  const columns = await sql`select table_name, column_name, data_type, is_nullable, column_default, ordinal_position
    from information_schema.columns where table_schema = 'public' order by table_name, ordinal_position`.execute(db);
  const indexes = await sql`select tablename, indexname, indexdef from pg_indexes where schemaname = 'public' order by tablename, indexname`.execute(db);
  const functions = await sql`select p.proname, pg_get_functiondef(p.oid) as def from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public' and p.prokind = 'f' order by 1, 2`.execute(db);
  const extensions = await sql`select extname from pg_extension order by 1`.execute(db);
  const migrations = await sql`select name from kysely_migration order by name`.execute(db);
  return { columns: columns.rows, indexes: indexes.rows, functions: functions.rows, extensions: extensions.rows, migrations: migrations.rows };
}

test('a PGlite database loaded from the dump has the schema of a new migrated one', async () => {
  // Twice through the helper: the first may make the dump, the second surely loads it.
  const first = await openPgliteFromSnapshot();
  await first.close();
  const loaded = await openPgliteFromSnapshot();
  const fresh = await openDatabase({});
  try {
    const expected = await schemaOf(fresh.db);
    assert.ok(expected.columns.length > 100 && expected.migrations.length >= 15, 'the fresh database is migrated');
    assert.deepEqual(await schemaOf(loaded.db), expected);
    // A loaded database is a separate one: writes to it stay in it.
    await sql`insert into orgs (public_id, name) values ('00000000-0000-4000-8000-000000000001', 'only here')`.execute(loaded.db);
    const again = await openPgliteFromSnapshot();
    try {
      assert.equal(Number((await sql<{ n: number }>`select count(*)::int as n from orgs`.execute(again.db)).rows[0]!.n), 0);
    } finally {
      await again.close();
    }
  } finally {
    await loaded.close();
    await fresh.close();
  }
});
