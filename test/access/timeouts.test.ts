/** A runaway query ends as a 503 problem (statement timeout), not a hung request. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
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
