/**
 * The versions in `service_state`, read together in one primary-key query:
 *
 * - the data version: bumped by every import, part of every cache key and ETag, so a
 *   cached answer is never served after the data it was computed from changed;
 * - the credentials version: changed by the commit of any change to api_keys, users or
 *   orgs (migration 0005), so the access layer's cache of resolved callers is never used
 *   after the rows it was read from changed.
 *
 * Both carry the database's id (migration 0020) after a dot (`3.9f2c41d0`): a database
 * created again under a running server starts its counters over, and its versions must
 * not be those the server cached the old database's answers and callers under.
 */
import { CompiledQuery } from 'kysely';
import type { Database } from '../db/database.js';

/**
 * An import committed while an answer was being computed or streamed, and the answer
 * could not be confirmed at one data version: a 503 the client can retry (app.ts
 * toApiError), logged as a warning (it is expected while imports run, not a fault).
 */
export class DataChanged extends Error {}

export interface ServiceState {
  dataVersion: string;
  credentialsVersion: string;
}

export type ServiceStateReader = () => Promise<ServiceState>;

/**
 * The reader of one database. buildApp makes one and hands it to the access stage and
 * the report service, so that under load the versions cost one query per database round
 * trip, not one or two per request.
 *
 * Guarantee: every call resolves to the result of a query that was sent after the call
 * was made. A call that finds no read in flight starts one; a call made while a read is in
 * flight does not join it (that read may have taken its snapshot before the call), but
 * waits for the next one, which starts when the current one settles and serves every call
 * made in the meantime. So whatever committed before the call is seen by it, and there
 * are never more than two reads outstanding.
 */
export function serviceStateReader(database: Pick<Database, 'rows'>): ServiceStateReader {
  // Compiled once: every request runs it, and building and compiling the statement each
  // time was a few per cent of the server's thread under repeated pages. Prepared
  // (db/prepared.ts), and with its keys written into the text: a prepared statement without
  // parameters is planned once per connection even though every connection asks for
  // custom plans (PostgreSQL has no values to plan it for), and its planning took longer
  // than its execution (0.058 against 0.023 ms at scale 1000).
  const query = CompiledQuery.raw(`select key, value from service_state where key in ('data_version', 'credentials_version', 'database_id')`);
  return singleFlight(async () => {
    const rows = await database.rows<{ key: string; value: string }>(query, { prepare: true });
    const state: ServiceState = { dataVersion: '0', credentialsVersion: '0' };
    let id = '';
    for (const row of rows) {
      if (row.key === 'data_version') state.dataVersion = row.value;
      else if (row.key === 'credentials_version') state.credentialsVersion = row.value;
      else id = `.${row.value.slice(0, 8)}`;
    }
    state.dataVersion += id;
    state.credentialsVersion += id;
    return state;
  });
}

/** Single flight whose every result was read after the call asking for it. */
function singleFlight<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const p: Promise<T> = read().finally(() => {
      if (inFlight === p) inFlight = undefined;
    });
    inFlight = p;
    return p;
  };
  const settled = () => undefined;
  return () => {
    if (!inFlight) return start();
    if (!queued) {
      queued = inFlight.then(settled, settled).then(() => {
        queued = undefined;
        return start();
      });
    }
    return queued;
  };
}
