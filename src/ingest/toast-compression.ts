/**
 * The import writes millions of rows of about 2 KB (the report tables' text, custom
 * objects and search text), and a row over PostgreSQL's 2 KB threshold has its widest
 * values compressed before it is stored. With the default method, pglz, that compression
 * took 15-30% of the backend's time in the widest report inserts; lz4 compresses several
 * times faster (and decompresses faster for the queries and downloads that read the
 * values back) at no cost in size (the events report at scale 100: 436 MB against 457).
 * Measured at scale 100, alternating, materialize's backend CPU 113.0 / 102.7 / 98.7 s
 * with pglz against 96.3 / 92.9 / 90.8 s with lz4 (docs/benchmarks.md, thirteenth session).
 *
 * `set local`: the choice lasts for the import transaction and applies to every value it
 * compresses (staging, base tables, report tables). A column with its own method (the CSV
 * line blocks, migration 0012) keeps it. Servers built without lz4 (PGlite among them)
 * list only pglz, and keep it.
 */
import { sql, type Kysely } from 'kysely';

export async function preferLz4Compression(db: Kysely<any>): Promise<boolean> {
  const row = (await sql<{ lz4: boolean }>`select coalesce(bool_or('lz4' = any(enumvals)), false) as lz4 from pg_settings where name = 'default_toast_compression'`.execute(db)).rows[0];
  if (!row?.lz4) return false;
  await sql`set local default_toast_compression = lz4`.execute(db);
  return true;
}
