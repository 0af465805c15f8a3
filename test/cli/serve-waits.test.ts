/**
 * `serve` on a PostgreSQL that does not answer at start stays up and answers 503 with
 * Retry-After (contract section 1), then migrates and serves once the database answers
 * (src/cli/database-wait.ts). Before, it said it could not reach the database and exited.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { cliArgs, root } from '../helpers/cli-process.js';
import { tempDirs } from '../helpers/temp-dirs.js';
import { until } from '../helpers/until.js';
import { ORG, USERS, writeSmallBundle } from '../fixtures/small-bundle.js';

const tmp = tempDirs();
const serverUrl = process.env.DATABASE_URL;
const GVA = '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records';

/** `serve` on `databaseUrl` at a free port; its stderr collected; `stop` sends SIGTERM and resolves to the exit status. */
function serve(databaseUrl: string) {
  const port = 20_000 + Math.floor(Math.random() * 900);
  const child = spawn(process.execPath, cliArgs('serve', '--port', String(port)), { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: '', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    stderr: () => stderr,
    /** Resolves once the server answers /healthz (whatever its database does). */
    async up(): Promise<void> {
      if (await until(async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.status === 200, 60_000, 100)) return;
      throw new Error(`serve did not come up: ${stderr}`);
    },
    async stop(): Promise<number | null> {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

const records = (base: string, key: string) => fetch(`${base}${GVA}`, { method: 'POST', headers: { 'api-key': key, 'content-type': 'application/json' }, body: '{}' });

test('serve on a database server that refuses connections stays up and answers 503 with Retry-After', async () => {
  const server = serve('postgres://postgres:s3cret@127.0.0.1:1/nowhere');
  try {
    await server.up();
    const ready = await fetch(`${server.base}/readyz`);
    assert.deepEqual([ready.status, ready.headers.get('retry-after')], [503, '5']);
    for (const key of ['prk_any', '']) {
      const res = await records(server.base, key);
      assert.equal(res.status, 503, 'before any credential check, which needs the database');
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      assert.equal(res.headers.get('retry-after'), '5');
      const body = (await res.json()) as { status: number; detail: string };
      assert.deepEqual([body.status, body.detail], [503, 'the database is not reachable yet; retry shortly']);
    }
    assert.equal((await fetch(`${server.base}/openapi.json`)).status, 200, 'the API description needs no database');
    assert.equal((await fetch(`${server.base}/no/such/path`)).status, 404);
    // Said once, without the password.
    assert.match(server.stderr(), /^partner-reports: cannot reach postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/nowhere: connect ECONNREFUSED [^\n]*; serving 503 with Retry-After until it answers\n/);
    assert.doesNotMatch(server.stderr(), /s3cret/);
  } finally {
    assert.equal(await server.stop(), 0, 'a graceful stop while waiting');
  }
});

test('serve started before its database exists serves it once it is created, migrated on the way', { skip: serverUrl ? false : 'DATABASE_URL is not set' }, async () => {
  const name = `pr_test_wait_${randomBytes(5).toString('hex')}`;
  const url = new URL(serverUrl!);
  url.pathname = `/${name}`;
  const admin = async (statement: string) => {
    const c = new pg.Client({ connectionString: serverUrl });
    await c.connect();
    try {
      await c.query(statement);
    } finally {
      await c.end();
    }
  };
  const server = serve(url.toString());
  try {
    await server.up();
    assert.equal((await fetch(`${server.base}/readyz`)).status, 503);
    await admin(`create database ${name}`);
    let ready = 0;
    await until(async () => (ready = (await fetch(`${server.base}/readyz`)).status) === 200, 60_000, 200);
    assert.equal(ready, 200, server.stderr());
    assert.match(server.stderr(), new RegExp(`${name} answers; serving\\n$`));
    // The database it waited for is the one the commands fill: the running server answers from it.
    const env = { ...process.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'warn' };
    assert.equal(spawnSync(process.execPath, cliArgs('import', writeSmallBundle(tmp('pr-wait-bundle-'))), { cwd: root, env, encoding: 'utf8' }).status, 0);
    const created = spawnSync(process.execPath, cliArgs('keys', 'create', '--org', ORG.ACME, '--user', USERS.ACME_ADMIN), { cwd: root, env, encoding: 'utf8' });
    assert.equal(created.status, 0, created.stderr);
    const res = await records(server.base, created.stdout.trim().split('\n').at(-1)!);
    assert.equal(res.status, 200);
    assert.ok(((await res.json()) as { totalElements: number }).totalElements > 0);
  } finally {
    assert.equal(await server.stop(), 0);
    await admin(`drop database if exists ${name} with (force)`);
  }
});
