/**
 * An app over a fresh database holding the small hand-made bundle (test/fixtures), with
 * an API key per organization and a fixed clock (or the test's own), for HTTP tests
 * through `inject`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { buildApp, type App, type AppDeps } from '../../src/server/app.js';
import { createApiKey } from '../../src/server/access/api-keys.js';
import { formatProblem, importBundle } from '../../src/ingest/import-bundle.js';
import { DAY, ORG, T0, USERS, writeSmallBundle } from '../fixtures/small-bundle.js';
import type { TestDatabase, TestEngine } from './engines.js';
import type { Caller } from '../../src/server/access/caller.js';
import type { Database } from '../../src/db/database.js';

/** "Now" of the fixture app: 100 days after T0, so 90-day windows include T0 + 10 days onwards. */
export const NOW = T0 + 100 * DAY;

export interface FixtureApp {
  app: App;
  database: TestDatabase;
  keys: { acme: string; acmeMember: string; other: string };
  /** POST (or GET when body is undefined and method given) with the ACME admin key by default. */
  call(method: 'GET' | 'POST', url: string, body?: unknown, key?: string): Promise<LightMyRequestResponse>;
  /** POST expecting 200 JSON; returns the parsed body. */
  ok<T = any>(url: string, body?: unknown, key?: string): Promise<T>;
  /** POST expecting a 4xx problem; returns it. */
  problem(url: string, body: unknown, status?: number, key?: string): Promise<{ status: number; detail: string; errors?: Array<{ field: string; message: string }> }>;
  close(): Promise<void>;
}

export async function fixtureApp(
  engine: TestEngine,
  options: { bundle?: Parameters<typeof writeSmallBundle>[1]; config?: Partial<Config>; reports?: AppDeps['reports']; access?: AppDeps['access']; clock?: () => number; logStream?: NodeJS.WritableStream } = {},
): Promise<FixtureApp> {
  const database = await engine.open();
  const dir = mkdtempSync(join(tmpdir(), 'pr-fixture-'));
  try {
    writeSmallBundle(dir, options.bundle);
    const result = await importBundle(database, dir);
    if (!result.ok) assert.fail(`fixture bundle did not import:\n${result.problems.map(formatProblem).join('\n')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const key = (org: string, email: string) => createKeyFor(database, org, email);
  const keys = { acme: await key(ORG.ACME, USERS.ACME_ADMIN), acmeMember: await key(ORG.ACME, USERS.ACME_MEMBER), other: await key(ORG.OTHER, USERS.OTHER_ADMIN) };
  const config = { ...loadConfig({}), rateLimitPerMinute: 1_000_000, ...options.config };
  // Silent, unless the test reads the log.
  const app = await buildApp({ config, database, ...(options.logStream ? { logStream: options.logStream } : { logger: false }), clock: options.clock ?? (() => NOW * 1000), ...(options.reports ? { reports: options.reports } : {}), ...(options.access ? { access: options.access } : {}) });

  const call: FixtureApp['call'] = (method, url, body, k = keys.acme) =>
    app.inject({ method, url, headers: { 'api-key': k, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });

  return {
    app,
    database,
    keys,
    call,
    async ok(url, body = {}, k) {
      const res = await call('POST', url, body, k);
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      return res.json();
    },
    async problem(url, body, status = 400, k) {
      const res = await call('POST', url, body, k);
      assert.equal(res.statusCode, status, `${url}: ${res.body}`);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      return res.json();
    },
    async close() {
      await app.close();
      await database.dispose();
    },
  };
}

/** A new API key of the user `email` of organization `org` (publicId). */
export async function createKeyFor(database: Pick<Database, 'db'>, org: string, email: string): Promise<string> {
  const o = await database.db.selectFrom('orgs').select('id').where('public_id', '=', org).executeTakeFirstOrThrow();
  const u = await database.db.selectFrom('users').select('id').where('org_id', '=', o.id).where('email', '=', email).executeTakeFirstOrThrow();
  return (await createApiKey(database.db, { orgId: o.id, userId: u.id, name: 'test' })).key;
}

/** An administrator of the fixture's organization `publicId` (ACME by default), for calling the report service directly. */
export async function adminCaller(database: TestDatabase, publicId: string = ORG.ACME): Promise<Caller> {
  const orgId = (await database.db.selectFrom('orgs').select('id').where('public_id', '=', publicId).executeTakeFirstOrThrow()).id;
  return { orgId, orgPublicId: publicId, userId: null, email: null, role: 'ADMIN', keyId: null, rateKey: 'test' };
}
