/**
 * On PGlite (one backend, no checkpointer, so no checkpoint ever happens on its own) the
 * import checkpoints after each staged file, upsert and report build (release-wal.ts), so
 * PostgreSQL can remove WAL segments beyond max_wal_size while the transaction is open.
 * Without that, a scale-1000 import filled the disk with WAL, and this database would show
 * no checkpoint since it was created.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { engines, type TestDatabase } from '../helpers/engines.js';
import { importBundle } from '../../src/ingest/import-bundle.js';
import { writeSmallBundle } from '../fixtures/small-bundle.js';

const pglite = engines.find((e) => e.name === 'pglite')!;
let db: TestDatabase;
let dir: string;
before(async () => {
  db = await pglite.open();
  dir = mkdtempSync(join(tmpdir(), 'pr-wal-'));
});
after(async () => {
  await db.dispose();
  rmSync(dir, { recursive: true, force: true });
});

test('a PGlite import checkpoints as it goes, inside its transaction', async () => {
  // (A single backend keeps no checkpoint statistics: the control file's last checkpoint is the witness.)
  const state = async () =>
    (await sql<{ lsn: string; checkpoint: string }>`select pg_current_wal_lsn()::text as lsn, (pg_control_checkpoint()).checkpoint_lsn::text as checkpoint`.execute(db.db)).rows[0]!;
  const before = await state();
  const result = await importBundle(db, writeSmallBundle(dir));
  assert.ok(result.ok);
  const afterImport = await state();
  const lsn = (text: string) => BigInt(`0x${text.split('/')[0]}`) * 2n ** 32n + BigInt(`0x${text.split('/')[1]}`);
  assert.ok(lsn(afterImport.checkpoint) > lsn(before.lsn), `a checkpoint after the import began (${before.lsn} -> ${afterImport.checkpoint})`);
});
