/** A runaway query, or a database that cannot be reached, ends as a 503 problem, not a hung request or a 500. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.js';
import { toApiError } from '../../src/server/app.js';

const url = process.env.DATABASE_URL;

test('a statement cancelled by statement_timeout maps to 503 with Retry-After', { skip: url ? false : 'DATABASE_URL is not set (PGlite has no statement timeout)' }, async () => {
  const database = await openDatabase({ databaseUrl: url, statementTimeoutMs: 100, migrate: false, maxConnections: 1 });
  try {
    const error = await sql`select pg_sleep(2)`.execute(database.db).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(error, 'the statement must be cancelled');
    const problem = toApiError(error);
    assert.equal(problem.status, 503);
    assert.equal(problem.headers['retry-after'], '5');
  } finally {
    await database.close();
  }
});

test('unexpected errors are 500 without internals', () => {
  const problem = toApiError(new Error('relation "secret_table" does not exist'));
  assert.equal(problem.status, 500);
  assert.equal(problem.message.includes('secret_table'), false);
});

/** The error a real connection attempt ends with (pg's own objects, not hand-made ones). */
async function connectError(connectionString: string): Promise<unknown> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5000 });
  return client.connect().then(
    async () => {
      await client.end();
      return undefined;
    },
    (err: unknown) => err,
  );
}

test('a database whose Unix socket is gone maps to 503 with Retry-After', async () => {
  const error = await connectError(`postgres://postgres@${encodeURIComponent(join(tmpdir(), `no-such-dir-${process.pid}`))}/test`);
  assert.equal((error as { code?: string }).code, 'ENOENT');
  const problem = toApiError(error);
  assert.deepEqual([problem.status, problem.headers['retry-after']], [503, '5']);
  // Any other missing file is no dependency failure.
  assert.equal(toApiError(Object.assign(new Error('no such file'), { code: 'ENOENT', syscall: 'open' })).status, 500);
});

test('a dropped database maps to 503 with Retry-After', { skip: url ? false : 'DATABASE_URL is not set' }, async () => {
  const missing = new URL(url!);
  missing.pathname = `/no_such_database_${process.pid}`;
  const error = await connectError(missing.toString());
  assert.equal((error as { code?: string }).code, '3D000');
  const problem = toApiError(error);
  assert.deepEqual([problem.status, problem.headers['retry-after']], [503, '5']);
});
