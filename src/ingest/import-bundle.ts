/**
 * `import`: validate a whole dataset bundle, then load it, all in one transaction.
 *
 *   0. list the folder: a bundle file that cannot be read, or a bundle file's name in
 *      another format or case, is a problem reported before any record is read; other
 *      files are ignored and returned in `ignored` (bundleFiles);
 *   1. parse every file (NDJSON or CSV) in dependency order, validating each record and
 *      encoding it as COPY text, flagged when it has a problem (parse-file.ts; in a
 *      worker thread for large bundles: parse-bundle.ts), and COPY them into temp
 *      staging tables (copy-into.ts);
 *   2. check references, duplicate natural keys and parent cycles in SQL over staging
 *      plus the existing rows, each check one set-based pass (check-references.ts), and
 *      stored custom values against the definitions the bundle adds or retypes
 *      (check-stored-custom.ts); the flagged records are checked too, so each run
 *      reports all the problems at once;
 *   3. any problem: roll back and report them all as `file:line: field: problem`;
 *      otherwise upsert every file (load.ts), rebuild the report tables
 *      (materialize.ts) and bump the data version, then commit. When no record was
 *      inserted or updated and the report tables were built by the current rules
 *      (REPORTS_FORMAT), neither happens: re-importing the same bundle changes nothing
 *      (contract section 7), not even the data version, so every cached answer and ETag
 *      stays valid, and it costs the checks, not a rebuild.
 *
 * `onStep` reports each step's duration (the CLI prints them per phase).
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { ENTITIES, ENTITY_BY_NAME, type EntitySpec } from './bundle-spec.js';
import { checkDuplicates, checkParentCycles, checkReferences, type LineProblem } from './check-references.js';
import { checkStoredCustomValues } from './check-stored-custom.js';
import { checkStoredSubtypes } from './check-stored-subtypes.js';
import { loadEntity, withoutForeignKeyTriggers, type EntityCount } from './load.js';
import { ANALYZED_IN_IMPORT, materialize, REPORT_TABLES, reportsAreCurrent, setImportMemory } from './materialize.js';
import { copyInto, type CopyWriter } from './copy-into.js';
import { stagingColumns } from './copy-format.js';
import { parseBundle } from './parse-bundle.js';
import { cannotRead } from './read-records.js';
import { releaseWal } from './release-wal.js';
import { preferLz4Compression } from './toast-compression.js';
import { analyzeStagingTable, createStagingTable, dropStagingTables, stagedRowsTable } from './stage.js';
import type { CustomType } from './validate-record.js';

export type { EntityCount } from './load.js';

export interface ImportProblem {
  file: string;
  line: number;
  field: string;
  problem: string;
}

/**
 * `rebuilt`: whether the report tables were rebuilt and the data version bumped (false:
 * nothing changed). `ignored`: files of the folder that are no bundle file and not named
 * like one (README.md), for the caller to list. `warnings`: maintenance after the commit
 * that failed (a VACUUM or ANALYZE of one table); the import stands and every answer is
 * right, so they are not problems, but an operator should hear of them.
 */
export type ImportResult = { ok: true; counts: EntityCount[]; dataVersion: number; rebuilt: boolean; ignored: string[]; warnings: string[] } | { ok: false; problems: ImportProblem[]; ignored: string[] };

export interface ImportProgress {
  file: string;
  lines: number;
  bytes: number;
  totalBytes: number;
}

export interface ImportOptions {
  onProgress?: (p: ImportProgress) => void;
  /** Called when validation is over and loading starts. */
  onPhase?: (phase: 'loading' | 'materializing') => void;
  /** Called after each step (staging a file, a check, an upsert, materializing) with its duration. */
  onStep?: (step: string, ms: number) => void;
  /** Parse in a worker thread (default: for bundles of WORKER_MIN_BYTES or more). */
  parseInWorker?: boolean;
}

/** Below this, starting the parsing worker costs more than overlapping saves. */
const WORKER_MIN_BYTES = 8 * 1024 * 1024;

export function formatProblem(p: ImportProblem): string {
  return `${p.file}:${p.line}: ${p.field}: ${p.problem}`;
}

class Rollback extends Error {}

interface BundleFile {
  spec: EntitySpec;
  file: string;
  path: string;
  csv: boolean;
  bytes: number;
}

/** The names a file of `spec` may have: `accounts.ndjson or accounts.csv`. */
function fileNames(spec: EntitySpec): string {
  return spec.csv ? `${spec.name}.ndjson or ${spec.name}.csv` : `${spec.name}.ndjson`;
}

/**
 * Why a bundle file cannot be read, checked before anything is read: a directory, a
 * dangling symlink, a file without read permission. Opening a directory succeeds on
 * Linux; reading it is what fails, so it is read. Any other kind (a FIFO, a socket) is
 * refused without opening it, which could wait forever.
 */
function unreadable(path: string): string | undefined {
  try {
    const stat = statSync(path);
    if (stat.isFile()) {
      closeSync(openSync(path, 'r'));
      return undefined;
    }
    if (!stat.isDirectory()) return 'cannot be read (not a regular file)';
    const fd = openSync(path, 'r');
    try {
      readSync(fd, Buffer.alloc(1));
    } finally {
      closeSync(fd);
    }
    return 'cannot be read (a directory)';
  } catch (err) {
    return cannotRead(err);
  }
}

/**
 * Which files the bundle has, from the folder's listing. A bundle file's name in another
 * format or case (`users.csv`, `accounts.json`, `Orgs.ndjson`) is a problem, not skipped:
 * the records it holds would silently not be imported. Both the NDJSON and the CSV form
 * of one entity is a problem. Any other name (README.md, .DS_Store) is `ignored`, listed
 * for the caller to show.
 */
function bundleFiles(dir: string, problems: ImportProblem[], ignored: string[]): BundleFile[] {
  const forms = new Map<string, { spec: EntitySpec; csv: boolean }>();
  for (const spec of ENTITIES) {
    forms.set(`${spec.name}.ndjson`, { spec, csv: false });
    if (spec.csv) forms.set(`${spec.name}.csv`, { spec, csv: true });
  }
  const found = new Map<EntitySpec, BundleFile[]>();
  const problem = (file: string, text: string) => problems.push({ file, line: 0, field: '-', problem: text });
  const names = readdirSync(dir).sort();
  for (const name of names) {
    const form = forms.get(name);
    if (form) {
      const path = join(dir, name);
      const reason = unreadable(path);
      if (reason) problem(name, reason);
      else found.set(form.spec, [...(found.get(form.spec) ?? []), { spec: form.spec, file: name, path, csv: form.csv, bytes: statSync(path).size }]);
      continue;
    }
    const dot = name.lastIndexOf('.');
    const spec = ENTITY_BY_NAME.get((dot < 0 ? name : name.slice(0, dot)).toLowerCase());
    if (spec) problem(name, `not a bundle file: ${spec.name} is read from ${fileNames(spec)}`);
    else ignored.push(name);
  }
  const files: BundleFile[] = [];
  for (const spec of ENTITIES) {
    const both = spec.csv && names.includes(`${spec.name}.ndjson`) && names.includes(`${spec.name}.csv`);
    if (both) problem(`${spec.name}.csv`, `${spec.name}.ndjson is present too: give one form of each file`);
    else files.push(...(found.get(spec) ?? []));
  }
  if (!files.some((f) => f.spec.name === 'orgs') && !problems.length) problem('orgs.ndjson', 'missing: every bundle has an orgs.ndjson');
  return files;
}

async function existingCustomTypes(db: Kysely<any>): Promise<Map<string, Map<string, CustomType>>> {
  const rows = await sql<{ org: string; entity: string; key: string; type: CustomType }>`
    select o.public_id::text as org, c.entity, c.key, c.type from custom_fields c join orgs o on o.id = c.org_id`.execute(db);
  const out = new Map<string, Map<string, CustomType>>();
  for (const r of rows.rows) {
    const k = `${r.org}|${r.entity}`;
    if (!out.has(k)) out.set(k, new Map());
    out.get(k)!.set(r.key, r.type);
  }
  return out;
}

const KEY_LABELS: Record<string, string> = {
  orgs: 'publicId', event_types: 'code', users: 'org, email', partnerships: 'org, partner', custom_fields: 'org, entity, key',
  accounts: 'org, crmAccountId', opportunities: 'org, crmOpportunityId', account_matches: 'org, crmAccountId, partner, partnerCrmAccountId', events: 'org, eventId',
};

export async function importBundle(database: Database, dir: string, options: ImportOptions = {}): Promise<ImportResult> {
  const problems: ImportProblem[] = [];
  const ignored: string[] = [];
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return { ok: false, problems: [{ file: dir, line: 0, field: '-', problem: existsSync(dir) ? 'not a directory' : 'does not exist' }], ignored };
  // Problems of the files themselves stop the import before any record is read: with a
  // file left unread, every reference into it would be reported as missing too.
  const files = bundleFiles(dir, problems, ignored);
  if (problems.length) return { ok: false, problems: sortProblems(problems), ignored };
  const fileOf = new Map(files.map((f) => [f.spec.name, f.file]));
  const totalBytes = files.reduce((n, f) => n + f.bytes, 0);
  let doneBytes = 0;

  const timed = async <T>(step: string, fn: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await fn();
    options.onStep?.(step, performance.now() - started);
    return result;
  };

  let counts: EntityCount[] = [];
  let dataVersion = 0;
  let rebuilt = true;
  let materializeWarnings: string[] = [];
  try {
    await database.db.transaction().execute(async (trx) => {
      // The service's statement timeout guards API queries; one statement of a large
      // import (an upsert of millions of rows, a report-table rebuild) may rightly take longer.
      await sql`set local statement_timeout = 0`.execute(trx);
      await preferLz4Compression(trx);
      // PostgreSQL only: PGlite's heap never shrinks, and its staging and checks were
      // measured (peak RSS) at the default; its materialize sets the memory itself.
      if (database.engine === 'postgres') await setImportMemory(trx, database.engine);
      const customTypes = await existingCustomTypes(trx);
      for (const spec of ENTITIES) await createStagingTable(trx, spec);

      // Files arrive in order, each as a run of chunks; each file gets one COPY into its staging table.
      const inWorker = options.parseInWorker ?? totalBytes >= WORKER_MIN_BYTES;
      const sources = files.map((f) => ({ entity: f.spec.name, path: f.path, csv: f.csv }));
      let current: { index: number; writer: CopyWriter; started: number } | undefined;
      let lastLines = 0;
      const finishFile = async () => {
        if (!current) return;
        const file = files[current.index]!;
        await current.writer.end();
        await analyzeStagingTable(trx, file.spec);
        await releaseWal(trx, database.engine);
        options.onStep?.(`stage ${file.spec.name}`, performance.now() - current.started);
        doneBytes += file.bytes;
        options.onProgress?.({ file: file.file, lines: lastLines, bytes: doneBytes, totalBytes });
        current = undefined;
      };
      try {
        for await (const { file: index, chunk } of parseBundle(sources, customTypes, inWorker)) {
          const file = files[index]!;
          if (current?.index !== index) {
            await finishFile();
            current = { index, writer: await copyInto(trx, database.engine, stagedRowsTable(file.spec), stagingColumns(file.spec)), started: performance.now() };
          }
          for (const p of chunk.problems) problems.push({ file: file.file, ...p });
          if (chunk.text) await current.writer.write(chunk.text);
          lastLines = chunk.lines;
          options.onProgress?.({ file: file.file, lines: chunk.lines, bytes: doneBytes + Math.min(chunk.bytes, file.bytes), totalBytes });
        }
        await finishFile();
      } catch (err) {
        // A COPY left open would hold the connection, and the rollback would wait behind it forever.
        await current?.writer.abort();
        throw err;
      }

      const present = new Set(files.map((f) => f.spec.name));
      const lineProblems: LineProblem[] = [];
      await timed('check duplicates', async () => {
        for (const file of files) lineProblems.push(...(await checkDuplicates(trx, file.spec, KEY_LABELS[file.spec.name]!)));
      });
      lineProblems.push(...(await timed('check references', () => checkReferences(trx, present))));
      if (present.has('accounts')) lineProblems.push(...(await timed('check parent cycles', () => checkParentCycles(trx))));
      if (present.has('custom_fields')) lineProblems.push(...(await timed('check stored custom values', () => checkStoredCustomValues(trx))));
      if (present.has('event_types')) lineProblems.push(...(await timed('check stored subtypes', () => checkStoredSubtypes(trx, present))));
      for (const p of lineProblems) problems.push({ file: fileOf.get(p.entity)!, line: p.line, field: p.field, problem: p.problem });
      if (problems.length) throw new Rollback();

      options.onPhase?.('loading');
      counts = [];
      await withoutForeignKeyTriggers(trx, async () => {
        for (const file of files) {
          counts.push(await timed(`upsert ${file.spec.name}`, () => loadEntity(trx, file.spec)));
          await releaseWal(trx, database.engine);
        }
      });
      await dropStagingTables(trx, ENTITIES);
      rebuilt = counts.some((c) => c.inserted + c.updated > 0) || !(await reportsAreCurrent(trx));
      if (!rebuilt) {
        const version = await sql<{ value: string }>`select value from service_state where key = 'data_version'`.execute(trx);
        dataVersion = Number(version.rows[0]?.value ?? 0);
        return;
      }
      options.onPhase?.('materializing');
      materializeWarnings = await timed('materialize', () => materialize(trx, database.engine));
      const version = await sql<{ value: string }>`update service_state set value = (value::bigint + 1)::text where key = 'data_version' returning value`.execute(trx);
      dataVersion = Number(version.rows[0]?.value ?? 0);
    });
  } catch (err) {
    if (err instanceof Rollback) return { ok: false, problems: sortProblems(problems), ignored };
    throw err;
  }
  // Outside the transaction (VACUUM cannot run in one), after the commit that made the data
  // whole: neither step changes what any query returns, so a failure of either leaves a
  // correct import, only slower to read until autovacuum (where it runs) catches up. A
  // failure is therefore a warning for the caller to show, not a failed import, and one
  // table's failure does not keep the others from their turn.
  const warnings: string[] = [...materializeWarnings];
  if (rebuilt) {
    await timed('vacuum', () => vacuumReportTables(database, warnings));
    // Fresh statistics for the planner after a bulk change (ANALYZE is cheap and not transactional state).
    await timed('analyze', () => analyzeAfterImport(database, warnings));
  }
  return { ok: true, counts, dataVersion, rebuilt, ignored, warnings };
}

/** In the order of the bundle's files (a misnamed file beside the one it is named like), then by line. */
function sortProblems(problems: ImportProblem[]): ImportProblem[] {
  const order = new Map(ENTITIES.map((e, i) => [e.name, i]));
  const rank = (p: ImportProblem) => order.get(p.file.replace(/\.[^.]*$/, '').toLowerCase()) ?? 99;
  return problems.sort((a, b) => rank(a) - rank(b) || a.line - b.line);
}

/**
 * VACUUM of the report tables the import rebuilt. Their rows were just written, so every
 * page lacks its hint bits and its all-visible bit: the first query to read a page after
 * an import wrote it back (a scan of a report table wrote gigabytes at scale 1000), and an
 * index-only scan fetched every row from the table because nothing is marked all-visible
 * until a vacuum. The PostgreSQL of this project's machines runs with autovacuum off, and
 * where it is on it comes some time later. At 2,000,000 rows a filtered CSV download whose
 * batches probe the narrow copy by primary key took 4.6-5.0 s before and 1.1-1.9 s after
 * (docs/benchmarks.md, eighth session).
 */
async function vacuumReportTables(database: Database, warnings: string[]): Promise<void> {
  await eachTable(database, REPORT_TABLES, 'vacuum', warnings);
}

/**
 * ANALYZE of every table of the schema but those the import transaction analyzed after
 * its last write to them (their statistics were committed with it). Catalogs are left to
 * autovacuum (a whole-database `analyze` did them too, for nothing the service reads).
 */
async function analyzeAfterImport(database: Database, warnings: string[]): Promise<void> {
  let listed: { name: string }[];
  try {
    listed = (
      await sql<{ name: string }>`select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = current_schema() and c.relkind in ('r', 'p') order by c.relpages desc, c.relname`.execute(database.db)
    ).rows;
  } catch (err) {
    warnings.push(`analyze after the import did not run: ${reason(err)}; the import is complete and its answers are right, but the planner keeps older statistics until the tables are analyzed`);
    return;
  }
  await eachTable(database, listed.map((r) => r.name).filter((name) => !ANALYZED_IN_IMPORT.has(name)), 'analyze', warnings);
}

/**
 * `command` on each table, in order, over two connections on PostgreSQL: a VACUUM or
 * ANALYZE of one table runs on one core, so two side by side take about half the time.
 * Each lane holds its connection and lifts the statement timeout on it for the while (the
 * import transaction does the same with `set local`, which VACUUM's lack of a transaction
 * rules out): the pool's timeout is a request's (30 s by default), and at 2,000,000 rows a
 * report table's VACUUM can take longer; cut off there, it left the table unvacuumed.
 */
async function eachTable(database: Database, tables: readonly string[], command: 'vacuum' | 'analyze', warnings: string[]): Promise<void> {
  const lanes = database.engine === 'postgres' ? 2 : 1;
  const after = command === 'vacuum' ? 'reads of it are slower until it is vacuumed' : 'the planner keeps older statistics for it until it is analyzed';
  let next = 0;
  const lane = async (connection: Kysely<any>) => {
    while (next < tables.length) {
      const table = tables[next++]!;
      try {
        await sql.raw(`${command} ${quoteIdent(table)}`).execute(connection);
      } catch (err) {
        warnings.push(`${command} of ${table} after the import failed: ${reason(err)}; the import is complete and its answers are right, but ${after}`);
      }
    }
  };
  await Promise.all(
    Array.from({ length: lanes }, () =>
      database.db
        .connection()
        .execute(async (connection) => {
          await sql`set statement_timeout = 0`.execute(connection);
          try {
            await lane(connection);
          } finally {
            // The connection goes back to the pool, whose statements keep their timeout.
            await sql`reset statement_timeout`.execute(connection);
          }
        })
        .catch((err) => void warnings.push(`${command} after the import stopped: ${reason(err)}; the import is complete and its answers are right, but tables not named above may still need a ${command}`)),
    ),
  );
}

/** The database's own message (one line), which names the cause: a lock timeout, a full disk, a lost connection. */
const reason = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0]!;

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
