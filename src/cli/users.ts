/** `partner-reports users set-password`: the password a user signs in with at POST /v1/auth/token. */
import { runOperation, type Operation } from './context.js';
import { CliFailure } from './failure.js';
import { hashPassword } from '../server/access/passwords.js';

async function readPassword(): Promise<string> {
  if (process.env.PARTNER_REPORTS_PASSWORD) return process.env.PARTNER_REPORTS_PASSWORD;
  if (process.stdin.isTTY) process.stderr.write('password (then Enter): ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    if (Buffer.concat(chunks).includes(10)) break;
  }
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

/** The password is read and hashed here; only its hash reaches a server that runs the operation. */
export const usersSetPassword: Operation<{ org: string; email: string; passwordHash: string }> = async ({ database: { db }, out }, options) => {
  const org = await db.selectFrom('orgs').select('id').where('public_id', '=', /^[0-9a-f-]{36}$/i.test(options.org) ? options.org.toLowerCase() : '00000000-0000-0000-0000-000000000000').executeTakeFirst();
  if (!org) throw new CliFailure(`no organization with publicId ${options.org}`);
  const result = await db.updateTable('users').set({ password_hash: options.passwordHash }).where('org_id', '=', org.id).where('email', '=', options.email).executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw new CliFailure(`no user ${options.email} in organization ${options.org}`);
  out(`password set for ${options.email}\n`);
};

export async function usersSetPasswordCommand(options: { org: string; email: string }): Promise<void> {
  const password = await readPassword();
  if (password.length < 8) throw new CliFailure('the password must have at least 8 characters');
  await runOperation('users.set-password', { org: options.org, email: options.email, passwordHash: await hashPassword(password) }, usersSetPassword);
}
