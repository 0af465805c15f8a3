/** Liveness and readiness probes; public (no credentials). */
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/database.js';
import { unavailable } from '../errors.js';

export interface HealthDeps {
  database: Database;
  /** Extra readiness facts (for example the rate-limit store in use). */
  details?: () => Record<string, unknown>;
}

export function registerHealthRoutes(app: FastifyInstance, deps: HealthDeps): void {
  app.get('/healthz', { config: { public: true }, schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { public: true }, schema: { hide: true } }, async () => {
    try {
      await deps.database.ping();
    } catch {
      throw unavailable('database unreachable');
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
