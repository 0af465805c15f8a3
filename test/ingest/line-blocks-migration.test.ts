/**
 * Migration 0012 gives a database imported before it the blocks of its stored CSV lines,
 * exactly as the import writes them, and the import keeps the blocks' compression when it
 * rebuilds the table (lz4 on PostgreSQL, which has it; PGlite has pglz only).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { up } from '../../src/db/migrations/0012-csv-line-blocks.js';

for (const engine of engines) {
  describe(`migration 0012 on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine);
    });
    after(() => f.close());

    const blocks = async () => (await sql`select org_id, block::text, lines from rpt_account_line_blocks order by org_id, block`.execute(f.database.db)).rows;
    const compression = async () =>
      (await sql<{ c: string }>`select attcompression::text as c from pg_attribute where attrelid = 'rpt_account_line_blocks'::regclass and attname = 'lines'`.execute(f.database.db)).rows[0]?.c;

    test('the import rebuilds the blocks with the compression the migration chose', async () => {
      assert.equal(await compression(), engine.name === 'postgres' ? 'l' : '', 'lz4 where the server has it, else the default');
    });

    test('over an import made before it, the blocks equal what the import writes', async () => {
      const db = f.database.db;
      const imported = await blocks();
      assert.ok(imported.length >= 2, 'the fixture has blocks');
      // As before migration 0012: lines, no blocks table.
      await sql`drop table rpt_account_line_blocks`.execute(db);
      await db.transaction().execute((trx) => up(trx as never));
      assert.deepEqual(await blocks(), imported);
      assert.equal(await compression(), engine.name === 'postgres' ? 'l' : '');
    });
  });
}
