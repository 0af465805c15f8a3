/** Shared set-up of the subcommands: configuration from the environment, the database. */
import { loadConfig, type Config } from '../config.js';
import { isDatabaseUnavailable, openDatabase, type Database } from '../db/database.js';
import { CliFailure } from './failure.js';
import { forwardToServer, socketOf, type Output } from './control-client.js';

/** The configured database, opened and migrated; one that cannot be reached or opened is said in one line. */
export async function openConfigured(config: Config): Promise<Database> {
  try {
    return await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, statementTimeoutMs: config.statementTimeoutMs });
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause ?? error;
    const message = cause instanceof Error ? cause.message : String(cause);
    // The embedded database fails to open for reasons of its folder (a file in its place, no
    // permission): said in one line as well.
    if (!config.databaseUrl) throw new CliFailure(`cannot open the embedded database in ${config.dataDir} (DATA_DIR): ${message}`);
    if (!isDatabaseUnavailable(cause)) throw error;
    throw new CliFailure(`cannot reach ${redactedUrl(config.databaseUrl)}: ${message}`);
  }
}

/** A database URL without its password, to print. */
function redactedUrl(raw: string): string {
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
  const socket = socketOf(config);
  if (socket && (await forwardToServer(socket, name, args, processOutput))) return;
  const database = await openConfigured(config);
  try {
    await operation({ config, database, interactive: true, ...processOutput }, args);
  } finally {
    await database.close();
  }
}
