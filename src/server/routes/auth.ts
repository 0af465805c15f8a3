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
      const user = pickSignedIn(request.body.email.trim(), await signedIn(request.body.password, await query.execute()));
      if (!user) throw unauthorized();
      const now = Math.floor(deps.clock() / 1000);
      let jwt = new SignJWT({ org: user.public_id, role: user.role }).setProtectedHeader({ alg: 'HS256' }).setSubject(user.email).setIssuedAt(now).setExpirationTime(now + TOKEN_LIFETIME_SECONDS);
      if (deps.config.jwtIssuer) jwt = jwt.setIssuer(deps.config.jwtIssuer);
      if (deps.config.jwtAudience) jwt = jwt.setAudience(deps.config.jwtAudience);
      return { access_token: await jwt.sign(new TextEncoder().encode(deps.config.jwtSecret)), token_type: 'Bearer' as const, expires_in: TOKEN_LIFETIME_SECONDS };
    },
  });
}

type Candidate = { email: string; role: string | null; password_hash: string | null; public_id: string };

/**
 * The users the password signs in, among those whose email matches in any letter case.
 * Every candidate's hash is checked, at once (scrypt runs on libuv's threads), and at
 * least one hash always is: an unknown email, a wrong password and an email shared by
 * several users cost the same, and answer the same 401, so that no caller without a
 * password learns whether an email exists, or in how many organizations (until the
 * twenty-ninth session a shared email was a 400 asking for `org` before any check).
 */
async function signedIn(password: string, candidates: Candidate[]): Promise<Candidate[]> {
  const hashes = candidates.length ? candidates.map((c) => c.password_hash ?? UNKNOWN_USER_HASH) : [UNKNOWN_USER_HASH];
  const valid = await Promise.all(hashes.map((hash) => verifyPassword(password, hash)));
  return candidates.filter((c, i) => c.password_hash !== null && valid[i]);
}

/**
 * The one user a valid sign-in is for: the only one, else the one whose email is the one
 * typed, letter case included (emails that differ only in case are different users, as for
 * a token's `sub`). Several left (the same email and password in several organizations):
 * the caller, who knows the password, is asked to name the organization.
 */
function pickSignedIn(typed: string, users: Candidate[]): Candidate | undefined {
  if (users.length <= 1) return users[0];
  const exact = users.filter((u) => u.email === typed);
  if (exact.length === 1) return exact[0];
  throw badRequest('org', 'this email and password sign in to several users: give the organization publicId in `org`, and the email exactly as it was imported');
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
