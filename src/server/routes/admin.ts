import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import type { Database } from '../../db/database.js';

export interface AdminDeps {
  database: Database;
  config: Config;
  clock: () => number;
}

export function registerAdminRoutes(_app: FastifyInstance, _deps: AdminDeps): void {}
