/**
 * A PostgreSQL backend that goes away (pg_terminate_backend, a server restart) while its
 * connection is handed out fails that connection's statement; it does not crash the
 * process, and the next statements get a fresh connection.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { sql } from 'kysely';
import { engines } from '../helpers/engines.js';

const postgres = engines.find((e) => e.name === 'postgres');

test('connections terminated while in use fail their statements, not the process', { skip: postgres ? false : 'DATABASE_URL is not set (PGlite has no backends to terminate)' }, async () => {
  const db = await postgres!.open();
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  // Without a listener the client's 'error' event is thrown as an uncaught exception.
  const uncaught: unknown[] = [];
  const onUncaught = (e: unknown) => void uncaught.push(e);
  process.on('uncaughtException', onUncaught);
  const terminate = async (pid: number) => void (await admin.query('select pg_terminate_backend($1)', [pid]));
  try {
    // 1. A statement running on a Kysely connection.
    // Its outcome is taken at once: the rejection may come before the assertion below awaits it.
    const running = sql`select pg_sleep(10)`.execute(db.db).then(() => assert.fail('the statement survived'), (e: unknown) => e);
    let pid: number | undefined;
    for (let i = 0; i < 200 && pid === undefined; i++) {
      const r = await admin.query(`select pid from pg_stat_activity where datname = current_database() and query like 'select pg_sleep(10)%' and pid <> pg_backend_pid()`);
      pid = r.rows[0]?.pid;
      if (pid === undefined) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(pid, 'the statement was seen running');
    await terminate(pid);
    assert.match(String(await running), /terminat/);
    // 2. A connection held between statements (a transaction, a download's batch).
    await db.db.connection().execute(async (c) => {
      const own = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(c)).rows[0]!.pid;
      await terminate(own);
      await new Promise((r) => setTimeout(r, 300));
      await assert.rejects(sql`select 1`.execute(c));
    }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(uncaught.map(String), []);
    // The pool serves the next statements on new connections.
    const after = await sql<{ one: number }>`select 1 as one`.execute(db.db);
    assert.equal(after.rows[0]!.one, 1);
  } finally {
    process.off('uncaughtException', onUncaught);
    await admin.end();
    await db.dispose();
  }
});
