/**
 * A CSV download that an import's commit overtakes is cut off, its connection closed,
 * never completed short: end to end on PostgreSQL, with a table swapped in and the data
 * version bumped in one transaction, as an import does, while the download's later
 * batches wait for the swap. (Which batch notices depends on timing: here usually one
 * fetched ahead before the commit. The case where every batch after the commit reads
 * nothing, because a COPY that waited for the swap reads the new table with a snapshot
 * from before the commit, is held by version-confirmation.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import pg from 'pg';
import { sql } from 'kysely';
import { engines } from '../helpers/engines.js';
import { fixtureApp } from '../helpers/fixture-app.js';
import { ORG } from '../fixtures/small-bundle.js';

const postgres = engines.find((e) => e.name === 'postgres');
const ROWS = 120_000;

test('a download whose later batches wait for an import\'s table swap is cut off, not completed short', { skip: postgres ? false : 'DATABASE_URL is not set (PGlite runs one statement at a time: no COPY waits for a swap)' }, async () => {
  const f = await fixtureApp(postgres!, { reports: { precomputed: false } });
  const importing = new pg.Client({ connectionString: f.database.url });
  try {
    const db = f.database.db;
    const orgId = (await db.selectFrom('orgs').select('id').where('public_id', '=', ORG.ACME).executeTakeFirstOrThrow()).id;
    // Rows written straight into the report table (no stored lines): COPY batches of 10,000 by rid.
    await sql`insert into rpt_global_accounts (org_id, rid, partner_org_id, account_name, crm_account_id)
      select ${orgId}, 1000 + g, 0, 'Account ' || g, 'C' || g from generate_series(1, ${ROWS}) g`.execute(db);
    const url = new URL(`${await f.app.listen({ port: 0, host: '127.0.0.1' })}/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/download`);
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'api-key': f.keys.acme, 'content-type': 'application/json' } });
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      req.on('response', resolve).on('error', reject);
      req.end('{}');
    });
    assert.equal(res.statusCode, 200);
    let body = '';
    let complete = false;
    const closed = new Promise<void>((resolve) => {
      res.on('end', () => (complete = true));
      res.on('close', resolve);
      res.on('error', () => undefined);
    });
    // Take the first batches, then hold the download while an "import" swaps the table in.
    await new Promise<void>((resolve) => {
      let held = false;
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
        if (body.length >= 50_000 && !held) {
          held = true;
          res.pause();
          resolve();
        }
      });
    });
    await importing.connect();
    await importing.query('begin');
    await importing.query('alter table rpt_global_accounts rename to rpt_global_accounts__old');
    await importing.query('create table rpt_global_accounts (like rpt_global_accounts__old including all)');
    await importing.query('insert into rpt_global_accounts select * from rpt_global_accounts__old');
    await importing.query(`update service_state set value = (value::bigint + 1)::text where key = 'data_version'`);
    res.resume();
    // Commit once a batch of the download waits for the swapped table's lock.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const waiting = await sql<{ n: number }>`select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation
        where not l.granted and l.database = (select oid from pg_database where datname = current_database()) and c.relname like 'rpt_global_accounts%'`.execute(db);
      if (waiting.rows[0]!.n > 0) break;
      assert.ok(Date.now() < deadline, 'no batch of the download waited for the swap');
      await new Promise((r) => setTimeout(r, 10));
    }
    await importing.query('commit');
    await closed;
    const lines = body.split('\r\n').length - 2;
    assert.ok(!complete, `the download completed with ${lines} of ${ROWS} rows`);
    assert.ok(lines < ROWS, 'cut off before the rows the swap hid');
  } finally {
    await importing.end().catch(() => undefined);
    await f.close();
  }
});
