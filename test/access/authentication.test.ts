/** API keys, bearer tokens, key administration and request hardening over HTTP. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { keysCreate as runKeysCreate } from '../../src/cli/keys.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { engines } from '../helpers/engines.js';
import { NOW, fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { ORG, USERS } from '../fixtures/small-bundle.js';
import { hashPassword } from '../../src/server/access/passwords.js';

const SECRET = 'test-secret-with-enough-length-1234567890';
const URL = '/v1/attribution/event-types';

/** An HS256 token; `exp: null` leaves the expiry out. */
async function hsToken(claims: Record<string, unknown>, options: { exp?: number | null; nbf?: number; secret?: string; iss?: string; aud?: string } = {}): Promise<string> {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(NOW - 10);
  if (options.exp !== null) jwt = jwt.setExpirationTime(options.exp ?? NOW + 600);
  if (options.nbf) jwt = jwt.setNotBefore(options.nbf);
  if (options.iss) jwt = jwt.setIssuer(options.iss);
  if (options.aud) jwt = jwt.setAudience(options.aud);
  return jwt.sign(new TextEncoder().encode(options.secret ?? SECRET));
}

for (const engine of engines) {
  describe(`access on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine, { config: { jwtSecret: SECRET, jwtIssuer: 'partner-reports-test', jwtAudience: 'reports' } });
    });
    after(() => f.close());

    const get = (headers: Record<string, string>) => f.app.inject({ method: 'GET', url: URL, headers });

    test('missing, malformed and unknown credentials are 401 with one message and WWW-Authenticate', async () => {
      const answers = await Promise.all([get({}), get({ 'api-key': '' }), get({ 'api-key': 'prk_not-a-real-key' }), get({ authorization: 'Bearer nope' }), get({ authorization: 'Basic abc' })]);
      for (const res of answers) {
        assert.equal(res.statusCode, 401);
        assert.equal(res.headers['www-authenticate'], 'ApiKey, Bearer');
        assert.match(String(res.headers['content-type']), /application\/problem\+json/);
      }
      assert.equal(new Set(answers.map((r) => r.json().detail)).size, 1);
      const publicRoutes = await Promise.all(['/healthz', '/readyz', '/openapi.json'].map((url) => f.app.inject({ method: 'GET', url })));
      assert.deepEqual(publicRoutes.map((r) => r.statusCode), [200, 200, 200]);
      assert.equal((await f.app.inject({ method: 'GET', url: '/no/such/path' })).statusCode, 404);
    });

    test('bearer tokens: HS256 with sub, org, role; exp, nbf, iss and aud are checked', async () => {
      const claims = { sub: USERS.ACME_ADMIN, org: ORG.ACME, role: 'ADMIN' };
      const good = await hsToken(claims, { iss: 'partner-reports-test', aud: 'reports' });
      const ok = await get({ authorization: `Bearer ${good}` });
      assert.equal(ok.statusCode, 200, ok.body);
      // The scheme name is case-insensitive (RFC 9110 section 11.1).
      for (const scheme of ['bearer', 'BEARER']) assert.equal((await get({ authorization: `${scheme} ${good}` })).statusCode, 200, scheme);
      assert.match(String(ok.headers.ratelimit), /^"default";r=\d+;t=\d+$/);
      const bad = [
        await hsToken(claims, { iss: 'partner-reports-test', aud: 'reports', exp: NOW - 1 }),
        await hsToken(claims, { iss: 'partner-reports-test', aud: 'reports', nbf: NOW + 60 }),
        await hsToken(claims, { iss: 'partner-reports-test', aud: 'reports', secret: 'another-secret-another-secret-00000' }),
        await hsToken(claims, { iss: 'someone-else', aud: 'reports' }),
        await hsToken(claims, { iss: 'partner-reports-test', aud: 'elsewhere' }),
        await hsToken({ ...claims, org: ORG.OTHER }, { iss: 'partner-reports-test', aud: 'reports' }),
        await hsToken({ ...claims, role: 'ROOT' }, { iss: 'partner-reports-test', aud: 'reports' }),
      ];
      for (const token of bad) assert.equal((await get({ authorization: `Bearer ${token}` })).statusCode, 401);
      // A present but wrong api-key is 401 even with a valid bearer token.
      assert.equal((await get({ 'api-key': 'prk_wrong', authorization: `Bearer ${good}` })).statusCode, 401);
      // The token's organization scopes the data like a key of that organization.
      const res = await f.app.inject({ method: 'POST', url: '/v1/channelecosystem/records', headers: { authorization: `Bearer ${good}`, 'content-type': 'application/json' }, payload: JSON.stringify({ channelReportType: 'PARTNER_ORG_CONNECTED_PARTNER_ORGS' }) });
      assert.equal(res.json().totalElements, 3);
    });

    test('bearer tokens: exp optional (checked when present), role in any case or absent (the user\'s own), an empty api-key is no key', async () => {
      const iss = { iss: 'partner-reports-test', aud: 'reports' };
      const admin = (token: string, extra: Record<string, string> = {}) => f.app.inject({ method: 'GET', url: '/v1/admin/api-keys', headers: { authorization: `Bearer ${token}`, ...extra } });
      // RFC 7519 makes `exp` optional; the contract names no expiry requirement.
      const noExpiry = await hsToken({ sub: USERS.ACME_ADMIN, org: ORG.ACME, role: 'ADMIN' }, { ...iss, exp: null });
      assert.equal((await get({ authorization: `Bearer ${noExpiry}` })).statusCode, 200);
      assert.equal((await admin(noExpiry)).statusCode, 200);
      // The role in lower case is the same role.
      assert.equal((await admin(await hsToken({ sub: USERS.ACME_ADMIN, org: ORG.ACME, role: 'admin' }, iss))).statusCode, 200);
      assert.equal((await admin(await hsToken({ sub: USERS.ACME_ADMIN, org: ORG.ACME, role: 'member' }, iss))).statusCode, 403);
      // Without a role the user's imported role applies: the admin may, the member may not.
      assert.equal((await admin(await hsToken({ sub: USERS.ACME_ADMIN, org: ORG.ACME }, iss))).statusCode, 200);
      const member = await hsToken({ sub: USERS.ACME_MEMBER, org: ORG.ACME }, iss);
      assert.equal((await get({ authorization: `Bearer ${member}` })).statusCode, 200);
      assert.equal((await admin(member)).statusCode, 403);
      // A role that is neither, or not a string, is no valid token.
      for (const role of ['ROOT', 7, null]) assert.equal((await get({ authorization: `Bearer ${await hsToken({ sub: USERS.ACME_ADMIN, org: ORG.ACME, role }, iss)}` })).statusCode, 401, String(role));
      // An empty api-key header is as good as none: the bearer token is the credential.
      assert.equal((await get({ 'api-key': '', authorization: `Bearer ${noExpiry}` })).statusCode, 200);
      assert.equal((await get({ 'api-key': '' })).statusCode, 401);
    });

    test('bearer tokens from a JWKS file', async () => {
      const { publicKey, privateKey } = await generateKeyPair('RS256');
      const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256' };
      const dir = mkdtempSync(join(tmpdir(), 'pr-jwks-'));
      writeFileSync(join(dir, 'jwks.json'), JSON.stringify({ keys: [jwk] }));
      const g = await fixtureApp(engine, { config: { jwtJwksUrl: join(dir, 'jwks.json') } });
      try {
        const token = await new SignJWT({ sub: USERS.ACME_MEMBER, org: ORG.ACME, role: 'MEMBER' }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setExpirationTime(NOW + 60).sign(privateKey);
        const res = await g.app.inject({ method: 'GET', url: URL, headers: { authorization: `Bearer ${token}` } });
        assert.equal(res.statusCode, 200, res.body);
        const hs = await hsToken({ sub: USERS.ACME_MEMBER, org: ORG.ACME, role: 'MEMBER' });
        assert.equal((await g.app.inject({ method: 'GET', url: URL, headers: { authorization: `Bearer ${hs}` } })).statusCode, 401);
      } finally {
        await g.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    test('key administration: ADMIN only, own organization only, revocation effective at once', async () => {
      const admin = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, key = f.keys.acme) =>
        f.app.inject({ method, url, headers: { 'api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { payload: JSON.stringify(body) } : {}) });
      assert.equal((await admin('GET', '/v1/admin/api-keys', undefined, f.keys.acmeMember)).statusCode, 403);
      assert.equal((await admin('POST', '/v1/admin/api-keys', { name: 'x' }, f.keys.acmeMember)).statusCode, 403);
      const created = await admin('POST', '/v1/admin/api-keys', { name: 'BI export' });
      assert.equal(created.statusCode, 201);
      const body = created.json();
      assert.match(body.key, /^prk_/);
      assert.equal(body.creator, USERS.ACME_ADMIN);
      assert.equal((await get({ 'api-key': body.key })).statusCode, 200);
      const list = await admin('GET', '/v1/admin/api-keys');
      assert.equal(list.statusCode, 200);
      assert.ok(list.json().some((k: any) => k.id === body.id && k.name === 'BI export' && k.prefix === body.key.slice(0, 12)));
      assert.equal(list.body.includes(body.key), false, 'the list never shows a key');
      assert.equal((await admin('GET', '/v1/admin/api-keys', undefined, f.keys.other)).json().some((k: any) => k.id === body.id), false);
      assert.equal((await admin('DELETE', `/v1/admin/api-keys/${body.id}`, undefined, f.keys.other)).statusCode, 404, "another organization's key is not found");
      assert.equal((await admin('DELETE', '/v1/admin/api-keys/not-a-uuid')).statusCode, 404);
      assert.equal((await admin('DELETE', `/v1/admin/api-keys/${body.id}`)).statusCode, 204);
      assert.equal((await get({ 'api-key': body.key })).statusCode, 401, 'revoked on the next request');
      const revoked = (await admin('GET', '/v1/admin/api-keys')).json().find((k: any) => k.id === body.id);
      assert.equal(typeof revoked.revokedAt, 'string');
      assert.equal((await admin('POST', '/v1/admin/api-keys', { name: '' })).statusCode, 400);
      // A name is a label: no tab or line break (they would break `keys list`), as on the command line.
      for (const name of ['tab\there', 'two\nlines', 'x'.repeat(101), 'a\u202eb']) {
        const refused = await admin('POST', '/v1/admin/api-keys', { name });
        assert.equal(refused.statusCode, 400, JSON.stringify(name));
        assert.equal(refused.json().errors[0].field, 'name');
      }
      // With another field the schema refuses, the name is named in the same answer.
      const both = await admin('POST', '/v1/admin/api-keys', { name: 'a\nb', foo: 1 });
      assert.deepEqual(both.json().errors.map((e: any) => e.field).sort(), ['foo', 'name']);
      const keysCreate = (name: string) => runKeysCreate({ database: f.database, out: () => {} } as never, { org: ORG.ACME, user: USERS.ACME_ADMIN, name });
      await assert.rejects(keysCreate('tab\there'), /--name must be 1-100 characters without control characters/);
      await assert.rejects(keysCreate(''), /--name must be 1-100 characters/);
      await keysCreate('Zoë ✓ BI');
    });

    test('hardening: 413 over 1 MiB, 415 for non-JSON, 405 with Allow, security headers', async () => {
      const big = await f.app.inject({ method: 'POST', url: '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records', headers: { 'api-key': f.keys.acme, 'content-type': 'application/json' }, payload: JSON.stringify({ search: 'x'.repeat(1_100_000) }) });
      assert.equal(big.statusCode, 413);
      const text = await f.app.inject({ method: 'POST', url: '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records', headers: { 'api-key': f.keys.acme, 'content-type': 'text/plain' }, payload: 'hello' });
      assert.equal(text.statusCode, 415);
      const wrongMethod = await f.app.inject({ method: 'GET', url: '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records', headers: { 'api-key': f.keys.acme } });
      assert.equal(wrongMethod.statusCode, 405);
      assert.equal(wrongMethod.headers.allow, 'POST');
      // OPTIONS and HEAD are methods too: a known path answers them 405 with Allow, not 404.
      for (const method of ['OPTIONS', 'HEAD'] as const) {
        const other = await f.app.inject({ method, url: '/v1/channelecosystem/records', headers: { 'api-key': f.keys.acme } });
        assert.deepEqual([method, other.statusCode, other.headers.allow], [method, 405, 'POST']);
      }
      // HEAD where GET is served is GET without its body.
      const head = await f.app.inject({ method: 'HEAD', url: URL, headers: { 'api-key': f.keys.acme } });
      assert.deepEqual([head.statusCode, head.body], [200, '']);
      const ok = await get({ 'api-key': f.keys.acme });
      assert.equal(ok.headers['x-content-type-options'], 'nosniff');
      // An answer for one caller: no shared cache keeps it, a client revalidates it.
      assert.equal(ok.headers['cache-control'], 'private, no-cache');
      assert.equal(ok.headers.vary, 'api-key, authorization');
      for (const res of [
        await f.app.inject({ method: 'POST', url: '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records', headers: { 'api-key': f.keys.acme }, payload: {} }),
        await f.app.inject({ method: 'POST', url: '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/download', headers: { 'api-key': f.keys.acme }, payload: {} }),
        await get({}),
        await f.app.inject({ method: 'PUT', url: '/v1/channelecosystem/records' }),
        await f.app.inject({ method: 'POST', url: '/v1/report-analytics/report/NOPE/records', payload: {} }),
        await f.app.inject({ method: 'GET', url: '/nowhere' }),
      ]) {
        assert.equal(res.headers['cache-control'], 'private, no-cache', String(res.statusCode));
        assert.match(String(res.headers.vary), /api-key, authorization/);
      }
      for (const url of ['/healthz', '/openapi.json', '/docs/']) assert.equal((await f.app.inject({ method: 'GET', url })).headers['cache-control'], undefined, url);
      // Sign-in by whatever URL form reaches its route; a router error is a caller's answer too.
      for (const url of ['/v1/auth/token', '/v1/auth/token/', '/v1/auth/%74oken']) {
        const refusedSignIn = await f.app.inject({ method: 'POST', url, payload: {} });
        assert.deepEqual([refusedSignIn.statusCode, refusedSignIn.headers['cache-control']], [400, 'no-store'], url);
      }
      const badEncoding = await f.app.inject({ method: 'POST', url: '/v1/report-analytics/report/%zz/records', payload: {} });
      assert.deepEqual([badEncoding.statusCode, badEncoding.headers['cache-control'], typeof badEncoding.headers['x-request-id']], [400, 'private, no-cache', 'string']);
      // An unknown path is answered after the security headers are set, like every other answer.
      assert.equal((await f.app.inject({ method: 'GET', url: '/nowhere' })).headers['x-content-type-options'], 'nosniff');
      assert.equal(ok.headers['access-control-allow-origin'], undefined, 'CORS is off by default');
      assert.ok(ok.headers['x-request-id']);
      const echoed = await f.app.inject({ method: 'GET', url: URL, headers: { 'api-key': f.keys.acme, 'x-request-id': 'abc-123' } });
      assert.equal(echoed.headers['x-request-id'], 'abc-123');
    });

    test('with CORS on, OPTIONS is its preflight, not a 405', async () => {
      const g = await fixtureApp(engine, { config: { corsOrigins: ['https://bi.example'] } });
      try {
        const preflight = await g.app.inject({ method: 'OPTIONS', url: '/v1/channelecosystem/records', headers: { origin: 'https://bi.example', 'access-control-request-method': 'POST' } });
        assert.equal(preflight.statusCode, 204);
        assert.equal(preflight.headers['access-control-allow-origin'], 'https://bi.example');
        const revoke = await g.app.inject({ method: 'OPTIONS', url: '/v1/admin/api-keys/00000000-0000-0000-0000-000000000000', headers: { origin: 'https://bi.example', 'access-control-request-method': 'DELETE' } });
        assert.equal(revoke.statusCode, 204);
        assert.match(String(revoke.headers['access-control-allow-methods']), /DELETE/, 'a browser may revoke keys');
        // An OPTIONS that is no preflight is answered as without CORS: 405 on a known path, 404 elsewhere.
        for (const headers of [{}, { origin: 'https://bi.example' }]) {
          const known = await g.app.inject({ method: 'OPTIONS', url: '/v1/channelecosystem/records', headers });
          assert.equal(known.statusCode, 405, known.body);
          assert.equal(known.headers['content-type'], 'application/problem+json');
          assert.equal(known.headers.allow, 'POST');
          assert.equal((await g.app.inject({ method: 'OPTIONS', url: '/nope', headers })).statusCode, 404);
        }
        // A 404 carries the CORS headers too (it is answered after them).
        const unknownPath = await g.app.inject({ method: 'GET', url: '/nowhere', headers: { origin: 'https://bi.example' } });
        assert.deepEqual([unknownPath.statusCode, unknownPath.headers['access-control-allow-origin']], [404, 'https://bi.example']);
        // A browser may read the headers the service documents.
        const answer = await g.app.inject({ method: 'GET', url: '/v1/attribution/event-types', headers: { origin: 'https://bi.example', 'api-key': g.keys.acme } });
        assert.equal(answer.statusCode, 200);
        const exposed = String(answer.headers['access-control-expose-headers']).split(', ');
        for (const h of ['x-request-id', 'etag', 'ratelimit', 'retry-after', 'content-disposition', 'server-timing']) assert.ok(exposed.includes(h), h);
      } finally {
        await g.close();
      }
    });

    test('sign-in issues a bearer token; wrong credentials are 401; attempts are limited', async () => {
      await f.database.db.updateTable('users').set({ password_hash: await hashPassword('correct horse battery') }).where('email', '=', USERS.ACME_MEMBER).execute();
      const signIn = (email: string, password: string) => f.app.inject({ method: 'POST', url: '/v1/auth/token', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ email, password }) });
      const ok = await signIn(USERS.ACME_MEMBER, 'correct horse battery');
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(ok.headers['cache-control'], 'no-store', 'no cache keeps a token');
      assert.deepEqual([ok.json().token_type, ok.json().expires_in], ['Bearer', 900]);
      assert.equal((await get({ authorization: `Bearer ${ok.json().access_token}` })).statusCode, 200);
      const admin = await f.app.inject({ method: 'GET', url: '/v1/admin/api-keys', headers: { authorization: `Bearer ${ok.json().access_token}` } });
      assert.equal(admin.statusCode, 403, 'a MEMBER token is not an ADMIN');
      const wrong = await signIn(USERS.ACME_MEMBER, 'wrong');
      const unknown = await signIn('nobody@acme.test', 'whatever');
      assert.deepEqual([wrong.statusCode, unknown.statusCode], [401, 401]);
      assert.equal(wrong.json().detail, unknown.json().detail);
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push((await signIn(USERS.ACME_MEMBER, 'wrong again')).statusCode);
      assert.ok(statuses.includes(429), 'sign-in attempts are rate limited');
      assert.ok((await signIn(USERS.ACME_MEMBER, 'correct horse battery')).statusCode === 429, 'even the right password waits out the limit');
    });

    test('sign-in: an email shared by several users reveals nothing without its password; emails that differ in case are different users', async () => {
      const db = f.database.db;
      const orgId = async (publicId: string) => (await db.selectFrom('orgs').select('id').where('public_id', '=', publicId).executeTakeFirstOrThrow()).id;
      const [acme, other] = [await orgId(ORG.ACME), await orgId(ORG.OTHER)];
      await db.insertInto('users').values([
        { org_id: acme, email: 'shared@x.test', name: 'Shared Acme' },
        { org_id: other, email: 'shared@x.test', name: 'Shared Other' },
        { org_id: acme, email: 'case@x.test', name: 'Lower Case' },
        { org_id: acme, email: 'Case@x.test', name: 'Upper Case' },
      ]).execute();
      const setPassword = async (org: number, email: string, password: string) => db.updateTable('users').set({ password_hash: await hashPassword(password) }).where('org_id', '=', org).where('email', '=', email).execute();
      // Each attempt from its own address: the per-address limit is not what this test is about.
      let address = 0;
      const signIn = (body: object) => f.app.inject({ method: 'POST', url: '/v1/auth/token', remoteAddress: `10.1.0.${++address}`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
      const claims = (res: { json(): any }) => JSON.parse(Buffer.from(res.json().access_token.split('.')[1], 'base64url').toString());
      const unknown = await signIn({ email: 'nobody@x.test', password: 'some password' });
      assert.equal(unknown.statusCode, 401);
      // Two users, no password set: the same 401 as an unknown email (it was a 400 asking for `org`).
      const shared = await signIn({ email: 'shared@x.test', password: 'some password' });
      assert.deepEqual([shared.statusCode, shared.json().detail], [401, unknown.json().detail]);
      await setPassword(acme, 'shared@x.test', 'acme password');
      assert.deepEqual([(await signIn({ email: 'shared@x.test', password: 'wrong password' })).statusCode], [401]);
      const acmeToken = await signIn({ email: 'SHARED@x.test', password: 'acme password' });
      assert.equal(acmeToken.statusCode, 200, acmeToken.body);
      assert.deepEqual([claims(acmeToken).sub, claims(acmeToken).org], ['shared@x.test', ORG.ACME], 'the one user the password signs in');
      // The same password in both organizations: only then is the caller asked for `org`.
      await setPassword(other, 'shared@x.test', 'acme password');
      const both = await signIn({ email: 'shared@x.test', password: 'acme password' });
      assert.deepEqual([both.statusCode, both.json().errors?.[0]?.field], [400, 'org']);
      const named = await signIn({ email: 'shared@x.test', password: 'acme password', org: ORG.OTHER });
      assert.deepEqual([named.statusCode, claims(named).org], [200, ORG.OTHER]);
      // Emails that differ only in case, in one organization: the password decides, then the case typed.
      await setPassword(acme, 'Case@x.test', 'upper password');
      const upper = await signIn({ email: 'CASE@x.test', password: 'upper password' });
      assert.deepEqual([upper.statusCode, claims(upper).sub], [200, 'Case@x.test']);
      await setPassword(acme, 'case@x.test', 'upper password');
      const lower = await signIn({ email: 'case@x.test', password: 'upper password', org: ORG.ACME });
      assert.deepEqual([lower.statusCode, claims(lower).sub], [200, 'case@x.test']);
      assert.equal((await signIn({ email: 'CASE@x.test', password: 'upper password', org: ORG.ACME })).statusCode, 400, 'neither is the one typed');
      // The token of the user picked works for that user.
      assert.equal((await get({ authorization: `Bearer ${upper.json().access_token}` })).statusCode, 200);
    });

    test('injection corpus: 4xx problem+json, never 500', async () => {
      const corpus = ["'", '"', "'; drop table orgs; --", '/* */', '\u0000', 'ünïcödé ✓', '%', '_', '\\', 'a'.repeat(10_000), '${x}', '<script>'];
      for (const bad of corpus) {
        const responses = await Promise.all([
          f.app.inject({ method: 'POST', url: `/v1/report-analytics/report/${encodeURIComponent(bad)}/records`, headers: { 'api-key': f.keys.acme, 'content-type': 'application/json' }, payload: '{}' }),
          f.app.inject({ method: 'POST', url: `/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records?sort=${encodeURIComponent(bad)}&page=${encodeURIComponent(bad)}`, headers: { 'api-key': f.keys.acme, 'content-type': 'application/json' }, payload: JSON.stringify({ filters: { [bad]: bad } }) }),
          f.app.inject({ method: 'POST', url: `/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/filterdata?filterField=${encodeURIComponent(bad)}`, headers: { 'api-key': f.keys.acme, 'content-type': 'application/json' }, payload: JSON.stringify({ search: bad, filters: { account_name: `${bad}-?-` } }) }),
          f.app.inject({ method: 'POST', url: '/v1/channelecosystem/records', headers: { 'api-key': f.keys.acme, 'content-type': 'application/json' }, payload: JSON.stringify({ channelReportType: 'PARTNER_ORG_MATCHED_ACCOUNTS', matchingType: 'MUTUAL', companyPartnerPublicId: bad }) }),
          f.app.inject({ method: 'DELETE', url: `/v1/admin/api-keys/${encodeURIComponent(bad)}`, headers: { 'api-key': f.keys.acme } }),
          f.app.inject({ method: 'GET', url: URL, headers: { 'api-key': bad.replace(/[^\x20-\x7e]/g, '?') } }),
        ]);
        for (const res of responses) {
          assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${JSON.stringify(bad).slice(0, 40)} -> ${res.statusCode} ${res.body.slice(0, 200)}`);
          assert.match(String(res.headers['content-type']), /application\/problem\+json/, `${res.statusCode} ${res.body.slice(0, 200)}`);
        }
        const search = await f.call('POST', '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records', { search: bad, filters: { account_name: `${bad}-?-` } });
        assert.ok(search.statusCode === 200 || search.statusCode === 400, `search ${search.statusCode}`);
      }
    });
  });
}
