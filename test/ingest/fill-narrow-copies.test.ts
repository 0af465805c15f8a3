/**
 * Migrations 0010 and 0011 bring the narrow copies of a database imported by older code
 * to exactly what the import writes now: 0010 fills copies that do not exist yet (and
 * leaves copies that already hold rows alone), 0011 the account name it adds.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { up } from '../../src/db/migrations/0010-fill-narrow-copies.js';
import { up as upAccountName } from '../../src/db/migrations/0011-account-facts-name.js';

const COPIES = ['rpt_attribution_facts', 'rpt_event_facts', 'rpt_account_facts'] as const;

for (const engine of engines) {
  describe(`migrations 0010 and 0011 on ${engine.name}`, () => {
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
      // The migrations in their order: 0010 fills the copies as 0008 defined them, 0011 adds the names.
      await up(db as never);
      await upAccountName(db as never);
      for (const t of COPIES) assert.deepEqual(await rows(t), imported.get(t), t);
      await up(db as never);
      for (const t of COPIES) assert.equal((await rows(t)).length, imported.get(t)!.length, `${t}: a second run adds nothing`);
    });

    test('0011 gives the accounts copy the names of its report rows', async () => {
      const db = f.database.db;
      const imported = await rows('rpt_account_facts');
      assert.ok(imported.some((r) => (r as { account_name: string | null }).account_name !== null));
      // As before migration 0011: the column holds nothing yet.
      await sql`update rpt_account_facts set account_name = null`.execute(db);
      await upAccountName(db as never);
      assert.deepEqual(await rows('rpt_account_facts'), imported);
    });
  });
}
