/**
 * Which refusal wins when a request has several faults: an unknown reportType is 404
 * before any credential check (like an unknown path; docs/access.md), and a non-admin on
 * the key administration routes is 403 whatever the body (the role is checked before
 * the body is read or validated).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';

const R = '/v1/report-analytics/report';
const OPERATIONS = ['records', 'filterdata', 'columns', 'download', 'dashboard'];

function assertProblem(res: LightMyRequestResponse, status: number, what: string): Record<string, any> {
  assert.equal(res.statusCode, status, `${what}: ${res.body.slice(0, 300)}`);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/, what);
  return res.json();
}

for (const engine of engines) {
  describe(`answer order on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine);
    });
    after(() => f.close());
    const post = (url: string, headers: Record<string, string>, payload = '{}') => f.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload });

    test('an unknown reportType is 404 with or without credentials; a known one still needs them', async () => {
      for (const op of OPERATIONS) {
        const url = `${R}/FOO/${op}`;
        for (const [who, headers] of Object.entries<Record<string, string>>({ 'no credentials': {}, 'a wrong key': { 'api-key': 'prk_wrong' }, 'a bad bearer': { authorization: 'Bearer a.b.c' }, 'a valid key': { 'api-key': f.keys.acme } })) {
          const body = assertProblem(await post(url, headers), 404, `${url} with ${who}`);
          assert.match(body.detail, /unknown reportType "FOO"; valid report types: .*GLOBAL_VERTICAL_ACCOUNTS/, url);
        }
        // Answered before the body is read: a body that is not JSON does not change it.
        assertProblem(await post(url, {}, 'not json'), 404, `${url} with a body that is not JSON`);
        assertProblem(await post(url, { 'content-type': 'text/plain' }, 'x'), 404, `${url} with a text body`);

        const known = `${R}/GLOBAL_VERTICAL_ACCOUNTS/${op}`;
        for (const [who, headers] of Object.entries<Record<string, string>>({ 'no credentials': {}, 'a wrong key': { 'api-key': 'prk_wrong' } })) {
          const res = await post(known, headers);
          assertProblem(res, 401, `${known} with ${who}`);
          assert.equal(res.headers['www-authenticate'], 'ApiKey, Bearer');
        }
        assert.notEqual((await post(known, { 'api-key': f.keys.acme })).statusCode, 401, `${known} with a valid key`);
      }
    });

    test('a MEMBER is 403 on key administration whatever the body; an ADMIN gets the 400', async () => {
      const member = { 'api-key': f.keys.acmeMember };
      const bodies = { 'no name': '{}', 'an empty name': '{"name":""}', 'an unknown field': '{"name":"x","extra":1}', 'a name too long': JSON.stringify({ name: 'x'.repeat(101) }), 'not JSON': '{', 'a valid body': '{"name":"x"}' };
      for (const [what, payload] of Object.entries(bodies)) {
        assertProblem(await post('/v1/admin/api-keys', member, payload), 403, `MEMBER with ${what}`);
        if (what !== 'a valid body') assertProblem(await post('/v1/admin/api-keys', { 'api-key': f.keys.acme }, payload), 400, `ADMIN with ${what}`);
      }
      assertProblem(await post('/v1/admin/api-keys', { ...member, 'content-type': 'text/plain' }, 'x'), 403, 'MEMBER with a text body');
      assertProblem(await f.app.inject({ method: 'GET', url: '/v1/admin/api-keys', headers: member }), 403, 'MEMBER listing');
      assertProblem(await f.app.inject({ method: 'DELETE', url: '/v1/admin/api-keys/not-a-uuid', headers: member }), 403, 'MEMBER revoking');
      // Credentials are still checked first.
      assertProblem(await post('/v1/admin/api-keys', {}, '{}'), 401, 'no credentials');
      assert.equal((await f.app.inject({ method: 'GET', url: '/v1/admin/api-keys', headers: { 'api-key': f.keys.acme } })).statusCode, 200);
    });
  });
}
