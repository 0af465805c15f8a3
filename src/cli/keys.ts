/** `partner-reports keys create|list|revoke`: the Admin Center's API Keys page, offline. */
import { withDatabase } from './context.js';
import { CliFailure } from './failure.js';
import { createApiKey } from '../server/access/api-keys.js';

export async function keysCreateCommand(options: { org: string; user: string; name: string }): Promise<void> {
  await withDatabase(async ({ database: { db } }) => {
    const org = await db.selectFrom('orgs').select(['id', 'name']).where('public_id', '=', assertUuid(options.org)).executeTakeFirst();
    if (!org) throw new CliFailure(`no organization with publicId ${options.org}`);
    const user = await db.selectFrom('users').select(['id', 'email']).where('org_id', '=', org.id).where('email', '=', options.user).executeTakeFirst();
    if (!user) throw new CliFailure(`no user ${options.user} in organization ${options.org}`);
    const created = await createApiKey(db, { orgId: org.id, userId: user.id, name: options.name });
    process.stdout.write(`created API key ${created.id} (${created.name}) for ${user.email} in ${org.name}; store it now, it is not shown again:\n${created.key}\n`);
  });
}

export async function keysListCommand(options: { org: string }): Promise<void> {
  await withDatabase(async ({ database: { db } }) => {
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
    process.stdout.write('id\tname\tprefix\tcreator\tcreatedAt\tlastUsedAt\trevokedAt\n');
    for (const r of rows) process.stdout.write(`${r.id}\t${r.name}\t${r.prefix}\t${r.email ?? '-'}\t${iso(r.created_at)}\t${iso(r.last_used_at)}\t${iso(r.revoked_at)}\n`);
  });
}

export async function keysRevokeCommand(keyId: string): Promise<void> {
  await withDatabase(async ({ database: { db } }) => {
    if (!/^[0-9a-f-]{36}$/i.test(keyId)) throw new CliFailure(`not a key id: ${keyId}`);
    const result = await db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', keyId).where('revoked_at', 'is', null).executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) {
      const exists = await db.selectFrom('api_keys').select('id').where('id', '=', keyId).executeTakeFirst();
      if (!exists) throw new CliFailure(`no API key ${keyId}`);
      process.stdout.write(`API key ${keyId} was already revoked\n`);
      return;
    }
    process.stdout.write(`revoked API key ${keyId}\n`);
  });
}

function assertUuid(value: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) throw new CliFailure(`--org must be an organization publicId (a UUID), got ${JSON.stringify(value)}`);
  return value.toLowerCase();
}
