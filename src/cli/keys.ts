/**
 * `partner-reports keys create|list|revoke`: the Admin Center's API Keys page, offline.
 * Each is an operation (context.ts runOperation): inside the server when one holds the
 * embedded database, so a key created or revoked beside it takes effect at once.
 */
import { runOperation, type Operation } from './context.js';
import { CliFailure } from './failure.js';
import { createApiKey, keyNameProblem } from '../server/access/api-keys.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const keysCreate: Operation<{ org: string; user: string; name: string }> = async ({ database: { db }, out }, options) => {
  const nameProblem = keyNameProblem(options.name);
  if (nameProblem) throw new CliFailure(`--name ${nameProblem}`);
  const org = await db.selectFrom('orgs').select(['id', 'name']).where('public_id', '=', assertUuid(options.org)).executeTakeFirst();
  if (!org) throw new CliFailure(`no organization with publicId ${options.org}`);
  const user = await db.selectFrom('users').select(['id', 'email']).where('org_id', '=', org.id).where('email', '=', options.user).executeTakeFirst();
  if (!user) throw new CliFailure(`no user ${options.user} in organization ${options.org}`);
  const created = await createApiKey(db, { orgId: org.id, userId: user.id, name: options.name });
  out(`created API key ${created.id} (${created.name}) for ${user.email} in ${org.name}; store it now, it is not shown again:\n${created.key}\n`);
};

export const keysList: Operation<{ org: string }> = async ({ database: { db }, out }, options) => {
  const org = await db.selectFrom('orgs').select(['id']).where('public_id', '=', assertUuid(options.org)).executeTakeFirst();
  if (!org) throw new CliFailure(`no organization with publicId ${options.org}`);
  const rows = await db
    .selectFrom('api_keys')
    .leftJoin('users', 'users.id', 'api_keys.user_id')
    .select(['api_keys.id', 'api_keys.name', 'api_keys.prefix', 'users.email', 'api_keys.created_at', 'api_keys.last_used_at', 'api_keys.revoked_at'])
    .where('api_keys.org_id', '=', org.id)
    .orderBy('api_keys.created_at')
    .orderBy('api_keys.id')
    .execute();
  const iso = (d: Date | null) => (d ? new Date(d).toISOString() : '-');
  out('id\tname\tprefix\tcreator\tcreatedAt\tlastUsedAt\trevokedAt\n');
  for (const r of rows) out(`${r.id}\t${r.name}\t${r.prefix}\t${r.email ?? '-'}\t${iso(r.created_at)}\t${iso(r.last_used_at)}\t${iso(r.revoked_at)}\n`);
};

export const keysRevoke: Operation<{ keyId: string }> = async ({ database: { db }, out }, { keyId }) => {
  // A real UUID, checked here: the database would refuse anything else with an error of its own.
  if (!UUID.test(keyId)) throw new CliFailure(`not a key id (a UUID as shown by \`keys list\`): ${JSON.stringify(keyId)}`);
  const result = await db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', keyId).where('revoked_at', 'is', null).executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) {
    const exists = await db.selectFrom('api_keys').select('id').where('id', '=', keyId).executeTakeFirst();
    if (!exists) throw new CliFailure(`no API key ${keyId}`);
    out(`API key ${keyId} was already revoked\n`);
    return;
  }
  out(`revoked API key ${keyId}\n`);
};

export const keysCreateCommand = (options: { org: string; user: string; name: string }) => runOperation('keys.create', { org: options.org, user: options.user, name: options.name }, keysCreate);
export const keysListCommand = (options: { org: string }) => runOperation('keys.list', { org: options.org }, keysList);
export const keysRevokeCommand = (keyId: string) => runOperation('keys.revoke', { keyId }, keysRevoke);

function assertUuid(value: string): string {
  if (!UUID.test(value)) throw new CliFailure(`--org must be an organization publicId (a UUID), got ${JSON.stringify(value)}`);
  return value.toLowerCase();
}
