/** Shared set-up of the subcommands: configuration from the environment, the database. */
import { loadConfig, type Config } from '../config.js';
import { openDatabase, type Database } from '../db/database.js';

export async function openFromEnv(overrides: Partial<Config> = {}): Promise<{ config: Config; database: Database }> {
  const config = { ...loadConfig(), ...overrides };
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, statementTimeoutMs: config.statementTimeoutMs });
  return { config, database };
}

/** Runs `fn` with a database that is closed afterwards, whatever happens. */
export async function withDatabase<T>(fn: (ctx: { config: Config; database: Database }) => Promise<T>): Promise<T> {
  const ctx = await openFromEnv();
  try {
    return await fn(ctx);
  } finally {
    await ctx.database.close();
  }
}
