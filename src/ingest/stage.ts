/**
 * Staging: valid records go into temporary tables inside the import transaction, one per
 * bundle file, with their line numbers. Reference, duplicate and cycle checks then run
 * as SQL over staging plus what the database already holds, so memory stays bounded by
 * one batch whatever the bundle's size, and the checks see exactly what will be loaded.
 */
import { sql, type Kysely } from 'kysely';
import { stagingType, type EntitySpec } from './bundle-spec.js';

export const BATCH_ROWS = 2000;

export function stagingTable(spec: EntitySpec): string {
  return `stg_${spec.name}`;
}

export async function createStagingTable(db: Kysely<any>, spec: EntitySpec): Promise<void> {
  const columns = spec.fields.map((f) => `${f.column} ${stagingType(f.type)}`).join(', ');
  await sql.raw(`drop table if exists ${stagingTable(spec)}`).execute(db);
  await sql.raw(`create temp table ${stagingTable(spec)} (line integer not null, ${columns})`).execute(db);
}

/** Inserts one batch with a single JSON parameter (fast on both engines, no parameter limit). */
export async function insertBatch(db: Kysely<any>, spec: EntitySpec, rows: Array<Record<string, unknown>>): Promise<void> {
  if (!rows.length) return;
  const table = sql.raw(stagingTable(spec));
  await sql`insert into ${table} select * from jsonb_populate_recordset(null::${table}, ${JSON.stringify(rows)}::jsonb)`.execute(db);
}

/** Indexes the natural key so the checks and the upsert join cheaply. */
export async function indexStagingTable(db: Kysely<any>, spec: EntitySpec): Promise<void> {
  const t = stagingTable(spec);
  await sql.raw(`create index ${t}_key on ${t} (${spec.key.join(', ')})`).execute(db);
  await sql.raw(`analyze ${t}`).execute(db);
}

export async function dropStagingTables(db: Kysely<any>, specs: readonly EntitySpec[]): Promise<void> {
  for (const spec of specs) await sql.raw(`drop table if exists ${stagingTable(spec)}`).execute(db);
}
