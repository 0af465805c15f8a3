/**
 * `COPY <table> FROM ...` on the import transaction's own connection, for either engine:
 *
 * - PostgreSQL: COPY FROM STDIN through pg-copy-streams, one stream per table; writes
 *   wait while the socket is full, so memory stays bounded and Node keeps parsing while
 *   the server ingests.
 * - PGlite: COPY FROM '/dev/blob' with the query's `blob` option, one statement per
 *   `PGLITE_BLOB_BYTES` of text, so no more than that is held at a time.
 *
 * Kysely has no COPY API, so both reach below it on the transaction's connection (see
 * `rawConnection`): a COPY elsewhere would not see the temp tables and would not be
 * part of the all-or-nothing transaction.
 */
import { once } from 'node:events';
import { CompiledQuery, type Kysely } from 'kysely';
import type { PGlite } from '@electric-sql/pglite';
import { from as copyFrom } from 'pg-copy-streams';
import type { Engine } from '../db/database.js';

export interface CopyWriter {
  /** Adds COPY text (whole lines); resolves when it may be called again. */
  write(text: string): Promise<void>;
  /** Finishes the COPY; rejects with the server's error if it failed. */
  end(): Promise<void>;
  /** Cancels the COPY (the transaction is failing anyway); never rejects. */
  abort(): Promise<void>;
}

/** PGlite text held per COPY statement. */
const PGLITE_BLOB_BYTES = 8 * 1024 * 1024;

export async function copyInto(db: Kysely<any>, engine: Engine, table: string, columns: readonly string[]): Promise<CopyWriter> {
  const target = `${table} (${columns.join(', ')})`;
  return engine === 'postgres' ? copyIntoPostgres(db, target) : copyIntoPglite(await pgliteClient(db), target);
}

async function copyIntoPostgres(db: Kysely<any>, target: string): Promise<CopyWriter> {
  const stream = copyFrom(`copy ${target} from stdin`);
  let failure: Error | undefined;
  stream.on('error', (err) => (failure ??= err));
  // pg's client.query() accepts a "submittable" (what pg-copy-streams builds) in place of
  // SQL text; Kysely hands its `sql` to client.query() unchanged, so this queues the COPY
  // on the transaction's connection. The stream, not the query result, carries the outcome.
  await db.executeQuery({ ...CompiledQuery.raw(''), sql: stream as unknown as string });
  return {
    async write(text) {
      if (failure) throw failure;
      if (!stream.write(text)) await once(stream, 'drain');
    },
    async end() {
      if (failure) throw failure;
      stream.end();
      await once(stream, 'finish');
    },
    async abort() {
      if (stream.destroyed || stream.writableFinished) return;
      // Destroying the stream sends CopyFail: the server ends the COPY with an error and the connection is free again.
      stream.destroy(new Error('import aborted'));
      await once(stream, 'close').catch(() => undefined);
    },
  };
}

function copyIntoPglite(client: PGlite, target: string): CopyWriter {
  let parts: string[] = [];
  let size = 0;
  const flush = async () => {
    if (!parts.length) return;
    const blob = new Blob(parts);
    parts = [];
    size = 0;
    await client.query(`copy ${target} from '/dev/blob'`, [], { blob });
  };
  return {
    async write(text) {
      parts.push(text);
      size += text.length;
      if (size >= PGLITE_BLOB_BYTES) await flush();
    },
    end: flush,
    async abort() {
      parts = [];
    },
  };
}

/**
 * The PGlite instance under the transaction: kysely-pglite-dialect's connection keeps it
 * as its public `client` (the embedded database has one session, so it is the
 * transaction's session too).
 */
async function pgliteClient(db: Kysely<any>): Promise<PGlite> {
  const client = await db.getExecutor().provideConnection(async (conn) => (conn as unknown as { client?: PGlite }).client);
  if (!client || typeof client.query !== 'function') throw new Error('COPY into PGlite: the Kysely connection does not expose its PGlite client');
  return client;
}
