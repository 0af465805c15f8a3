/**
 * Key administration (the specification's Admin Center > Data > API Keys): create, list
 * and revoke the caller's organization's API keys. ADMIN only (403 otherwise); another
 * organization's key id answers 404, exactly like a missing one.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Config } from '../../config.js';
import type { Database } from '../../db/database.js';
import { createApiKey, keyNameProblem } from '../access/api-keys.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import { ProblemSchema } from './schemas.js';

export interface AdminDeps {
  database: Database;
  config: Config;
  clock: () => number;
}

const KeySchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  prefix: Type.String({ description: 'the first characters of the key, to recognise it' }),
  creator: Type.Union([Type.String(), Type.Null()], { description: 'email of the user who created it' }),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

const ERRORS = { 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema, 429: ProblemSchema };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Every admin route's own onRequest hook: it runs after the access stage's (which set
 * the caller) and before the body is read or validated, so a non-admin is 403 whatever
 * the body (not 400 for a body it had no business sending).
 */
async function requireAdmin(request: FastifyRequest): Promise<void> {
  if (request.caller.role !== 'ADMIN') throw forbidden('only an ADMIN of the organization may manage its API keys');
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export function registerAdminRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const { db } = deps.database;
  const tags = ['admin'];

  /** The name's rule beyond its length; also listed when the schema refuses another field (contract section 1). */
  const nameProblems = (body: Record<string, unknown>) => {
    const problem = typeof body.name === 'string' ? keyNameProblem(body.name) : undefined;
    return problem ? [{ field: 'name', message: problem }] : [];
  };
  app.post('/v1/admin/api-keys', {
    config: { planProblems: async (_request, { body }) => nameProblems(body) },
    schema: {
      tags,
      summary: 'Generate an API key (shown once)',
      body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
      response: { 201: Type.Intersect([KeySchema, Type.Object({ key: Type.String({ description: 'the key itself; it is not shown again' }) })]), ...ERRORS },
    },
    onRequest: requireAdmin,
    handler: async (request: FastifyRequest<{ Body: { name: string } }>, reply) => {
      const problems = nameProblems(request.body);
      if (problems.length) throw badRequest('name', problems[0]!.message);
      const created = await createApiKey(db, { orgId: request.caller.orgId, userId: request.caller.userId, name: request.body.name });
      const row = await db.selectFrom('api_keys').select(['created_at']).where('id', '=', created.id).executeTakeFirstOrThrow();
      return reply.code(201).send({ id: created.id, name: created.name, prefix: created.prefix, key: created.key, creator: request.caller.email, createdAt: iso(row.created_at), lastUsedAt: null, revokedAt: null });
    },
  });

  app.get('/v1/admin/api-keys', {
    schema: { tags, summary: "List the organization's API keys (never the keys)", response: { 200: Type.Array(KeySchema), ...ERRORS } },
    onRequest: requireAdmin,
    handler: async (request) => {
      const rows = await db
        .selectFrom('api_keys')
        .leftJoin('users', 'users.id', 'api_keys.user_id')
        .select(['api_keys.id', 'api_keys.name', 'api_keys.prefix', 'users.email', 'api_keys.created_at', 'api_keys.last_used_at', 'api_keys.revoked_at'])
        .where('api_keys.org_id', '=', request.caller.orgId)
        .orderBy('api_keys.created_at')
        .orderBy('api_keys.id')
        .execute();
      return rows.map((r) => ({ id: r.id, name: r.name, prefix: r.prefix, creator: r.email ?? null, createdAt: iso(r.created_at), lastUsedAt: iso(r.last_used_at), revokedAt: iso(r.revoked_at) }));
    },
  });

  app.delete('/v1/admin/api-keys/:id', {
    schema: { tags, summary: 'Revoke an API key (effective on the next request)', params: Type.Object({ id: Type.String() }), response: { 204: Type.Null(), ...ERRORS } },
    onRequest: requireAdmin,
    handler: async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
      const { id } = request.params;
      if (!UUID.test(id)) throw notFound(`no API key ${id} in your organization`);
      const key = await db.selectFrom('api_keys').select(['id', 'revoked_at']).where('id', '=', id).where('org_id', '=', request.caller.orgId).executeTakeFirst();
      if (!key) throw notFound(`no API key ${id} in your organization`);
      if (!key.revoked_at) await db.updateTable('api_keys').set({ revoked_at: new Date(deps.clock()) }).where('id', '=', id).execute();
      return reply.code(204).send();
    },
  });
}
