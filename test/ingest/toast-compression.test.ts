/**
 * The import compresses wide values with lz4 where the server has it (PostgreSQL as built
 * by Debian; PGlite has pglz only), for its own transaction only, and the values read back
 * the same either way.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { engines } from '../helpers/engines.js';
import { importBundle } from '../../src/ingest/import-bundle.js';
import { preferLz4Compression } from '../../src/ingest/toast-compression.js';
import { BUNDLE, writeSmallBundle } from '../fixtures/small-bundle.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Compressible but not trivially so: words in a varying order, about 6 KB. */
const LONG_NOTE = Array.from({ length: 800 }, (_, i) => `${['harbor', 'ledger', 'quartz', 'meadow', 'copper', 'signal'][(i * 7) % 6]}${i % 13}`).join(' ');

function bundleWithLongNote(): string {
  const accounts = (BUNDLE.accounts as Array<Record<string, any>>).map((a) => (a.crmAccountId === 'A1' ? { ...a, custom: { ...a.custom, note: LONG_NOTE } } : a));
  const dir = mkdtempSync(join(tmpdir(), 'pr-toast-'));
  dirs.push(dir);
  // A defined string field: report rows (and their search text) hold defined custom fields only.
  const custom_fields = [...BUNDLE.custom_fields!, { org: (BUNDLE.accounts![0] as { org: string }).org, entity: 'account', key: 'note', title: 'Note', type: 'string', classification: 'CUSTOM_CRM_FIELD' }];
  return writeSmallBundle(dir, { accounts, custom_fields });
}

for (const engine of engines) {
  const lz4 = engine.name === 'postgres';
  describe(`toast compression (${engine.name})`, () => {
    test(`the import transaction prefers ${lz4 ? 'lz4' : 'pglz, the only method there'}, and the setting ends with it`, async () => {
      const db = await engine.open();
      try {
        // One connection throughout, so that the last read is the session the transaction ran on.
        await db.db.connection().execute(async (conn) => {
          const setting = async () => (await sql<{ v: string }>`select current_setting('default_toast_compression') as v`.execute(conn)).rows[0]!.v;
          await sql`begin`.execute(conn);
          assert.equal(await preferLz4Compression(conn), lz4);
          assert.equal(await setting(), lz4 ? 'lz4' : 'pglz');
          await sql`commit`.execute(conn);
          assert.equal(await setting(), 'pglz', 'set local: the session keeps the server default');
        });
      } finally {
        await db.dispose();
      }
    });

    test('a wide value written by the import is compressed with that method and reads back whole', async () => {
      const db = await engine.open();
      try {
        const result = await importBundle(db, bundleWithLongNote());
        assert.equal(result.ok, true, JSON.stringify(result));
        const rows = (
          await sql<{ base: string | null; report: string | null; note: string; search: boolean }>`
            select pg_column_compression(a.custom) as base,
              (select pg_column_compression(r.search_text) from rpt_global_accounts r where r.org_id = a.org_id and r.crm_account_id = a.crm_account_id limit 1) as report,
              a.custom->>'note' as note,
              (select bool_and(strpos(r.search_text, ${LONG_NOTE.slice(-200)}) > 0) from rpt_global_accounts r where r.org_id = a.org_id and r.crm_account_id = a.crm_account_id) as search
            from accounts a where a.crm_account_id = 'A1'`.execute(db.db)
        ).rows;
        assert.equal(rows.length, 1);
        const method = lz4 ? 'lz4' : 'pglz';
        assert.equal(rows[0]!.base, method, 'the account row stored by the upsert');
        assert.equal(rows[0]!.report, method, "the report row's search text");
        assert.equal(rows[0]!.note, LONG_NOTE);
        assert.equal(rows[0]!.search, true, 'the search text holds the note');
      } finally {
        await db.dispose();
      }
    });
  });
}
