/**
 * Errors win over conditional requests, and the NUL check lists every field.
 *
 * A request that is 400 (or 404) without `If-None-Match` is the same error with it,
 * whether the header is `*` or a tag computed for that very request, and an error never
 * carries an ETag. A valid request is still answered 304 (with its tag) for a matching
 * tag or `*`, and a tag this process issued is answered without planning.
 * A body or query with U+0000 in several places lists each of them, named as every other
 * error names fields (`search`, `filters.city`, `columns[0]`, `filterField`).
 */
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { engines } from '../helpers/engines.js';
import { fixtureApp, NOW, type FixtureApp } from '../helpers/fixture-app.js';
import { ORG } from '../fixtures/small-bundle.js';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/server/app.js';
import { MAX_FIELD_ERRORS } from '../../src/server/errors.js';
import { serviceStateReader } from '../../src/reports/data-version.js';

const R = '/v1/report-analytics/report';
const GVA = `${R}/GLOBAL_VERTICAL_ACCOUNTS`;
const NUL_MESSAGE = 'must not contain the NUL character (\\u0000)';

/** Requests that are 400 on their own; each also with `If-None-Match`. */
const INVALID: Array<[url: string, body: unknown, field: string]> = [
  [`${GVA}/records?size=0`, {}, 'size'],
  [`${GVA}/records`, { filters: { nope: 'x' } }, 'filters.nope'],
  [`${GVA}/records?sort=nope`, {}, 'sort'],
  [`${R}/ATTRIBUTION_EVENTS/records`, {}, 'context.partnerPublicIds'],
  [`${GVA}/filterdata?filterField=nope`, {}, 'filterField'],
  [`${GVA}/dashboard`, { columns: ['nope'] }, 'columns[0]'],
  [`${GVA}/columns`, { filters: { city: '' } }, 'filters.city'],
];

for (const engine of engines) {
  describe(`conditional requests: errors win, on ${engine.name}`, () => {
    let f: FixtureApp;
    let orgId: number;
    before(async () => {
      f = await fixtureApp(engine);
      orgId = (await f.database.db.selectFrom('orgs').select('id').where('public_id', '=', ORG.ACME).executeTakeFirstOrThrow()).id;
    });
    after(() => f.close());

    const post = (url: string, body: unknown, ifNoneMatch?: string): Promise<LightMyRequestResponse> =>
      f.app.inject({ method: 'POST', url, headers: { 'api-key': f.keys.acme, 'content-type': 'application/json', ...(ifNoneMatch ? { 'if-none-match': ifNoneMatch } : {}) }, payload: JSON.stringify(body) });

    const version = async () => (await serviceStateReader(f.database)()).dataVersion;
    /**
     * The tag the server would give this request if it were valid (report-call.ts): a
     * client can compute it, so it must not turn an error into a 304. (Should the formula
     * change, this tag matches nothing and the `*` cases still test the rule.)
     */
    const forgedTag = async (url: string, body: unknown) => {
      const v = await version();
      const digest = createHash('sha256').update([v, String(orgId), 'POST', url, JSON.stringify(body)].join('\n')).digest('base64url').slice(0, 27);
      return `W/"${v}-${digest}"`;
    };

    const assertError = (res: LightMyRequestResponse, status: number, field: string | undefined, what: string) => {
      assert.equal(res.statusCode, status, `${what}: ${res.body.slice(0, 300)}`);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/, what);
      assert.equal(res.headers.etag, undefined, `${what}: an error carries no ETag`);
      if (field) assert.ok(res.json().errors.some((e: { field: string }) => e.field === field), `${what}: names ${field}: ${res.body}`);
    };

    test('a request that is 400 stays 400 with If-None-Match: * or a tag computed for it, with no ETag', async () => {
      for (const [url, body, field] of INVALID) {
        assertError(await post(url, body), 400, field, `${url} ${JSON.stringify(body)}`);
        assertError(await post(url, body, '*'), 400, field, `${url} ${JSON.stringify(body)} with *`);
        assertError(await post(url, body, `"x", *`), 400, field, `${url} ${JSON.stringify(body)} with "x", *`);
        assertError(await post(url, body, await forgedTag(url, body)), 400, field, `${url} ${JSON.stringify(body)} with its computed tag`);
        // Asked again after the first refusals: still the error (nothing remembered it as valid).
        assertError(await post(url, body, '*'), 400, field, `${url} ${JSON.stringify(body)} with * again`);
      }
    });

    test('404 and a bad channel body stay errors with If-None-Match: *', async () => {
      assertError(await post(`${R}/NOPE/records`, {}, '*'), 404, undefined, 'unknown report type');
      assertError(await post('/v1/channelecosystem/records', { channelReportType: 'NOPE' }, '*'), 404, 'channelReportType', 'unknown channel report');
      assertError(await post('/v1/channelecosystem/records', { matchingType: 'MUTUAL' }, '*'), 400, 'channelReportType', 'no channel report');
    });

    test('a "last N days" request with a bad context stays 400 with If-None-Match: *', async () => {
      const body = { context: { partnerPublicIds: [ORG.ALPHA], eventTypeCodes: ['ACTION_LIST'], dateRangeDays: -1 } };
      assertError(await post(`${R}/ATTRIBUTION_EVENTS/records`, body, '*'), 400, 'context.dateRangeDays', 'negative day count');
    });

    test('a valid request: its tag and * are 304 with the tag; a tag this process issued costs no plan', async () => {
      const url = `${GVA}/records?size=2`;
      const first = await post(url, {});
      const started = performance.now();
      assert.equal(first.statusCode, 200);
      const etag = String(first.headers.etag);
      assert.match(etag, /^W\/"\d+\.[0-9a-f]{8}-[\w-]+"$/);

      const again = await post(url, {}, etag);
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
      assert.equal(again.headers.etag, etag);
      assert.match(String(again.headers['server-timing']), /^plan;dur=0\.00,/, 'the fast path plans nothing');

      const star = await post(url, {}, '*');
      assert.equal(star.statusCode, 304, star.body);
      assert.equal(star.headers.etag, etag);
      assert.match(String(star.headers['server-timing']), /^plan;dur=0\.00,/, '* on a request answered before plans nothing');
      // A 304's times are the handler's, not the process's age (they were: render = uptime).
      for (const res of [again, star]) {
        const [, db, render] = String(res.headers['server-timing']).match(/db;dur=([\d.]+), render;dur=([\d.]+)$/)!;
        const elapsed = performance.now() - started;
        assert.ok(Number(render) < elapsed, `render;dur=${render} within the ${elapsed} ms since the requests began`);
        assert.ok(Number(db) < elapsed, `db;dur=${db} within the ${elapsed} ms since the requests began`);
      }

      // Weak comparison (RFC 9110 8.8.3.2): the same tag without W/ matches too; another does not.
      assert.equal((await post(url, {}, etag.slice(2))).statusCode, 304);
      const other = await post(url, {}, 'W/"1-nope"');
      assert.equal(other.statusCode, 200);
      assert.equal(other.headers.etag, etag);

      // A valid request never answered before: * is validated (planned), then 304 with its tag.
      for (const [u, body] of [
        [`${GVA}/records?size=7`, { filters: { city: 'Berlin' } }],
        [`${GVA}/filterdata?filterField=city`, {}],
        [`${GVA}/columns`, {}],
        [`${GVA}/dashboard`, { search: 'a' }],
      ] as const) {
        const fresh = await post(u, body, '*');
        assert.equal(fresh.statusCode, 304, `${u}: ${fresh.body}`);
        const plain = await post(u, body);
        assert.equal(plain.statusCode, 200);
        assert.equal(fresh.headers.etag, plain.headers.etag, `${u}: the 304 carries the tag a 200 would`);
      }
    });

    test('a tag issued by another instance is 304 after validation', async () => {
      const url = `${GVA}/records?size=3`;
      const first = await post(url, {});
      const etag = String(first.headers.etag);
      const config = { ...loadConfig({}), rateLimitPerMinute: 1_000_000 };
      const second = await buildApp({ config, database: f.database, logger: false, clock: () => NOW * 1000 });
      try {
        const res = await second.inject({ method: 'POST', url, headers: { 'api-key': f.keys.acme, 'content-type': 'application/json', 'if-none-match': etag }, payload: '{}' });
        assert.equal(res.statusCode, 304, res.body);
        assert.equal(res.headers.etag, etag);
        assert.doesNotMatch(String(res.headers['server-timing']), /^plan;dur=0\.00,/, 'validated (planned) before the 304');
      } finally {
        await second.close();
      }
    });
  });

  describe(`NUL characters: every field listed, on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine);
    });
    after(() => f.close());

    const fields = (res: LightMyRequestResponse) => {
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.headers.etag, undefined);
      const errors = res.json().errors as Array<{ field: string; message: string }>;
      return errors;
    };

    test('a body with NUL in several places lists each field, named as other errors name them', async () => {
      const body = { search: 'a\u0000', filters: { city: 'b\u0000', state: 'c\u0000' }, columns: ['account_name', 'd\u0000'] };
      const errors = fields(await f.call('POST', `${GVA}/records`, body));
      assert.deepEqual(errors, [
        { field: 'search', message: NUL_MESSAGE },
        { field: 'filters.city', message: NUL_MESSAGE },
        { field: 'filters.state', message: NUL_MESSAGE },
        { field: 'columns[1]', message: NUL_MESSAGE },
      ]);
      // The same with If-None-Match: * (the check runs before any conditional answer).
      const star = await f.app.inject({ method: 'POST', url: `${GVA}/records`, headers: { 'api-key': f.keys.acme, 'content-type': 'application/json', 'if-none-match': '*' }, payload: JSON.stringify(body) });
      assert.equal(fields(star).length, 4);
    });

    test('nested context values, keys and query parameters are named by their path', async () => {
      const body = { context: { partnerPublicIds: [ORG.ALPHA, 'x\u0000'] }, filters: { 'ci\u0000ty': 'x' } };
      const errors = fields(await f.call('POST', `${R}/ATTRIBUTION_EVENTS/filterdata?filterField=a%00b&filterSearch=%00`, body));
      assert.deepEqual(
        errors.map((e) => e.field),
        // The context's other problem (no event types) is still found: only the NUL value is kept from the planner.
        ['context.partnerPublicIds[1]', 'filters.ci\\u0000ty', 'filterField', 'filterSearch', 'context.eventTypeCodes'],
      );
      const repeated = fields(await f.call('POST', `${GVA}/records?sort=account_name&sort=city%00`, {}));
      assert.deepEqual(repeated.map((e) => e.field), ['sort[1]']);
    });

    test("the schema's and the planner's problems with the other fields are listed after the NUL ones", async () => {
      const body = { search: 'a\u0000', columns: 'account_name', filters: { nope: 'x' } };
      assert.deepEqual(fields(await f.call('POST', `${GVA}/records?size=0`, body)), [
        { field: 'search', message: NUL_MESSAGE },
        { field: 'columns', message: 'must be array' },
        { field: 'size', message: 'must be an integer >= 1, got "0"' },
        { field: 'filters.nope', message: fields(await f.call('POST', `${GVA}/records`, { filters: { nope: 'x' } }))[0]!.message },
      ]);
      // A query parameter holding NUL is not planned: no "unknown filterField" beside it.
      const query = fields(await f.call('POST', `${GVA}/filterdata?filterField=a%00b`, { filters: { nope: 'x' } }));
      assert.deepEqual(query.map((e) => e.field), ['filterField', 'filters.nope']);
    });

    test("a NUL keeps only its own value from the planner: its siblings' problems are listed", async () => {
      const messageOf = async (url: string, body: unknown, field: string) => {
        const found = fields(await f.call('POST', url, body)).find((e) => e.field === field);
        assert.ok(found, `${field} is refused without a NUL too`);
        return found.message;
      };
      const range = await messageOf(`${GVA}/records`, { filters: { city: 'a<->b' } }, 'filters.city');
      // Beside a NUL in another filter.
      assert.deepEqual(fields(await f.call('POST', `${GVA}/records`, { filters: { city: 'a<->b', state: 'x\u0000' } })), [
        { field: 'filters.state', message: NUL_MESSAGE },
        { field: 'filters.city', message: range },
      ]);
      // Beside a NUL in another column of the selection.
      const unknown = await messageOf(`${GVA}/records`, { columns: ['nope'] }, 'columns[0]');
      assert.deepEqual(fields(await f.call('POST', `${GVA}/records`, { columns: ['nope', 'a\u0000'] })), [
        { field: 'columns[1]', message: NUL_MESSAGE },
        { field: 'columns[0]', message: unknown },
      ]);
      // Beside a NUL inside the context: the rest of the context is still checked.
      const events = `${R}/ATTRIBUTION_EVENTS/records`;
      const context = { partnerPublicIds: [ORG.ALPHA], eventTypeCodes: ['NOPE'], dateRangeDays: -1 };
      const code = await messageOf(events, { context }, 'context.eventTypeCodes[0]');
      const days = await messageOf(events, { context }, 'context.dateRangeDays');
      assert.deepEqual(fields(await f.call('POST', events, { context: { ...context, partnerPublicIds: ['\u0000'] } })), [
        { field: 'context.partnerPublicIds[0]', message: NUL_MESSAGE },
        { field: 'context.eventTypeCodes[0]', message: code },
        { field: 'context.dateRangeDays', message: days },
      ]);
      // A query parameter holding NUL beside a value the schema refuses: the other filter is still planned.
      const withPage = fields(await f.call('POST', `${GVA}/records?page=%00`, { filters: { city: 5, state: 'a<->b' } }));
      assert.deepEqual(withPage.map((e) => e.field), ['page', 'filters.city', 'filters.state']);
    });

    test('a key holding NUL is named once, escaped, and the rest of the body is still checked', async () => {
      const events = `${R}/ATTRIBUTION_EVENTS/records`;
      const errors = fields(await f.call('POST', events, { 'x\u0000': 1, context: { partnerPublicIds: [ORG.ALPHA], eventTypeCodes: 'A', dateRangeDays: -1 } }));
      assert.deepEqual(errors.map((e) => e.field), ['x\\u0000', 'context.eventTypeCodes', 'context.dateRangeDays']);
      assert.equal(errors[0]!.message, NUL_MESSAGE);
      assert.ok(errors.every((e) => !e.field.includes('\u0000')));
    });

    test('the number of entries stays bounded', async () => {
      const n = MAX_FIELD_ERRORS + 50;
      const errors = fields(await f.call('POST', `${GVA}/records`, { columns: Array.from({ length: n }, (_, i) => `c${i}\u0000`) }));
      assert.equal(errors.length, MAX_FIELD_ERRORS + 1);
      assert.equal(errors[0]!.field, 'columns[0]');
      assert.deepEqual(errors.at(-1), { field: 'request', message: '50 more problems not listed' });
    });

    test('a deeply nested body is a 400, not a stack overflow', async () => {
      const depth = 200_000;
      const payload = `${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}`;
      const res = await f.app.inject({ method: 'POST', url: `${GVA}/records`, headers: { 'api-key': f.keys.acme, 'content-type': 'application/json' }, payload });
      assert.equal(res.statusCode, 400, res.body.slice(0, 300));
    });
  });
}
