/**
 * Migrations on PostgreSQL are not bound by the statement timeout of the service's
 * requests: an upgrade over a database of large reports may rewrite millions of rows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engines } from '../helpers/engines.js';
import { openDatabase } from '../../src/db/database.js';
import { MIGRATIONS, migrateToLatest } from '../../src/db/migrate.js';

const postgres = engines.find((e) => e.name === 'postgres');

test('a migration longer than the statement timeout completes, and the timeout stays in force afterwards', { skip: postgres ? false : 'DATABASE_URL is not set (PGlite has no statement timeout)' }, async () => {
  const db = await postgres!.open();
  const short = await openDatabase({ databaseUrl: db.url, migrate: false, maxConnections: 1, statementTimeoutMs: 200 });
  try {
    const slow = { up: async (d: any) => void (await sql`select pg_sleep(0.6)`.execute(d)) };
    await migrateToLatest(short.db, { ...MIGRATIONS, '9999-slow': slow });
    const done = await sql<{ name: string }>`select name from kysely_migration where name = '9999-slow'`.execute(short.db);
    assert.equal(done.rows.length, 1);
    // The lift was local to the migrating transaction: the pooled connection still times out.
    await assert.rejects(sql`select pg_sleep(0.6)`.execute(short.db), /statement timeout/);
  } finally {
    await short.close();
    await db.dispose();
  }
});
