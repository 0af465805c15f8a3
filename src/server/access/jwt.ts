/**
 * Bearer tokens (contract section 5): JWTs verified with jose, HS256 with JWT_SECRET or
 * keys from a JWKS (JWT_JWKS_URL: an http(s) URL, a file: URL or a file path); `exp` and
 * `nbf` when the token carries them (RFC 7519 section 4.1: both are optional), `iss`/`aud`
 * when configured. Claims: sub (user email), org (organization publicId), role (ADMIN |
 * MEMBER, in any case; without it the user's own role applies).
 *
 * A token that fails verification is no caller (401). A JWKS that cannot be fetched says
 * nothing about the token: that is a dependency down, a 503 with Retry-After (contract
 * section 1), so that clients retry instead of discarding a good token.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  errors,
  jwtVerify,
  type FetchImplementation,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { ConfigError, type Config } from '../../config.js';
import { unavailable } from '../errors.js';

export interface TokenClaims {
  sub: string;
  org: string;
  /** Undefined when the token carries no role: the user's role as imported applies. */
  role: 'ADMIN' | 'MEMBER' | undefined;
}

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The claims of a valid token, undefined for any other token; throws a 503 ApiError when the JWKS cannot be fetched. */
export type TokenVerifier = (token: string) => Promise<TokenClaims | undefined>;

/** The remote key set could not be loaded (carries jose's or fetch's error as its cause). */
class KeySetUnavailable extends Error {}

/**
 * What a remote key set throws because of the token (after a successful fetch): no key
 * or several keys match its `kid`/`alg`, or its `alg` cannot come from a JWKS. Everything
 * else it throws is about loading the set (jose 6 jwks/remote.js): JWKSTimeout, a plain
 * JOSEError (ERR_JOSE_GENERIC) for a status other than 200 or a body that is not JSON,
 * JWKSInvalid for JSON that is not a key set, and fetch's own errors (connection refused,
 * DNS, reset).
 */
const TOKEN_FAULTS = new Set<string>([errors.JWKSNoMatchingKey.code, errors.JWKSMultipleMatchingKeys.code, errors.JOSENotSupported.code]);

/**
 * A JWKS file, read once at start. A file that cannot be read or holds no key set stops
 * the start with that one line (config.ts's problems), not a stack trace.
 */
function localKeySet(source: string): JWTVerifyGetKey {
  // Schemes are case-insensitive (RFC 3986 3.1), as config.ts accepts them.
  const path = /^file:/i.test(source) ? fileURLToPath(new URL(source)) : source;
  try {
    return createLocalJWKSet(JSON.parse(readFileSync(path, 'utf8')));
  } catch (error) {
    throw new ConfigError([`JWT_JWKS_URL: ${path} is not a readable JSON Web Key Set (${error instanceof Error ? error.message : String(error)})`]);
  }
}

function remoteKeySet(url: URL, fetchKeys: FetchImplementation | undefined): JWTVerifyGetKey {
  const keys = createRemoteJWKSet(url, fetchKeys ? { [customFetch]: fetchKeys } : {});
  return async (header, token) => {
    try {
      return await keys(header, token);
    } catch (error) {
      if (error instanceof errors.JOSEError && TOKEN_FAULTS.has(error.code)) throw error;
      throw new KeySetUnavailable('the JWKS could not be loaded', { cause: error });
    }
  };
}

export interface TokenVerifierOptions {
  /** How the remote JWKS is fetched (default: the global fetch); for tests. */
  fetchKeys?: FetchImplementation;
}

export function createTokenVerifier(config: Config, clock: () => number, options: TokenVerifierOptions = {}): TokenVerifier | undefined {
  const secret = config.jwtSecret ? new TextEncoder().encode(config.jwtSecret) : undefined;
  let keySet: JWTVerifyGetKey | undefined;
  if (config.jwtJwksUrl) {
    const source = config.jwtJwksUrl;
    keySet = /^https?:/i.test(source) ? remoteKeySet(new URL(source), options.fetchKeys) : localKeySet(source);
  }
  if (!secret && !keySet) return undefined;
  // With both, a token's `alg` chooses: HS256 is checked with the secret (the tokens
  // POST /v1/auth/token signs), any other with the key set. A key set never verifies an
  // HS256 token and the secret never another algorithm, so neither can stand in for the other.
  const key: JWTVerifyGetKey | Uint8Array = keySet ? (secret ? (header, token) => (header.alg === 'HS256' ? secret : keySet(header, token)) : keySet) : secret!;
  const algorithms = keySet ? undefined : ['HS256'];

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
    } catch (error) {
      if (error instanceof KeySetUnavailable) {
        throw unavailable('the keys that verify bearer tokens (JWKS) could not be fetched; retry shortly', undefined, error.cause);
      }
      return undefined;
    }
    const { sub, org, role: claimed } = payload as JWTPayload & { org?: unknown; role?: unknown };
    // The contract names the roles in capitals; an issuer that writes `admin` means the same.
    const role = typeof claimed === 'string' ? claimed.toUpperCase() : claimed;
    if (typeof sub !== 'string' || typeof org !== 'string' || (role !== undefined && role !== 'ADMIN' && role !== 'MEMBER')) return undefined;
    // The publicId in its canonical form only (PostgreSQL would also read other spellings of
    // a uuid, and would fail on garbage): one organization, one way to name it.
    if (!CANONICAL_UUID.test(org) || sub.length > 320) return undefined;
    // No `exp` requirement: jose refuses an expired token, and whether a token expires is the
    // issuer's choice (RFC 7519 section 4.1.4), which the contract leaves to it.
    return { sub, org: org.toLowerCase(), role };
  };
}
