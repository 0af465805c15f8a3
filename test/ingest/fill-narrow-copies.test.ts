/**
 * Migration 0010 fills the narrow copies of a database imported before they existed with
 * exactly what the import writes, and leaves copies that already hold rows alone.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { up } from '../../src/db/migrations/0010-fill-narrow-copies.js';

const COPIES = ['rpt_attribution_facts', 'rpt_event_facts', 'rpt_account_facts'] as const;

for (const engine of engines) {
  describe(`migration 0010 on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine);
    });
    after(() => f.close());

    const rows = async (table: string) => (await sql.raw(`select * from ${table} order by org_id, rid`).execute(f.database.db)).rows;

    test('empty copies get the rows the import wrote; full ones are left as they are', async () => {
      const db = f.database.db;
      const imported = new Map<string, unknown[]>();
      for (const t of COPIES) {
        imported.set(t, await rows(t));
        assert.ok(imported.get(t)!.length > 0, `${t} has rows after the import`);
      }
      // As before the copies existed: report rows, no copy rows.
      for (const t of COPIES) await sql.raw(`delete from ${t}`).execute(db);
      await up(db as never);
      for (const t of COPIES) assert.deepEqual(await rows(t), imported.get(t), t);
      await up(db as never);
      for (const t of COPIES) assert.equal((await rows(t)).length, imported.get(t)!.length, `${t}: a second run adds nothing`);
    });
  });
}
