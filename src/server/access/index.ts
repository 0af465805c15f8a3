/**
 * The access stage: who is calling (API key, else JWT bearer), may they, and the rolling
 * rate limit. Every route but the public ones (config.public, /docs) passes through it.
 *
 * Resolved callers are kept in memory, valid only while the data and credentials
 * versions (service_state, src/reports/data-version.ts) are the ones they were read
 * under. Every request reads both versions (one query per round trip, shared with the
 * report routes' ETag) before it uses a cached caller. Guarantee: a change to api_keys,
 * users or orgs (a revoked or deleted key, a deleted or re-roled user, an import, whether
 * through this instance, another instance, the CLI or plain SQL) is seen by every request
 * that reaches this stage after the change committed: that request's version read is
 * sent after it arrived (the reader never hands it a read already in flight), sees the new
 * credentials version, and so reads the key from the database again. There is no
 * time-to-live and no window during which a revoked key still works.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { Database } from '../../db/database.js';
import { tooManyRequests, unauthorized } from '../errors.js';
import { memoryRateLimiter, type RateLimiter } from './rate-limit.js';
import { redisRateLimiter } from './rate-limit-redis.js';
import { hashKey, sameHash } from './api-keys.js';
import { createTokenVerifier } from './jwt.js';
import { lastUsedRecorder } from './last-used.js';
import { serviceStateReader, type ServiceStateReader } from '../../reports/data-version.js';
import { LRUCache } from 'lru-cache';
import type { Caller } from './caller.js';
import './caller.js';

export interface AccessOptions {
  config: Config;
  database: Database;
  clock: () => number;
  /** Default: in memory with config.rateLimitPerMinute. */
  limiter?: RateLimiter;
  /** The versions reader shared with the report service (default: one of its own). */
  readState?: ServiceStateReader;
}

/** Distinct API keys and token subjects whose callers are kept (a bound, not a lifetime). */
const CALLERS_KEPT = 10_000;

interface KeptCaller {
  /** The data and credentials versions the caller was read under. */
  versions: string;
  caller: Caller;
}

// The scheme name is case-insensitive (RFC 9110 section 11.1): `bearer` and `BEARER` too.
const BEARER = /^Bearer\s+([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/i;

export async function registerAccess(app: FastifyInstance, options: AccessOptions): Promise<void> {
  const { db } = options.database;
  app.decorateRequest('caller', null as unknown as Caller);
  // First: a JWKS file that cannot be read stops the start before any connection is opened.
  const verifyToken = createTokenVerifier(options.config, options.clock);
  const limiter = options.limiter ?? defaultLimiter(app, options);
  const lastUsed = lastUsedRecorder(db, options.clock);
  const readState = options.readState ?? serviceStateReader(options.database);
  // Only callers that were let in are kept; unknown and revoked keys are read every time,
  // so guessing keys cannot fill the memory.
  const keptByKey = new LRUCache<string, KeptCaller>({ max: CALLERS_KEPT });
  const keptByToken = new LRUCache<string, KeptCaller>({ max: CALLERS_KEPT });
  app.addHook('onClose', async () => {
    await lastUsed.close();
    await limiter.close();
  });

  /** The caller of a bearer token: its organization must exist, and so must the user in it. */
  const callerFromToken = async (token: string, versions: string): Promise<Caller> => {
    const claims = verifyToken ? await verifyToken(token) : undefined;
    if (!claims) throw unauthorized();
    // The claims are verified on every request; only the rows they name are kept.
    const id = `${claims.org}\n${claims.sub}\n${claims.role ?? ''}`;
    const kept = keptByToken.get(id);
    if (kept?.versions === versions) return kept.caller;
    const row = await db
      .selectFrom('orgs')
      .innerJoin('users', 'users.org_id', 'orgs.id')
      .select(['orgs.id as org_id', 'orgs.public_id', 'users.id as user_id', 'users.email', 'users.role'])
      .where('orgs.public_id', '=', claims.org)
      .where('users.email', '=', claims.sub)
      .executeTakeFirst()
      .catch(() => undefined);
    if (!row) throw unauthorized();
    const caller: Caller = Object.freeze({ orgId: row.org_id, orgPublicId: row.public_id, userId: row.user_id, email: row.email, role: claims.role ?? row.role ?? 'MEMBER', keyId: null, rateKey: `token:${row.org_id}:${row.email}` });
    keptByToken.set(id, { versions, caller });
    return caller;
  };

  /** The caller of an API key (by its hash), read from the database unless kept under these versions. */
  const callerFromKey = async (hash: string, versions: string): Promise<Caller> => {
    const kept = keptByKey.get(hash);
    if (kept?.versions === versions) return kept.caller;
    const row = await db
      .selectFrom('api_keys')
      .innerJoin('orgs', 'orgs.id', 'api_keys.org_id')
      .leftJoin('users', 'users.id', 'api_keys.user_id')
      .select(['api_keys.id', 'api_keys.key_hash', 'api_keys.revoked_at', 'api_keys.org_id', 'orgs.public_id', 'users.id as user_id', 'users.email', 'users.role'])
      .where('api_keys.key_hash', '=', hash)
      .executeTakeFirst();
    if (!row || row.revoked_at || !sameHash(row.key_hash, hash)) {
      keptByKey.delete(hash);
      throw unauthorized();
    }
    // Shared by every request of this key until the versions change: frozen.
    const caller: Caller = Object.freeze({
      orgId: row.org_id,
      orgPublicId: row.public_id,
      userId: row.user_id ?? null,
      email: row.email ?? null,
      role: row.role ?? 'MEMBER',
      keyId: row.id,
      rateKey: `key:${row.id}`,
    });
    keptByKey.set(hash, { versions, caller });
    return caller;
  };

  /** Reads both versions for this request (kept on it for the report routes' ETag); the key kept callers are checked against. */
  const readVersions = async (request: FastifyRequest): Promise<string> => {
    const state = await readState();
    request.serviceState = state;
    return `${state.dataVersion}:${state.credentialsVersion}`;
  };

  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config?.public || request.url.startsWith('/docs')) return;
    if (!request.routeOptions.url) return; // unknown path: app.ts answers 404 in an earlier hook
    // @fastify/cors' catch-all OPTIONS route: an OPTIONS that is no preflight and matched
    // no route of ours reaches it, and it answers 404 (the not-found handler).
    if (request.routeOptions.url === '*' && request.method === 'OPTIONS') return;
    const key = request.headers['api-key'];
    // An empty api-key header is no key (a client that sends its key variable unset, say):
    // the bearer token is the credential then, as when the header is absent.
    if (key === undefined || key === '') {
      // No api-key: fall back to the bearer token (spec section 5).
      const match = BEARER.exec(request.headers.authorization ?? '');
      if (!match) throw unauthorized();
      request.caller = await callerFromToken(match[1]!, await readVersions(request));
      await limit(request.caller.rateKey, reply);
      return;
    }
    // A present but wrong api-key is 401 even when a valid bearer token is also sent.
    if (typeof key !== 'string') throw unauthorized();
    const hash = hashKey(key);
    request.caller = await callerFromKey(hash, await readVersions(request));
    lastUsed.note(request.caller.keyId!);
    await limit(request.caller.rateKey, reply);
  });

  async function limit(identity: string, reply: FastifyReply): Promise<void> {
    const decision = await limiter.check(identity);
    // IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): the policy and
    // the current state, on every authenticated response.
    reply.header('ratelimit-policy', `"default";q=${decision.limit};w=60`);
    reply.header('ratelimit', `"default";r=${decision.remaining};t=${decision.resetSeconds}`);
    if (!decision.allowed) throw tooManyRequests(decision.resetSeconds, `more than ${decision.limit} requests in a rolling minute with these credentials; retry in ${decision.resetSeconds} s`);
  }
}

/** Redis when REDIS_URL is set (shared by every instance), else per process. */
function defaultLimiter(app: FastifyInstance, options: AccessOptions): RateLimiter {
  const { config, clock } = options;
  if (!config.redisUrl) {
    app.readinessDetails = () => ({ rateLimitStore: 'memory' });
    return memoryRateLimiter(config.rateLimitPerMinute, clock);
  }
  const limiter = redisRateLimiter({
    url: config.redisUrl,
    limit: config.rateLimitPerMinute,
    clock,
    onStoreChange: (store) => (store === 'redis' ? app.log.info('rate limit: Redis is back; limits are shared again') : app.log.warn('rate limit: Redis unavailable; using per-instance limits until it is back')),
  });
  app.readinessDetails = () => ({ rateLimitStore: limiter.store() });
  return limiter;
}
