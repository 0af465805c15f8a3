/**
 * The access stage: who is calling (API key, else JWT bearer), may they, and the rolling
 * rate limit. Every route but the public ones (config.public, /docs) passes through it.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../../config.js';
import type { Database } from '../../db/database.js';
import { tooManyRequests, unauthorized } from '../errors.js';
import { memoryRateLimiter, type RateLimiter } from './rate-limit.js';
import { redisRateLimiter } from './rate-limit-redis.js';
import { hashKey, sameHash } from './api-keys.js';
import { createTokenVerifier } from './jwt.js';
import { lastUsedRecorder } from './last-used.js';
import type { Caller } from './caller.js';
import './caller.js';

export interface AccessOptions {
  config: Config;
  database: Database;
  clock: () => number;
  /** Default: in memory with config.rateLimitPerMinute. */
  limiter?: RateLimiter;
}

const BEARER = /^Bearer\s+([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/;

export async function registerAccess(app: FastifyInstance, options: AccessOptions): Promise<void> {
  const { db } = options.database;
  app.decorateRequest('caller', null as unknown as Caller);
  const limiter = options.limiter ?? defaultLimiter(app, options);
  const verifyToken = createTokenVerifier(options.config, options.clock);
  const lastUsed = lastUsedRecorder(db, options.clock);
  app.addHook('onClose', async () => {
    await lastUsed.close();
    await limiter.close();
  });

  /** The caller of a bearer token: its organization must exist, and so must the user in it. */
  const callerFromToken = async (token: string): Promise<Caller> => {
    const claims = verifyToken ? await verifyToken(token) : undefined;
    if (!claims) throw unauthorized();
    const row = await db
      .selectFrom('orgs')
      .innerJoin('users', 'users.org_id', 'orgs.id')
      .select(['orgs.id as org_id', 'orgs.public_id', 'users.id as user_id', 'users.email'])
      .where('orgs.public_id', '=', claims.org)
      .where('users.email', '=', claims.sub)
      .executeTakeFirst()
      .catch(() => undefined);
    if (!row) throw unauthorized();
    return { orgId: row.org_id, orgPublicId: row.public_id, userId: row.user_id, email: row.email, role: claims.role, keyId: null, rateKey: `token:${row.org_id}:${row.email}` };
  };

  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config?.public || request.url.startsWith('/docs')) return;
    if (!request.routeOptions.url) return; // unknown path: the 404 handler answers
    const key = request.headers['api-key'];
    if (key === undefined) {
      // No api-key header at all: fall back to the bearer token (spec section 5).
      const match = BEARER.exec(request.headers.authorization ?? '');
      if (!match) throw unauthorized();
      request.caller = await callerFromToken(match[1]!);
      await limit(request.caller.rateKey, reply);
      return;
    }
    // A present but wrong api-key is 401 even when a valid bearer token is also sent.
    if (typeof key !== 'string' || key === '') throw unauthorized();
    const hash = hashKey(key);
    const row = await db
      .selectFrom('api_keys')
      .innerJoin('orgs', 'orgs.id', 'api_keys.org_id')
      .leftJoin('users', 'users.id', 'api_keys.user_id')
      .select(['api_keys.id', 'api_keys.key_hash', 'api_keys.revoked_at', 'api_keys.org_id', 'orgs.public_id', 'users.id as user_id', 'users.email', 'users.role'])
      .where('api_keys.key_hash', '=', hash)
      .executeTakeFirst();
    if (!row || row.revoked_at || !sameHash(row.key_hash, hash)) throw unauthorized();
    request.caller = {
      orgId: row.org_id,
      orgPublicId: row.public_id,
      userId: row.user_id ?? null,
      email: row.email ?? null,
      role: row.role ?? 'MEMBER',
      keyId: row.id,
      rateKey: `key:${row.id}`,
    };
    lastUsed.note(row.id);
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
