/**
 * `npm start`: the first-run experience. On an empty database it generates the demo
 * bundle, imports it, creates an API key for the demo organization's admin and prints it
 * with a ready-to-paste curl line; on a database that has data it says how to create a
 * key. Then it serves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openForServing, startWithOperations } from './control-server.js';
import { CliFailure } from './failure.js';
import { startServer } from '../server/server.js';
import { createApiKey } from '../server/access/api-keys.js';
import { DEMO_ADMIN_EMAIL, DEMO_ORG_PUBLIC_ID, writeDemoBundle } from '../demo/generate.js';
import { formatProblem, importBundle } from '../ingest/import-bundle.js';

export async function startCommand(options: { port?: number; host?: string }): Promise<void> {
  const overrides: { port?: number; host?: string } = {};
  if (options.port !== undefined) overrides.port = options.port;
  if (options.host !== undefined) overrides.host = options.host;
  const { config, database } = await openForServing(overrides);
  const where = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `the embedded database in ${config.dataDir}`;
  const say = (line: string) => process.stdout.write(`${line}\n`);

  const orgs = await database.db.selectFrom('orgs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  let key: string | undefined;
  if (Number(orgs.n) === 0) {
    say(`partner-reports: ${where} is empty; loading the demo dataset...`);
    const dir = mkdtempSync(join(tmpdir(), 'partner-reports-demo-'));
    try {
      await writeDemoBundle(dir, { scale: 1, seed: 42 });
      const result = await importBundle(database, dir);
      if (!result.ok) throw new CliFailure(`the demo bundle did not import:\n${result.problems.slice(0, 20).map(formatProblem).join('\n')}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const org = await database.db.selectFrom('orgs').select('id').where('public_id', '=', DEMO_ORG_PUBLIC_ID).executeTakeFirstOrThrow();
    const user = await database.db.selectFrom('users').select('id').where('org_id', '=', org.id).where('email', '=', DEMO_ADMIN_EMAIL).executeTakeFirstOrThrow();
    key = (await createApiKey(database.db, { orgId: org.id, userId: user.id, name: 'demo (npm start)' })).key;
  }

  const server = await startWithOperations(config, database, (beforeStop) => startServer(config, database, { beforeStop }));
  const base = server.url.replace('[::1]', 'localhost');
  if (key) {
    say('');
    say(`Demo data loaded. API key for ${DEMO_ADMIN_EMAIL} (shown once; keep it):`);
    say(`  ${key}`);
    say('Try:');
    say(`  curl -s -X POST -H 'api-key: ${key}' -H 'content-type: application/json' -d '{}' '${base}/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records?size=5'`);
  } else {
    say('');
    say(`Serving the data already in ${where}. To create an API key:`);
    say(`  npx partner-reports keys create --org ${DEMO_ORG_PUBLIC_ID} --user ${DEMO_ADMIN_EMAIL}`);
  }
  say(`API reference: ${base}/docs    OpenAPI: ${base}/openapi.json`);
}
