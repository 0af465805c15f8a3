/**
 * Storage: one Kysely instance over either embedded PGlite (default, zero set-up) or a
 * PostgreSQL server (`DATABASE_URL`). Both speak the PostgreSQL dialect, so migrations
 * and every query are the same text on both engines.
 */
import { mkdirSync } from 'node:fs';
import { Kysely, PostgresDialect, sql, type CompiledQuery } from 'kysely';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import type { Schema } from './schema.js';
import { migrateToLatest } from './migrate.js';
import { isStalePrepared, preparedNames } from './prepared.js';

export type Engine = 'pglite' | 'postgres';

export interface Database {
  readonly db: Kysely<Schema>;
  readonly engine: Engine;
  /**
   * Runs a compiled statement and returns its rows as arrays, in select-list order, with
   * the same type parsers as `db`. Report pages use it (render/rows.ts): a page of 2,000
   * rows of 65 columns is 130,000 values, and building a keyed object for each row only to
   * read it back by key cost more CPU than writing the page's JSON. Kysely's drivers
   * return objects only, so this goes to the client underneath.
   */
  arrays(query: CompiledQuery, options?: RunOptions): Promise<unknown[][]>;
  /** Runs a compiled statement and returns its rows as objects (what Kysely's `executeQuery` returns). */
  rows<T>(query: CompiledQuery, options?: RunOptions): Promise<T[]>;
  /**
   * Resolves when the database answers and holds the service's schema (a read of
   * `service_state`: a database created again empty under a running server answers, but
   * every request would fail on its missing tables); rejects otherwise, with the
   * database's error (SQLSTATE 42P01 for the missing schema).
   */
  ping(): Promise<void>;
  /** PGlite only: the whole data directory as a tarball, for `loadDataDir` of another. */
  dump?(): Promise<Blob>;
  close(): Promise<void>;
}

export interface RunOptions {
  /**
   * Keep the statement prepared on each PostgreSQL connection it runs on (prepared.ts):
   * parsed once, still planned for its values every time. For the statements every
   * first-seen page runs; PGlite runs it as any other statement.
   */
  prepare?: boolean;
}

export interface DatabaseOptions {
  /** PostgreSQL URL; absent means embedded PGlite. */
  databaseUrl?: string | undefined;
  /** PGlite data directory; absent (or `memory://`) means an in-memory database. */
  dataDir?: string | undefined;
  statementTimeoutMs?: number;
  /** Pool size for PostgreSQL. */
  maxConnections?: number;
  /** Run migrations on open (default true). */
  migrate?: boolean;
  /**
   * PGlite only: start from this dumped data directory (`Database.dump`) instead of a new
   * cluster. The tests open every in-memory database from one migrated dump: PGlite's
   * initdb alone took 3.5-5 s of each open, a load 1.6 s.
   */
  loadDataDir?: Blob | undefined;
}

// Counts and epoch-second dates are bigint in SQL; every one of them fits in a JS number.
const parseBigint = (v: string): number => Number(v);
const parseNumeric = (v: string): number => Number(v);

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const database = options.databaseUrl ? openPostgres(options) : await openPglite(options);
  if (options.migrate !== false) {
    try {
      await migrateToLatest(database.db);
    } catch (err) {
      await database.close();
      throw err;
    }
  }
  return database;
}

function openPostgres(options: DatabaseOptions): Database {
  const pool = new pg.Pool({
    connectionString: options.databaseUrl,
    max: options.maxConnections ?? 10,
    // Without an error listener an idle client's socket error would crash the process.
    // jit=off: report statements select dozens of wide columns, so their estimates pass
    // jit_above_cost and each spent 0.1-1.3 s compiling for tens of ms of execution.
    // extra_float_digits=1 (the server's default, pinned against a server configured
    // otherwise): a double's text is its shortest round-trip digits, which the CSV cells and
    // the dashboards' exact sums (query-dashboard.ts) are made from.
    // plan_cache_mode=force_custom_plan: a prepared statement (prepared.ts) is parsed once
    // but planned for its values every time, as an unnamed one is; a generic plan chosen
    // after five cheap filters could walk a large tenant for a rare value.
    options: `-c statement_timeout=${options.statementTimeoutMs ?? 30_000} -c jit=off -c extra_float_digits=1 -c plan_cache_mode=force_custom_plan`,
    types: {
      getTypeParser: ((oid: number, format?: string) => {
        if (oid === 20) return parseBigint;
        if (oid === 1700) return parseNumeric;
        return pg.types.getTypeParser(oid, format as 'text');
      }) as typeof pg.types.getTypeParser,
    },
  });
  pool.on('error', () => {
    /* reported by the next query and by /readyz */
  });
  // The pool listens for errors of idle clients only: it takes its listener off a client it
  // hands out. Kysely's driver (every query through `db`, transactions, `db.connection()`)
  // adds none, and a client emits 'error' when its backend goes away (terminated, the server
  // restarted), so a connection lost while checked out crashed the process. The error
  // reaches the query that was running, or the next one on that client (the client is then
  // closed and the pool discards it); the event itself needs only a listener.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
  const names = preparedNames();
  // Straight to the pool (Kysely's driver never names a statement), with the same type parsers.
  async function run<T>(query: CompiledQuery, options: RunOptions | undefined, rowMode?: 'array'): Promise<T[]> {
    const config = { text: query.sql, values: query.parameters as unknown[], ...(rowMode ? { rowMode } : {}) };
    const name = options?.prepare ? names.nameOf(query.sql) : undefined;
    if (name === undefined) return (await pool.query(config)).rows as T[];
    try {
      return (await pool.query({ ...config, name })).rows as T[];
    } catch (error) {
      if (!isStalePrepared(error)) throw error;
      names.refuse(query.sql);
      return (await pool.query(config)).rows as T[];
    }
  }
  return {
    db,
    engine: 'postgres',
    arrays: (query, options) => run<unknown[]>(query, options, 'array'),
    rows: (query, options) => run(query, options),
    async ping() {
      await sql`select 1 from service_state limit 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}

async function openPglite(options: DatabaseOptions): Promise<Database> {
  const dir = options.dataDir && options.dataDir !== 'memory://' ? options.dataDir : undefined;
  if (dir) mkdirSync(dir, { recursive: true });
  const pgliteOptions = {
    extensions: { pg_trgm, btree_gin },
    parsers: { 20: parseBigint, 1700: parseNumeric },
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  };
  const client = dir ? await PGlite.create(dir, pgliteOptions) : await PGlite.create(pgliteOptions);
  const db = new Kysely<Schema>({ dialect: new PGliteDialect(client) });
  return {
    db,
    engine: 'pglite',
    // Through Kysely's one connection, so it waits its turn like every other statement: a
    // transaction holds that connection (an import run by the server for the command
    // line), and PGlite's one session would otherwise run this inside it.
    async arrays(query) {
      return db.getExecutor().provideConnection(async () => (await client.query<unknown[]>(query.sql, query.parameters as unknown[], { rowMode: 'array' })).rows);
    },
    async rows<T>(query: CompiledQuery) {
      return (await db.executeQuery(query)).rows as T[];
    },
    async ping() {
      await sql`select 1 from service_state limit 1`.execute(db);
    },
    async dump() {
      return client.dumpDataDir('none');
    },
    async close() {
      await db.destroy();
      if (!client.closed) await client.close();
    },
  };
}

/**
 * Whether an error says the database cannot be used now (not that a statement was wrong):
 * the server answers 503 for these, the command line says so in one line.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  // 57014 query_canceled (statement timeout), 57P0x shutdown, 08xxx connection errors,
  // 53300 too many connections; 3D000 and 28xxx: the server answers, but the database was
  // dropped or the role refused, which an operator fixes, not the caller.
  if (typeof e.code === 'string' && (/^08/.test(e.code) || /^57/.test(e.code) || /^28/.test(e.code) || e.code === '53300' || e.code === '3D000')) return true;
  // The server cannot be reached: refused, reset, timed out, its Unix socket gone (ENOENT
  // from connect), no route, or its host name not resolved.
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'].includes(String(e.code)) ||
    (e.code === 'ENOENT' && (error as { syscall?: string }).syscall === 'connect') ||
    // The last three: the database was closed under the running app (a shutdown), through
    // Kysely or straight at the pool (prepared statements, `arrays`).
    /Connection terminated|PGlite is closed|driver has already been destroyed|Cannot use a pool after calling end/i.test(e.message ?? '')
  );
}
