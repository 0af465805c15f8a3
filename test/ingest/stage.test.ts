/**
 * Staging (stage.ts): a record with a field problem is staged flagged `invalid` so the
 * checks see it, and the loader (load.ts) never loads it, whether or not the import
 * would have rolled back first.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engines, type TestDatabase } from '../helpers/engines.js';
import { ENTITY_BY_NAME } from '../../src/ingest/bundle-spec.js';
import { copyLine, stagingColumns } from '../../src/ingest/copy-format.js';
import { copyInto } from '../../src/ingest/copy-into.js';
import { loadEntity } from '../../src/ingest/load.js';
import { createStagingTable, dropStagingTables, stagedRowsTable } from '../../src/ingest/stage.js';

const VALID = '11111111-1111-4111-8111-111111111111';
const FLAGGED = '22222222-2222-4222-8222-222222222222';

class Rollback extends Error {}

for (const engine of engines) {
  describe(`staging on ${engine.name}`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await engine.open();
    });
    after(() => db.dispose());

    test('a staged row flagged invalid is there for the checks but never loaded', async () => {
      const orgs = ENTITY_BY_NAME.get('orgs')!;
      let staged: unknown[] = [];
      let loaded: unknown[] = [];
      let counts: unknown;
      await db.db
        .transaction()
        .execute(async (trx) => {
          await createStagingTable(trx, orgs);
          // Both rows are complete, so only the flag keeps the second one out.
          const writer = await copyInto(trx, db.engine, stagedRowsTable(orgs), stagingColumns(orgs));
          await writer.write(copyLine(orgs, 1, [VALID, 'Valid']) + copyLine(orgs, 2, [FLAGGED, 'Flagged'], true));
          await writer.end();
          staged = (await sql.raw<{ line: number; invalid: boolean }>(`select line, invalid from ${stagedRowsTable(orgs)} order by line`).execute(trx)).rows;
          counts = await loadEntity(trx, orgs);
          loaded = (await sql<{ id: string }>`select public_id::text as id from orgs order by 1`.execute(trx)).rows.map((r) => r.id);
          await dropStagingTables(trx, [orgs]);
          throw new Rollback();
        })
        .catch((err: unknown) => {
          if (!(err instanceof Rollback)) throw err;
        });
      assert.deepEqual(staged, [{ line: 1, invalid: false }, { line: 2, invalid: true }]);
      assert.deepEqual(counts, { entity: 'orgs', inserted: 1, updated: 0, unchanged: 0 });
      assert.deepEqual(loaded, [VALID]);
    });
  });
}
