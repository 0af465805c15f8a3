/**
 * `serve` on a PostgreSQL that does not answer at start (down, not yet up, the database
 * not created yet, the role refused): the server starts all the same and answers 503 with
 * Retry-After (contract section 1: a database unavailable is a 503, not a refused
 * connection), and migrates and serves as soon as the database answers. Before, the start
 * said it could not reach the database and exited, so a client saw connection refused
 * and an orchestrator a crash loop. The other commands (import, keys, start) still say so
 * in one line and exit 1: they have nothing to do without the database.
 */
import { migrateToLatest } from '../db/migrate.js';
import { isDatabaseUnavailable, openDatabase, type Database } from '../db/database.js';
import type { Config } from '../config.js';

/** How often an unanswering database is tried again. */
const RETRY_MS = 2000;

export interface DatabaseWait {
  /** Why the database cannot be used yet; undefined once it answers and is migrated. */
  pending(): string | undefined;
  /** Stops trying (the server is stopping). */
  stop(): void;
}

const messageOf = (error: unknown): string => {
  const cause = (error as { cause?: unknown }).cause ?? error;
  return cause instanceof Error ? cause.message : String(cause);
};

/**
 * The PostgreSQL database of `config`, migrated, or, when it does not answer, opened
 * without a connection and migrated in the background once it answers (`wait` is then
 * set). `say` gets one line at each change. Any other failure (a migration that fails on
 * a database that answers) is thrown, as before.
 */
export async function openPostgresForServing(config: Config & { databaseUrl: string }, where: string, say: (line: string) => void): Promise<{ database: Database; wait?: DatabaseWait }> {
  // pg's pool connects on the first query: opening makes no connection.
  const database = await openDatabase({ databaseUrl: config.databaseUrl, statementTimeoutMs: config.statementTimeoutMs, migrate: false });
  let reason: string | undefined;
  try {
    await migrateToLatest(database.db);
    return { database };
  } catch (error) {
    if (!isDatabaseUnavailable((error as { cause?: unknown }).cause ?? error)) {
      await database.close();
      throw error;
    }
    reason = messageOf(error);
    say(`cannot reach ${where}: ${reason}; serving 503 with Retry-After until it answers`);
  }
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const attempt = async () => {
    try {
      await migrateToLatest(database.db);
      if (stopped) return;
      reason = undefined;
      say(`${where} answers; serving`);
    } catch (error) {
      if (stopped) return;
      // Said when the reason changes, not every two seconds.
      const why = messageOf(error);
      if (why !== reason) say(`still cannot use ${where}: ${why}`);
      reason = why;
      timer = setTimeout(() => void attempt(), RETRY_MS);
    }
  };
  timer = setTimeout(() => void attempt(), RETRY_MS);
  return {
    database,
    wait: {
      pending: () => reason,
      stop: () => {
        stopped = true;
        clearTimeout(timer);
      },
    },
  };
}
