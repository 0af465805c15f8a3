/**
 * The same suite runs on embedded PGlite always and, when DATABASE_URL is set, again on
 * that PostgreSQL server. Each call gets a fresh, migrated database: an in-memory PGlite
 * (loaded from one migrated dump: pglite-snapshot.ts), or a new database created on the
 * server (dropped again by `dispose`).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database, type Engine } from '../../src/db/database.js';
import { openPgliteFromSnapshot } from './pglite-snapshot.js';

export interface TestEngine {
  name: Engine;
  /** A fresh, migrated, empty database; call `dispose` when done. */
  open(): Promise<TestDatabase>;
}

export interface TestDatabase extends Database {
  /** The URL for child processes (PostgreSQL), or undefined for PGlite. */
  url: string | undefined;
  dispose(): Promise<void>;
}

const serverUrl = process.env.DATABASE_URL;

const pglite: TestEngine = {
  name: 'pglite',
  async open() {
    const database = await openPgliteFromSnapshot();
    return Object.assign(database, { url: undefined, dispose: () => database.close() });
  },
};

const postgres: TestEngine = {
  name: 'postgres',
  async open() {
    const name = `pr_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(serverUrl!);
    url.pathname = `/${name}`;
    const database = await openDatabase({ databaseUrl: url.toString(), maxConnections: 4 });
    return Object.assign(database, {
      url: url.toString(),
      async dispose() {
        await database.close();
        const c = new pg.Client({ connectionString: serverUrl });
        await c.connect();
        await c.query(`drop database if exists ${name} with (force)`);
        await c.end();
      },
    });
  },
};

/** The engines this run covers; PostgreSQL is skipped with a printed reason when unset. */
export const engines: TestEngine[] = serverUrl ? [pglite, postgres] : [pglite];

if (!serverUrl && !process.env.PR_QUIET_SKIP) {
  process.env.PR_QUIET_SKIP = '1';
  process.stdout.write('# PostgreSQL part skipped: DATABASE_URL is not set (the suite runs on embedded PGlite only)\n');
}
