/**
 * Bearer tokens (contract section 5): JWTs verified with jose, HS256 with JWT_SECRET or
 * keys from a JWKS (JWT_JWKS_URL: an http(s) URL, a file: URL or a file path); `exp` and
 * `nbf` always, `iss`/`aud` when configured. Claims: sub (user email), org (organization
 * publicId), role (ADMIN | MEMBER).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Config } from '../../config.js';

export interface TokenClaims {
  sub: string;
  org: string;
  role: 'ADMIN' | 'MEMBER';
}

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type TokenVerifier = (token: string) => Promise<TokenClaims | undefined>;

export function createTokenVerifier(config: Config, clock: () => number): TokenVerifier | undefined {
  let key: Uint8Array | JWTVerifyGetKey;
  let algorithms: string[] | undefined;
  if (config.jwtJwksUrl) {
    const source = config.jwtJwksUrl;
    if (/^https?:/.test(source)) key = createRemoteJWKSet(new URL(source));
    else key = createLocalJWKSet(JSON.parse(readFileSync(source.startsWith('file:') ? fileURLToPath(source) : source, 'utf8')));
  } else if (config.jwtSecret) {
    key = new TextEncoder().encode(config.jwtSecret);
    algorithms = ['HS256'];
  } else return undefined;

  return async (token) => {
    let payload: JWTPayload;
    try {
      const options = {
        currentDate: new Date(clock()),
        ...(algorithms ? { algorithms } : {}),
        ...(config.jwtIssuer ? { issuer: config.jwtIssuer } : {}),
        ...(config.jwtAudience ? { audience: config.jwtAudience } : {}),
      };
      payload = (typeof key === 'function' ? await jwtVerify(token, key, options) : await jwtVerify(token, key, options)).payload;
    } catch {
      return undefined;
    }
    const { sub, org, role } = payload as JWTPayload & { org?: unknown; role?: unknown };
    if (typeof sub !== 'string' || typeof org !== 'string' || (role !== 'ADMIN' && role !== 'MEMBER')) return undefined;
    // The publicId in its canonical form only (PostgreSQL would also read other spellings of
    // a uuid, and would fail on garbage): one organization, one way to name it.
    if (!CANONICAL_UUID.test(org) || sub.length > 320) return undefined;
    // A token without an expiry would be valid forever: refuse it.
    if (typeof payload.exp !== 'number') return undefined;
    return { sub, org: org.toLowerCase(), role };
  };
}
