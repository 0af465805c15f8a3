/** Liveness and readiness probes; public (no credentials). */
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/database.js';
import { unavailable } from '../errors.js';

/** SQLSTATE of a table that does not exist. */
const UNDEFINED_TABLE = '42P01';

export interface HealthDeps {
  database: Database;
  /** Extra readiness facts (for example the rate-limit store in use). */
  details?: () => Record<string, unknown>;
  /** Why the database cannot be used yet (app.ts AppDeps.databasePending). */
  pending?: () => string | undefined;
}

/** The 503's detail while a server started without its database waits for it. */
export const DATABASE_PENDING = 'the database is not reachable yet; retry shortly';

export function registerHealthRoutes(app: FastifyInstance, deps: HealthDeps): void {
  app.get('/healthz', { config: { public: true }, schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { public: true }, schema: { hide: true } }, async () => {
    if (deps.pending?.() !== undefined) throw unavailable(DATABASE_PENDING);
    // Reachable is not enough: a database dropped and created again empty under the running
    // server answers, while every request fails on the missing tables (migrations run at
    // start). Ready means the schema is there (ping reads it).
    try {
      await deps.database.ping();
    } catch (err) {
      const missing = (err as { code?: unknown }).code === UNDEFINED_TABLE;
      throw unavailable(missing ? 'the database has no schema (created again under the running server?): restart the server to migrate it' : 'database unreachable', 5, err);
    }
    return { status: 'ready', database: deps.database.engine, ...(app.readinessDetails?.() ?? {}) };
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Set by plugins that want to add facts to /readyz (for example the rate-limit store). */
    readinessDetails?: () => Record<string, unknown>;
  }
  interface FastifyContextConfig {
    /** Routes that need no credentials. */
    public?: boolean;
  }
}
