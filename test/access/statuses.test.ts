/**
 * Every status of contract section 1 over HTTP, each as RFC 9457 problem+json with an
 * `x-request-id`: 400 (with errors[]), 401 (WWW-Authenticate), 403, 404, 405 (Allow),
 * 413, 415, 429 (Retry-After), 500 (no internals) and 503 (Retry-After). Also the
 * bounds on what a problem reflects of the request.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { Readable } from 'node:stream';
import { connect, type AddressInfo } from 'node:net';
import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { memoryRateLimiter } from '../../src/server/access/rate-limit.js';

const GVA = '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS';

function assertProblem(res: LightMyRequestResponse, status: number): Record<string, any> {
  assert.equal(res.statusCode, status, res.body.slice(0, 300));
  // Exactly the type contract section 1 names, no parameter.
  assert.equal(res.headers['content-type'], 'application/problem+json');
  assert.match(String(res.headers['x-request-id']), /^[\w.:-]{1,128}$/);
  const body = res.json();
  for (const f of ['type', 'title', 'detail', 'instance']) assert.equal(typeof body[f], 'string', f);
  assert.equal(body.status, status);
  assert.equal(body.requestId, res.headers['x-request-id']);
  return body;
}

for (const engine of engines) {
  describe(`error statuses on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine, { access: { limiter: memoryRateLimiter(1_000_000, () => 0) } });
    });
    after(() => f.close());
    const post = (url: string, payload: string, headers: Record<string, string> = {}) =>
      f.app.inject({ method: 'POST', url, headers: { 'api-key': f.keys.acme, 'content-type': 'application/json', ...headers }, payload });

    test('400 401 403 404 405 413 415 as problems', async () => {
      const bad = assertProblem(await post(`${GVA}/records?page=x`, JSON.stringify({ filters: { nope: 'x' }, search: 1 })), 400);
      assert.ok(bad.errors.length >= 1 && bad.errors.every((e: any) => typeof e.field === 'string' && typeof e.message === 'string'));
      assertProblem(await post(`${GVA}/records`, '{"filters":'), 400);
      const unauthorized = await post(`${GVA}/records`, '{}', { 'api-key': 'prk_nope' });
      assertProblem(unauthorized, 401);
      assert.equal(unauthorized.headers['www-authenticate'], 'ApiKey, Bearer');
      assertProblem(await f.app.inject({ method: 'GET', url: '/v1/admin/api-keys', headers: { 'api-key': f.keys.acmeMember } }), 403);
      assertProblem(await post('/v1/report-analytics/report/NOPE/records', '{}'), 404);
      assertProblem(await f.app.inject({ method: 'GET', url: '/nowhere' }), 404);
      const wrongMethod = await f.app.inject({ method: 'PUT', url: `${GVA}/records`, headers: { 'api-key': f.keys.acme } });
      assertProblem(wrongMethod, 405);
      assert.equal(wrongMethod.headers.allow, 'POST');
      // The documentation's paths too; an unknown report type is 404 whatever the method.
      for (const [method, url] of [['PUT', '/openapi.json'], ['POST', '/docs'], ['DELETE', '/docs/json']] as const) {
        const docs = await f.app.inject({ method, url });
        assertProblem(docs, 405);
        assert.equal(docs.headers.allow, 'GET, HEAD', url);
        // What Allow says is served is served.
        assert.equal((await f.app.inject({ method: 'HEAD', url })).statusCode, 200, `HEAD ${url}`);
      }
      // Decided before the body is read: what the body is does not matter.
      const big = 'x'.repeat(2 * 1024 * 1024);
      for (const [method, url, status] of [['POST', '/v1/nope', 404], ['PUT', `${GVA}/records`, 405], ['POST', '/v1/attribution/event-types', 405]] as const) {
        for (const [type, payload] of [['text/plain', 'x'], ['application/json', '{bad'], ['application/json', big]]) {
          assertProblem(await f.app.inject({ method, url, headers: { 'content-type': type! }, payload }), status);
        }
      }
      for (const method of ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'] as const) {
        const unknown = await f.app.inject({ method, url: '/v1/report-analytics/report/NOPE/records' });
        assert.equal(unknown.statusCode, 404, method);
        assert.equal(unknown.headers.allow, undefined, method);
      }
      assertProblem(await post(`${GVA}/records`, JSON.stringify({ search: 'x'.repeat(1024 * 1024) })), 413);
      assertProblem(await post(`${GVA}/records`, 'search=x', { 'content-type': 'application/x-www-form-urlencoded' }), 415);
      assertProblem(await post(`${GVA}/records`, '{}', { 'content-type': 'text/csv' }), 415);
    });

    test('bodies: empty of any type is {}, a byte order mark is skipped, bytes not UTF-8 are 400, another charset or a compressed body is 415', async () => {
      const plain = await post(`${GVA}/records?size=1`, JSON.stringify({ filters: { country: 'DE' } }));
      assert.equal(plain.statusCode, 200);
      const bom = await post(`${GVA}/records?size=1`, `\uFEFF${JSON.stringify({ filters: { country: 'DE' } })}`);
      assert.equal(bom.statusCode, 200, bom.body);
      assert.equal(bom.json().totalElements, plain.json().totalElements);
      const all = (await post(`${GVA}/records?size=1`, '{}')).json().totalElements;
      assert.notEqual(all, plain.json().totalElements, 'the filter narrows, so the byte order mark did not hide it');
      const emptyForm = await post(`${GVA}/records?size=1`, '', { 'content-type': 'application/x-www-form-urlencoded' });
      assert.equal(emptyForm.statusCode, 200, emptyForm.body);
      assert.equal(emptyForm.json().totalElements, all);
      assert.equal((await post(`${GVA}/records`, '{}', { 'content-type': 'application/json; charset="UTF-8"' })).statusCode, 200);
      const latin1 = assertProblem(await post(`${GVA}/records`, '{}', { 'content-type': 'application/json; charset=iso-8859-1' }), 415);
      assert.match(latin1.detail, /UTF-8.*iso-8859-1/);
      const gzip = await post(`${GVA}/records`, gzipSync('{}') as unknown as string, { 'content-encoding': 'gzip' });
      assertProblem(gzip, 415);
      assert.equal(gzip.headers['accept-encoding'], 'identity');
      assert.equal((await post(`${GVA}/records`, '{}', { 'content-encoding': 'identity' })).statusCode, 200);
      // An empty chunked body of another type is empty all the same; a chunked one with content is 415.
      const chunked = (payload: string) => f.app.inject({ method: 'POST', url: `${GVA}/records?size=1`, headers: { 'api-key': f.keys.acme, 'content-type': 'text/plain', 'transfer-encoding': 'chunked' }, payload: Readable.from(payload ? [Buffer.from(payload)] : []) });
      assert.equal((await chunked('')).statusCode, 200);
      assertProblem(await chunked('{}'), 415);
      // Bytes that are not UTF-8 are refused, not read as U+FFFD; UTF-8 beyond ASCII is read as sent.
      const invalid = await f.app.inject({ method: 'POST', url: `${GVA}/records`, headers: { 'api-key': f.keys.acme, 'content-type': 'application/json' }, payload: Buffer.concat([Buffer.from('{"search":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]) });
      assert.deepEqual(assertProblem(invalid, 400).errors, [{ field: 'body', message: 'is not valid UTF-8 (a JSON body is UTF-8, RFC 8259)' }]);
      const utf8 = await f.app.inject({ method: 'POST', url: `${GVA}/records?size=1`, headers: { 'api-key': f.keys.acme, 'content-type': 'application/json' }, payload: Buffer.from(JSON.stringify({ search: 'Zürich ✓' }), 'utf8') });
      assert.equal(utf8.statusCode, 200, utf8.body);
      // Another type is refused without being read: 415 however large.
      assertProblem(await post(`${GVA}/records`, 'x'.repeat(2 * 1024 * 1024), { 'content-type': 'text/plain' }), 415);
    });

    test('an unknown field is named with the fields allowed where it stands', async () => {
      const top = assertProblem(await post(`${GVA}/records`, JSON.stringify({ filter: { country: 'US' } })), 400);
      assert.deepEqual(top.errors, [{ field: 'filter', message: 'is not a known field; the fields are filters, search, columns, context' }]);
      const nested = assertProblem(await post(`${GVA}/records`, JSON.stringify({ context: { partnerIds: [] } })), 400);
      assert.equal(nested.errors[0].field, 'context.partnerIds');
      assert.match(nested.errors[0].message, /^is not a known field; the fields are partnerPublicIds, eventTypeCodes, dateRangeDays, /);
      const channel = assertProblem(await post('/v1/channelecosystem/columns', JSON.stringify({ channelReportType: 'PARTNER_ORG_CONNECTED_PARTNER_ORGS', search: 'x' })), 400);
      assert.deepEqual(channel.errors, [{ field: 'search', message: 'is not a known field; the fields are channelReportType, matchingType, companyPartnerPublicId, mapByLocations, byOrg' }]);
    });

    test('schema problems name array items [i] and object keys .key, as the planner does', async () => {
      const bad = assertProblem(await post(`${GVA}/records`, JSON.stringify({ columns: ['account_name', 5], filters: { '0': 7 }, context: { partnerPublicIds: [1] } })), 400);
      assert.deepEqual(bad.errors.map((e: any) => e.field).sort(), ['columns[1]', 'context.partnerPublicIds[0]', 'filters.0']);
      // A string-or-number epoch of the wrong type is one entry, not one per union branch.
      const epochs = assertProblem(await post(`${GVA}/records`, JSON.stringify({ context: { eventDateStart: true, eventDateEnd: [] } })), 400);
      assert.deepEqual(epochs.errors, [
        { field: 'context.eventDateStart', message: 'must be string or number' },
        { field: 'context.eventDateEnd', message: 'must be string or number' },
      ]);
    });

    test('429 with Retry-After', async () => {
      const g = await fixtureApp(engine, { access: { limiter: memoryRateLimiter(1, () => 1_000) } });
      try {
        assert.equal((await g.call('GET', '/v1/attribution/event-types')).statusCode, 200);
        const limited = await g.call('GET', '/v1/attribution/event-types');
        assertProblem(limited, 429);
        assert.equal(limited.headers['retry-after'], '60');
      } finally {
        await g.close();
      }
    });

    test('500 without internals, with the request id to find it in the log', async () => {
      const g = await fixtureApp(engine);
      try {
        await sql`drop table rpt_global_accounts`.execute(g.database.db);
        const res = await g.app.inject({ method: 'POST', url: `${GVA}/records`, headers: { 'api-key': g.keys.acme, 'content-type': 'application/json', 'x-request-id': 'find-me-1' }, payload: '{}' });
        const body = assertProblem(res, 500);
        assert.equal(body.requestId, 'find-me-1');
        assert.equal(/rpt_|relation|select|from |stack|\.ts/i.test(res.body), false, res.body);
        assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'instance', 'requestId', 'status', 'title', 'type']);
      } finally {
        await g.close();
      }
    });

    test('503 with Retry-After when the database is gone', async () => {
      const g = await fixtureApp(engine);
      try {
        // The database closes under the running app (as during a shutdown).
        await g.database.close();
        const res = await g.app.inject({ method: 'POST', url: `${GVA}/records`, headers: { 'api-key': g.keys.acme, 'content-type': 'application/json' }, payload: '{}' });
        assertProblem(res, 503);
        assert.match(String(res.headers['retry-after']), /^\d+$/);
        const ready = await g.app.inject({ method: 'GET', url: '/readyz' });
        assertProblem(ready, 503);
        assert.match(String(ready.headers['retry-after']), /^\d+$/);
      } finally {
        await g.app.close();
        await g.database.dispose().catch(() => undefined);
      }
    });

    test('what the HTTP parser refuses (431 headers too large, 400 not HTTP) is problem+json with a request id too', async () => {
      await f.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = f.app.server.address() as AddressInfo;
      const raw = (bytes: string) =>
        new Promise<string>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
          let text = '';
          socket.on('data', (d) => (text += d.toString('utf8')));
          socket.on('end', () => resolve(text));
          socket.on('error', reject);
        });
      for (const [bytes, status] of [[`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431], ['NOT HTTP AT ALL\r\n\r\n', 400]] as const) {
        const answer = await raw(bytes);
        const [head, body] = answer.split('\r\n\r\n');
        assert.match(head!, new RegExp(`^HTTP/1.1 ${status} `));
        assert.match(head!, /content-type: application\/problem\+json/i);
        const id = /x-request-id: (\S+)/i.exec(head!)?.[1];
        const problem = JSON.parse(body!);
        assert.equal(problem.status, status);
        assert.equal(problem.requestId, id);
        for (const k of ['type', 'title', 'detail', 'instance']) assert.equal(typeof problem[k], 'string', k);
      }
    });

    test('a problem never reflects the request without bound', async () => {
      const long = 'y'.repeat(200_000);
      const many = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`nope_${i}_${long.slice(0, 100)}`, 'x']));
      for (const res of [
        await post(`${GVA}/records`, JSON.stringify({ filters: many })),
        await post(`${GVA}/records?sort=${long}`, '{}'),
        await post(`${GVA}/records`, JSON.stringify({ filters: { [long]: long } })),
        await post(`/v1/report-analytics/report/${'Z'.repeat(400)}/records`, '{}'),
        await post(`/v1/report-analytics/report/${'Z'.repeat(600)}/records`, '{}'),
        await f.app.inject({ method: 'GET', url: `/${long}` }),
      ]) {
        // A segment past the router's 500 characters is an unknown path too, not 414.
        assert.ok(res.statusCode === 400 || res.statusCode === 404, `${res.statusCode}`);
        // At most 100 entries of a clipped field and message, a clipped detail and instance.
        assert.ok(res.body.length < 80_000, `${res.body.length} characters`);
        // Exactly the type contract section 1 names, no parameter.
  assert.equal(res.headers['content-type'], 'application/problem+json');
      }
      const listed = (await post(`${GVA}/records`, JSON.stringify({ filters: many }))).json();
      assert.equal(listed.errors.length, 101);
      assert.match(listed.errors[100].message, /^4900 more problems/);
      assert.match(listed.detail, /^5000 problems/);
    });

    test('a date bound the database could not hold selects what whole seconds select: 200, never 500', async () => {
      for (const body of [
        { filters: { recent_open_opp_date: '1.5<->2.5' } },
        { filters: { recent_open_opp_date: '99999999999999999999<->' } },
      ]) {
        const res = await post(`${GVA}/records`, JSON.stringify(body));
        assert.equal(res.statusCode, 200, res.body);
      }
      const days = await post('/v1/report-analytics/report/ATTRIBUTION_EVENTS/records', JSON.stringify({ context: { partnerPublicIds: ['aaaaaaaa-0000-4000-8000-000000000001'], eventTypeCodes: ['ACTION_LIST'], dateRangeDays: 9007199254740991 } }));
      assert.equal(days.statusCode, 200, days.body);
    });
  });
}
