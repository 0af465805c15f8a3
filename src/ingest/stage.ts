/**
 * Staging: records go into temporary tables inside the import transaction, one per
 * bundle file, with their line numbers (filled by COPY: copy-into.ts). Reference,
 * duplicate and cycle checks then run as SQL over staging plus what the database
 * already holds, so memory stays bounded whatever the bundle's size, and the checks see
 * exactly what will be loaded.
 *
 * A record with a field problem is staged too, flagged `invalid`, with its valid values
 * (a bad one is NULL): its key and references are checked like any other, so a run
 * reports its duplicate or missing reference along with the field problem instead of
 * only after that is fixed. The loader reads a view without the flagged rows
 * (`stagingTable`), so one can never be loaded, though an import with any problem rolls
 * back before loading anyway.
 */
import { sql, type Kysely } from 'kysely';
import { stagingType, type EntitySpec } from './bundle-spec.js';

/** The staging table of a file: every record parsed from it, valid or flagged `invalid`. The checks read it. */
export function stagedRowsTable(spec: EntitySpec): string {
  return `stg_${spec.name}`;
}

/** What the loader (load.ts) reads: the staged rows without a problem, a view of `stagedRowsTable`. */
export function stagingTable(spec: EntitySpec): string {
  return `stg_${spec.name}_valid`;
}

export async function createStagingTable(db: Kysely<any>, spec: EntitySpec): Promise<void> {
  const columns = spec.fields.map((f) => `${f.column} ${stagingType(f.type)}`).join(', ');
  const table = stagedRowsTable(spec);
  await sql.raw(`drop table if exists ${table} cascade`).execute(db);
  await sql.raw(`create temp table ${table} (line integer not null, invalid boolean not null, ${columns})`).execute(db);
  const names = ['line', ...spec.fields.map((f) => f.column)].join(', ');
  await sql.raw(`create temp view ${stagingTable(spec)} as select ${names} from ${table} where not invalid`).execute(db);
}

/**
 * Statistics for the checks and the upsert. No index: every check is one set-based pass
 * (hash joins) over the staging table, which an index would not speed up but would cost
 * a sort of the whole file to build.
 */
export async function analyzeStagingTable(db: Kysely<any>, spec: EntitySpec): Promise<void> {
  await sql.raw(`analyze ${stagedRowsTable(spec)}`).execute(db);
}

export async function dropStagingTables(db: Kysely<any>, specs: readonly EntitySpec[]): Promise<void> {
  // cascade: the loader's view goes with its table.
  for (const spec of specs) await sql.raw(`drop table if exists ${stagedRowsTable(spec)} cascade`).execute(db);
}
