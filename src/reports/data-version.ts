/**
 * The data version: bumped by every import, part of every cache key and ETag, so a
 * cached answer is never served after the data it was computed from changed.
 */
import type { Kysely } from 'kysely';
import type { Schema } from '../db/schema.js';

export type DataVersionReader = () => Promise<string>;

/**
 * One primary-key read per round trip. Concurrent requests share one read in flight
 * (single flight): under load the version costs one query per round trip instead of one
 * or two per request. A request may so see the version read up to one round trip before
 * it arrived, never an older one.
 */
export function dataVersionReader(db: Kysely<Schema>): DataVersionReader {
  let versionInFlight: Promise<string> | undefined;
  return () => {
    if (versionInFlight) return versionInFlight;
    const read = (async () => {
      try {
        const row = await db.selectFrom('service_state').select('value').where('key', '=', 'data_version').executeTakeFirst();
        return row?.value ?? '0';
      } finally {
        versionInFlight = undefined;
      }
    })();
    versionInFlight = read;
    return read;
  };
}
