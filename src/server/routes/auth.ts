/**
 * POST /v1/auth/token: sign in with email and password, receive a short-lived HS256 JWT
 * for the bearer fallback. Unknown email and wrong password get the same 401 after the
 * same work; attempts are limited per email and per client address.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { SignJWT } from 'jose';
import type { Config } from '../../config.js';
import type { Database } from '../../db/database.js';
import { UNKNOWN_USER_HASH, verifyPassword } from '../access/passwords.js';
import { memoryRateLimiter, type RateLimiter } from '../access/rate-limit.js';
import { redisRateLimiter } from '../access/rate-limit-redis.js';
import { badRequest, tooManyRequests, unauthorized, unavailable } from '../errors.js';
import { ProblemSchema } from './schemas.js';

export const TOKEN_LIFETIME_SECONDS = 15 * 60;
/** Sign-in attempts per rolling minute, per email and per client address. */
export const SIGN_IN_ATTEMPTS_PER_MINUTE = 10;

export function registerAuthRoutes(app: FastifyInstance, deps: { database: Database; config: Config; clock: () => number }): void {
  const { db } = deps.database;
  const attempts = signInLimiter(deps.config, deps.clock, (store) => (store === 'redis' ? app.log.info('sign-in limit: Redis is back') : app.log.warn('sign-in limit: Redis unavailable; per-instance limits until it is back')));
  app.addHook('onClose', async () => attempts.close());

  app.post('/v1/auth/token', {
    config: { public: true },
    schema: {
      tags: ['auth'],
      summary: 'Sign in: a 15-minute bearer token for email and password',
      security: [],
      body: Type.Object({ email: Type.String({ minLength: 1, maxLength: 320 }), password: Type.String({ minLength: 1, maxLength: 1024 }), org: Type.Optional(Type.String({ description: 'organization publicId, when the email belongs to several' })) }, { additionalProperties: false }),
      response: {
        200: Type.Object({ access_token: Type.String(), token_type: Type.Literal('Bearer'), expires_in: Type.Integer() }),
        400: ProblemSchema,
        401: ProblemSchema,
        429: ProblemSchema,
        503: ProblemSchema,
      },
    },
    // Cache-Control: no-store on every answer of this route (app.ts).
    handler: async (request: FastifyRequest<{ Body: { email: string; password: string; org?: string } }>) => {
      if (!deps.config.jwtSecret) throw unavailable('token issuing is not configured (JWT_SECRET is not set)', 3600);
      const email = request.body.email.trim().toLowerCase();
      for (const identity of [`email:${email}`, `ip:${request.ip}`]) {
        const decision = await attempts.check(identity);
        if (!decision.allowed) throw tooManyRequests(decision.resetSeconds, `too many sign-in attempts; retry in ${decision.resetSeconds} s`);
      }
      let query = db.selectFrom('users').innerJoin('orgs', 'orgs.id', 'users.org_id').select(['users.email', 'users.role', 'users.password_hash', 'orgs.public_id']).where((eb) => eb(eb.fn('lower', ['users.email']), '=', email));
      if (request.body.org) query = query.where('orgs.public_id', '=', /^[0-9a-f-]{36}$/i.test(request.body.org) ? request.body.org.toLowerCase() : '00000000-0000-0000-0000-000000000000');
      const users = await query.execute();
      if (users.length > 1) throw badRequest('org', 'this email belongs to several organizations: give the organization publicId in `org`');
      const user = users[0];
      const valid = await verifyPassword(request.body.password, user?.password_hash ?? UNKNOWN_USER_HASH);
      if (!user || !user.password_hash || !valid) throw unauthorized();
      const now = Math.floor(deps.clock() / 1000);
      let jwt = new SignJWT({ org: user.public_id, role: user.role }).setProtectedHeader({ alg: 'HS256' }).setSubject(user.email).setIssuedAt(now).setExpirationTime(now + TOKEN_LIFETIME_SECONDS);
      if (deps.config.jwtIssuer) jwt = jwt.setIssuer(deps.config.jwtIssuer);
      if (deps.config.jwtAudience) jwt = jwt.setAudience(deps.config.jwtAudience);
      return { access_token: await jwt.sign(new TextEncoder().encode(deps.config.jwtSecret)), token_type: 'Bearer' as const, expires_in: TOKEN_LIFETIME_SECONDS };
    },
  });
}

/**
 * The sign-in attempts' limiter: in Redis when REDIS_URL is set, shared by every
 * instance as the request limit is (otherwise N instances allowed N times the attempts
 * against one password), else per process. Its own keys (`prefix`; tests give theirs).
 */
export function signInLimiter(config: Pick<Config, 'redisUrl'>, clock: () => number, onStoreChange?: (store: string) => void, prefix = 'pr:signin:'): RateLimiter {
  if (!config.redisUrl) return memoryRateLimiter(SIGN_IN_ATTEMPTS_PER_MINUTE, clock);
  return redisRateLimiter({ url: config.redisUrl, limit: SIGN_IN_ATTEMPTS_PER_MINUTE, clock, prefix, ...(onStoreChange ? { onStoreChange } : {}) });
}
