/**
 * PGlite runs PostgreSQL as a single backend without a checkpointer, and a single backend
 * never checkpoints when the WAL passes max_wal_size: an import's WAL grew with
 * everything it wrote (13 GB and climbing halfway through a scale-1000 import, beside
 * 23 GB of tables, until the disk was full). A CHECKPOINT, which PostgreSQL allows inside
 * the import's transaction, lets it remove the segments beyond max_wal_size (1 GB), so the
 * WAL stays near that plus what one statement writes. PostgreSQL proper has its
 * checkpointer: nothing to do there.
 */
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../db/database.js';

export async function releaseWal(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine === 'pglite') await sql`checkpoint`.execute(db);
}
