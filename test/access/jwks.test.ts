/**
 * Bearer tokens verified with keys from a remote JWKS (JWT_JWKS_URL over http): a JWKS
 * that cannot be fetched (nothing listening, a 500, a body that is not JSON, JSON that is
 * not a key set, a timeout) is a 503 with Retry-After, a dependency down (contract
 * section 1); a token the fetched keys refuse stays 401.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import type { LightMyRequestResponse } from 'fastify';
import { engines } from '../helpers/engines.js';
import { NOW, fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { ORG, USERS } from '../fixtures/small-bundle.js';
import { loadConfig } from '../../src/config.js';
import { createTokenVerifier } from '../../src/server/access/jwt.js';
import { ApiError } from '../../src/server/errors.js';

const URL = '/v1/attribution/event-types';
const CLAIMS = { sub: USERS.ACME_MEMBER, org: ORG.ACME, role: 'MEMBER' };

const keys = await generateKeyPair('RS256');
const otherKeys = await generateKeyPair('RS256');
const JWKS = JSON.stringify({ keys: [{ ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'RS256' }] });

const token = (options: { kid?: string; exp?: number; key?: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"] } = {}) =>
  new SignJWT(CLAIMS)
    .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? 'k1' })
    .setExpirationTime(options.exp ?? NOW + 600)
    .sign(options.key ?? keys.privateKey);

/** What the JWKS server answers next. */
type Mode = 'error 500' | 'not json' | 'not a key set' | 'jwks';
const ANSWERS: Record<Mode, { status: number; body: string }> = {
  'error 500': { status: 500, body: 'internal error' },
  'not json': { status: 200, body: '<html>surprise</html>' },
  'not a key set': { status: 200, body: '{"keys": "none"}' },
  jwks: { status: 200, body: JWKS },
};

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

function assertUnavailable(res: LightMyRequestResponse, what: string): void {
  assert.equal(res.statusCode, 503, `${what}: ${res.body}`);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/, what);
  assert.match(String(res.headers['retry-after']), /^\d+$/, what);
  assert.equal(res.headers['www-authenticate'], undefined, `${what}: not a credentials problem`);
  const body = res.json();
  assert.equal(body.status, 503, what);
  assert.equal(body.code, 'PR503', what);
  assert.equal(body.detail.includes('127.0.0.1'), false, `${what}: the JWKS address is not shown`);
}

for (const engine of engines) {
  describe(`remote JWKS on ${engine.name}`, () => {
    let mode: Mode = 'error 500';
    let fetches = 0;
    const jwksServer = createServer((_req, res) => {
      fetches++;
      const { status, body } = ANSWERS[mode];
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
    let f: FixtureApp;
    let down: FixtureApp;
    before(async () => {
      const port = await listen(jwksServer);
      f = await fixtureApp(engine, { config: { jwtJwksUrl: `http://127.0.0.1:${port}/jwks.json` } });
      // A port that was just open and is closed again: nothing listens there.
      const gone = createServer();
      const closedPort = await listen(gone);
      await close(gone);
      down = await fixtureApp(engine, { config: { jwtJwksUrl: `http://127.0.0.1:${closedPort}/jwks.json` } });
    });
    after(async () => {
      await f.close();
      await down.close();
      await close(jwksServer);
    });
    const get = (app: FixtureApp, bearer: string) => app.app.inject({ method: 'GET', url: URL, headers: { authorization: `Bearer ${bearer}` } });

    test('nothing listening at JWT_JWKS_URL: 503 with Retry-After, not 401', async () => {
      assertUnavailable(await get(down, await token()), 'connection refused');
    });

    test('a JWKS answering 500, a body that is not JSON or JSON that is not a key set: 503; once it serves keys, 200 and 401 by the token', async () => {
      for (const m of ['error 500', 'not json', 'not a key set'] as const) {
        mode = m;
        const before = fetches;
        assertUnavailable(await get(f, await token()), m);
        assert.ok(fetches > before, `${m}: the JWKS was asked`);
      }
      mode = 'jwks';
      const ok = await get(f, await token());
      assert.equal(ok.statusCode, 200, ok.body);
      // Keys fetched: what the token gets wrong is the caller's fault.
      const refused = {
        'bad signature': await token({ key: otherKeys.privateKey }),
        'unknown kid': await token({ kid: 'k2' }),
        expired: await token({ exp: NOW - 1 }),
      };
      for (const [what, bearer] of Object.entries(refused)) {
        const res = await get(f, bearer);
        assert.equal(res.statusCode, 401, `${what}: ${res.body}`);
        assert.equal(res.headers['www-authenticate'], 'ApiKey, Bearer', what);
      }
    });
  });
}

test('a JWKS fetch that times out is a 503 ApiError; a token it could verify is accepted', async () => {
  const config = { ...loadConfig({}), jwtJwksUrl: 'http://jwks.invalid/jwks.json' };
  let timedOut = true;
  // jose turns fetch's TimeoutError (its AbortSignal.timeout) into JWKSTimeout.
  const fetchKeys = async () => {
    if (timedOut) throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    return new Response(JWKS, { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const verify = createTokenVerifier(config, () => NOW * 1000, { fetchKeys })!;
  await assert.rejects(verify(await token()), (error: unknown) => error instanceof ApiError && error.status === 503 && error.headers['retry-after'] !== undefined);
  timedOut = false;
  assert.deepEqual(await verify(await token()), { sub: CLAIMS.sub, org: CLAIMS.org, role: 'MEMBER' });
  assert.equal(await verify(await token({ kid: 'k2' })), undefined, 'an unknown kid after a successful fetch is an invalid token');
});

test('with a JWKS and JWT_SECRET both set, HS256 tokens (the sign-in route signs them) use the secret, others the key set', async () => {
  const secret = 'a secret of at least thirty-two characters!';
  const config = { ...loadConfig({}), jwtJwksUrl: 'http://jwks.example/jwks.json', jwtSecret: secret };
  const fetchKeys = async () => new Response(JWKS, { status: 200, headers: { 'content-type': 'application/json' } });
  const verify = createTokenVerifier(config, () => NOW * 1000, { fetchKeys })!;
  const hs256 = (key: string) => new SignJWT(CLAIMS).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(NOW + 600).sign(new TextEncoder().encode(key));
  const claims = { sub: CLAIMS.sub, org: CLAIMS.org, role: 'MEMBER' };
  assert.deepEqual(await verify(await hs256(secret)), claims, 'a token signed with the secret');
  assert.deepEqual(await verify(await token()), claims, 'a token signed with a key of the set');
  assert.equal(await verify(await hs256('another secret of thirty-two characters..')), undefined, 'another secret');
  assert.equal(await verify(await token({ key: otherKeys.privateKey })), undefined, 'a key not in the set');
  // Without the secret, the key set alone decides: an HS256 token is no caller.
  const setOnly = createTokenVerifier({ ...config, jwtSecret: undefined }, () => NOW * 1000, { fetchKeys })!;
  assert.equal(await setOnly(await hs256(secret)), undefined);
});
