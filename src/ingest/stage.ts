/**
 * Staging: valid records go into temporary tables inside the import transaction, one per
 * bundle file, with their line numbers (filled by COPY: copy-into.ts). Reference,
 * duplicate and cycle checks then run as SQL over staging plus what the database
 * already holds, so memory stays bounded whatever the bundle's size, and the checks see
 * exactly what will be loaded.
 */
import { sql, type Kysely } from 'kysely';
import { stagingType, type EntitySpec } from './bundle-spec.js';

export function stagingTable(spec: EntitySpec): string {
  return `stg_${spec.name}`;
}

export async function createStagingTable(db: Kysely<any>, spec: EntitySpec): Promise<void> {
  const columns = spec.fields.map((f) => `${f.column} ${stagingType(f.type)}`).join(', ');
  await sql.raw(`drop table if exists ${stagingTable(spec)}`).execute(db);
  await sql.raw(`create temp table ${stagingTable(spec)} (line integer not null, ${columns})`).execute(db);
}

/**
 * Statistics for the checks and the upsert. No index: every check is one set-based pass
 * (hash joins) over the staging table, which an index would not speed up but would cost
 * a sort of the whole file to build.
 */
export async function analyzeStagingTable(db: Kysely<any>, spec: EntitySpec): Promise<void> {
  await sql.raw(`analyze ${stagingTable(spec)}`).execute(db);
}

export async function dropStagingTables(db: Kysely<any>, specs: readonly EntitySpec[]): Promise<void> {
  for (const spec of specs) await sql.raw(`drop table if exists ${stagingTable(spec)}`).execute(db);
}
