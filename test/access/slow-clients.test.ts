/**
 * Clients that stop reading, and a stopping server: a stalled download is closed after
 * REQUEST_TIMEOUT_MS without traffic; a stop waits SHUTDOWN_TIMEOUT_MS for requests in
 * flight and then closes their connections; a request that reaches the router while the
 * server stops is the service's own 503 problem.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { createServer } from 'node:http';
import { sql } from 'kysely';
import { engines, type TestDatabase } from '../helpers/engines.js';
import { fixtureApp, createKeyFor } from '../helpers/fixture-app.js';
import { importBundle } from '../../src/ingest/import-bundle.js';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server/server.js';
import { ORG, USERS, writeSmallBundle } from '../fixtures/small-bundle.js';
import { until } from '../helpers/until.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const pglite = engines.find((e) => e.name === 'pglite')!;
const DOWNLOAD = '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/download';

/** Enough rows that a download fills the socket's buffers and waits for its reader. */
async function manyRows(database: Pick<TestDatabase, 'db'>): Promise<void> {
  const orgId = (await database.db.selectFrom('orgs').select('id').where('public_id', '=', ORG.ACME).executeTakeFirstOrThrow()).id;
  await sql`insert into rpt_global_accounts (org_id, rid, partner_org_id, account_name, crm_account_id, street)
    select ${orgId}, 1000 + g, 0, 'Account ' || g, 'C' || g, repeat('street, ', 20) from generate_series(1, 60000) g`.execute(database.db);
}

function request(method: string, path: string, key: string, body?: string): string {
  const head = [`${method} ${path} HTTP/1.1`, 'host: test', `api-key: ${key}`, 'connection: keep-alive'];
  if (body !== undefined) head.push('content-type: application/json', `content-length: ${Buffer.byteLength(body)}`);
  return `${head.join('\r\n')}\r\n\r\n${body ?? ''}`;
}

/** A socket that sends `text` and then reads nothing until told. */
async function stalled(url: string, text: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.on('error', () => undefined);
  socket.pause();
  socket.write(text);
  return socket;
}

const connections = (server: import('node:http').Server) => new Promise<number>((resolve, reject) => server.getConnections((e, n) => (e ? reject(e) : resolve(n))));

describe('clients that stop reading, and a stopping server', () => {
  test('a download whose client stopped reading is closed after REQUEST_TIMEOUT_MS without traffic', async () => {
    const f = await fixtureApp(pglite, { reports: { precomputed: false }, config: { requestTimeoutMs: 1_000 } });
    try {
      await manyRows(f.database);
      const url = await f.app.listen({ port: 0, host: '127.0.0.1' });
      const socket = await stalled(url, request('POST', DOWNLOAD, f.keys.acme, '{}'));
      assert.ok(await until(async () => (await connections(f.app.server)) === 1, 10_000), 'the download started');
      // Without the inactivity timeout the server held the socket (and its buffered batches) for ever.
      assert.ok(await until(async () => (await connections(f.app.server)) === 0, 15_000), 'the stalled connection was closed');
      socket.destroy();
    } finally {
      await f.close();
    }
  });

  test('a request that reaches the router while the server stops is a 503 problem with Retry-After and a request id', async () => {
    const f = await fixtureApp(pglite);
    // Once stopping, the server takes no new connection, and Node emits a pipelined request
    // before the stop begins; a second server handing requests to the app's router stands
    // in for a request on a busy keep-alive connection that reaches the router after.
    const side = createServer((req, res) => f.app.routing(req, res));
    try {
      await f.app.ready();
      await new Promise<void>((resolve) => side.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(side.address() as AddressInfo).port}/v1/attribution/event-types`;
      assert.equal((await fetch(url, { headers: { 'api-key': f.keys.acme } })).status, 200);
      await f.app.close();
      const res = await fetch(url, { headers: { 'api-key': f.keys.acme } });
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
      assert.ok(res.headers.get('x-request-id'));
      const body = (await res.json()) as { status: number; detail: string; instance: string };
      assert.equal(body.status, 503);
      assert.match(body.detail, /shutting down/);
      assert.equal(body.instance, '/v1/attribution/event-types');
    } finally {
      side.close();
      await f.database.dispose();
    }
  });

  describe('stop', () => {
    let database: TestDatabase;
    let key: string;
    const dirs: string[] = [];
    before(async () => {
      database = await pglite.open();
      const dir = mkdtempSync(join(tmpdir(), 'pr-stop-'));
      dirs.push(dir);
      const result = await importBundle(database, writeSmallBundle(dir));
      assert.ok(result.ok);
      await manyRows(database);
      key = await createKeyFor(database, ORG.ACME, USERS.ACME_ADMIN);
    });
    after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

    test('waits SHUTDOWN_TIMEOUT_MS for a download whose client does not read, then closes it', async () => {
      const config = { ...loadConfig({}), port: 0, logLevel: 'silent', shutdownTimeoutMs: 300, rateLimitPerMinute: 1_000_000 };
      // startServer closes the database when it stops.
      const server = await startServer(config, database, { handleSignals: false });
      const socket = await stalled(server.url, request('POST', DOWNLOAD, key, '{}'));
      assert.ok(await until(async () => (await connections(server.app.server)) === 1, 10_000), 'the download started');
      await new Promise((r) => setTimeout(r, 200));
      let stopped = false;
      const stopping = server.stop().then(() => (stopped = true));
      // Without the deadline the stop waited for the client (REQUEST_TIMEOUT_MS, 120 s here).
      assert.ok(await until(async () => stopped, 10_000), 'the server stopped');
      await stopping;
      socket.destroy();
    });
  });
});
