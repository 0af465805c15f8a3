/** Shared set-up of the subcommands: configuration from the environment, the database. */
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig, type Config } from '../config.js';
import { isDatabaseUnavailable, openDatabase, type Database } from '../db/database.js';
import { CliFailure } from './failure.js';
import { forwardToServer, holdsDataDir, socketOf, type Output } from './control-client.js';
import { isHolder, LOCK_WAIT_MS, tryLockDataDir, type DataDirLock, type Holder, type HolderRole } from './data-dir-lock.js';

const embeddedFailure = (config: Config, error: unknown) =>
  new CliFailure(`cannot open the embedded database in ${config.dataDir} (DATA_DIR): ${error instanceof Error ? error.message : String(error)}`);

/**
 * The configured database, opened and migrated; one that cannot be reached or opened is
 * said in one line. `lock`: the DATA_DIR lock it is opened under (data-dir-lock.ts),
 * given up when the database closes, or at once when it does not open.
 */
export async function openConfigured(config: Config, lock?: DataDirLock): Promise<Database> {
  let database: Database;
  try {
    database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, statementTimeoutMs: config.statementTimeoutMs });
  } catch (error) {
    lock?.release();
    const cause = (error as { cause?: unknown }).cause ?? error;
    // The embedded database fails to open for reasons of its folder (a file in its place, no
    // permission): said in one line as well.
    if (!config.databaseUrl) throw embeddedFailure(config, cause);
    if (!isDatabaseUnavailable(cause)) throw error;
    throw new CliFailure(`cannot reach ${redactedUrl(config.databaseUrl)}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
  if (!lock) return database;
  const close = database.close.bind(database);
  return Object.assign(database, {
    async close() {
      try {
        await close();
      } finally {
        lock.release();
      }
    },
  });
}

const describeHolder = (h: Holder) => (h.pid === 0 ? 'another process' : h.role === 'server' ? `the server starting (pid ${h.pid})` : `another partner-reports command (pid ${h.pid})`);

/**
 * Waits for the embedded database's DATA_DIR: the lock once nobody holds it, or, after each
 * refusal, what `whenHeld` makes of the holder (a value ends the wait: a command forwarded
 * to the server that came up, a server refused beside another). Says once, after two
 * seconds, what it waits for; gives up after LOCK_WAIT_MS.
 */
export async function waitForDataDir<T>(config: Config, role: HolderRole, whenHeld: (holder: Holder) => Promise<T | undefined>): Promise<DataDirLock | T> {
  const started = Date.now();
  let told = false;
  for (;;) {
    let taken: DataDirLock | Holder;
    try {
      taken = tryLockDataDir(config.dataDir, role);
    } catch (error) {
      throw embeddedFailure(config, error);
    }
    if (!isHolder(taken)) return taken;
    const settled = await whenHeld(taken);
    if (settled !== undefined) return settled;
    const waited = Date.now() - started;
    if (waited > LOCK_WAIT_MS) throw new CliFailure(`the embedded database in ${config.dataDir} (DATA_DIR) is still held by ${describeHolder(taken)} after ${Math.round(waited / 1000)} s; try again when it is done`);
    if (!told && waited > 2000) {
      process.stderr.write(`partner-reports: waiting for ${describeHolder(taken)}, which holds the embedded database in ${config.dataDir}...\n`);
      told = true;
    }
    await sleep(100);
  }
}

/** A database URL without its password, to print. */
export function redactedUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = '***';
    // pg also reads passwords from the query string.
    for (const key of [...url.searchParams.keys()]) if (/password/i.test(key)) url.searchParams.set(key, '***');
    return url.toString();
  } catch {
    return 'the database';
  }
}

/** What a database operation of the command line runs with, here or inside a server. */
export interface OperationContext extends Output {
  config: Config;
  database: Database;
  /** Run by the command's own process, which may draw on its terminal (not inside a server). */
  interactive: boolean;
}

/** An operation on the database: its arguments are JSON, so a server can run it (control-server.ts). */
export type Operation<A> = (ctx: OperationContext, args: A) => Promise<void>;

const processOutput: Output = { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) };

/**
 * Runs a named database operation of the command line: inside the server that holds the
 * embedded database's DATA_DIR when one does (control-client.ts explains why), else here
 * on a database opened for it and closed afterwards, whatever happens.
 */
export async function runOperation<A>(name: string, args: A, operation: Operation<A>): Promise<void> {
  const config = loadConfig();
  const forward = async () => {
    const socket = socketOf(config);
    return socket !== undefined && (await forwardToServer(socket, name, args, processOutput));
  };
  if (await forward()) return;
  let lock: DataDirLock | undefined;
  if (holdsDataDir(config)) {
    // Held by a server whose socket is not up yet (it is opening the database, or loading
    // the demo), or by another command: forwarded once the server listens, else run here
    // once the other command is done.
    const taken = await waitForDataDir(config, 'command', async (holder) => (holder.role === 'server' && (await forward()) ? true : undefined));
    if (taken === true) return;
    lock = taken;
  }
  const database = await openConfigured(config, lock);
  try {
    await operation({ config, database, interactive: true, ...processOutput }, args);
  } finally {
    await database.close();
  }
}
