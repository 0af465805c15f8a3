/**
 * The `partner-reports` command (contract section 8). Each subcommand lives in its own
 * file; this one only wires options to them. The database is PostgreSQL at DATABASE_URL
 * when set, else embedded PGlite in DATA_DIR (default ./data).
 */
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { ConfigError, decimalInteger } from '../config.js';
import { CliFailure } from './failure.js';
import { serveCommand } from './serve.js';
import { importCommand } from './import.js';
import { demoCommand } from './demo.js';
import { keysCreateCommand, keysListCommand, keysRevokeCommand } from './keys.js';
import { usersSetPasswordCommand } from './users.js';
import { startCommand } from './start.js';


function integer(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = decimalInteger(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${name} must be an integer ${max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`}`);
    return n;
  };
}

const ENVIRONMENT_HELP = `
Environment:
  DATABASE_URL            PostgreSQL server (postgres://...); default: embedded PGlite in DATA_DIR
  DATA_DIR                embedded database folder (default ./data)
  PORT, HOST              listen address for serve/start (default 8080, 127.0.0.1)
  REDIS_URL               rate-limit and sign-in counters shared by every instance (default: in memory)
  JWT_SECRET              HS256 secret for bearer tokens
  JWT_JWKS_URL            JWKS URL or file for bearer tokens
  JWT_ISSUER, JWT_AUDIENCE  checked in bearer tokens when set
  RATE_LIMIT_PER_MINUTE   requests per rolling minute per key (default 100)
  LOG_LEVEL               fatal|error|warn|info|debug|trace|silent (default info)
  CORS_ORIGINS            comma-separated origins allowed by CORS (default: CORS off)
  STATEMENT_TIMEOUT_MS    longest SQL statement (default 30000)`;

export function buildProgram(): Command {
  const program = new Command('partner-reports')
    .description('Partner Reporting API: serve reports, import dataset bundles, generate demo data, manage API keys.')
    .addHelpText('after', ENVIRONMENT_HELP)
    .exitOverride()
    .showHelpAfterError();

  program
    .command('serve')
    .description('serve the HTTP API')
    .option('--port <port>', 'port to listen on (default: PORT or 8080)', integer('--port', 0, 65535))
    .option('--host <host>', 'address to listen on (default: HOST or 127.0.0.1)')
    .action(serveCommand);

  program
    .command('start')
    .description('first-run helper behind `npm start`: on an empty database generate and import the demo bundle and create a demo API key, then serve')
    .option('--port <port>', 'port to listen on (default: PORT or 8080)', integer('--port', 0, 65535))
    .option('--host <host>', 'address to listen on (default: HOST or 127.0.0.1)')
    .action(startCommand);

  program
    .command('import')
    .description('validate and import a dataset bundle (contract section 7); all or nothing')
    .argument('<bundle-dir>', 'folder with orgs.ndjson and the other bundle files')
    .option('--no-progress', 'do not draw a progress bar even on a terminal')
    .action(importCommand);

  program
    .command('demo')
    .description('write a deterministic demo dataset bundle')
    .requiredOption('--out <bundle-dir>', 'folder to write the bundle into (created if missing)')
    .option('--scale <n>', 'size multiplier; 1 is a small demo, the row counts grow linearly', integer('--scale', 1), 1)
    .option('--seed <s>', 'seed of the generator; the same seed writes the same bundle', integer('--seed', 0), 42)
    .action(demoCommand);

  const keys = program.command('keys').description('manage API keys');
  keys
    .command('create')
    .description('create an API key; prints the key alone on its last line (it is shown only once)')
    .requiredOption('--org <publicId>', 'organization publicId')
    .requiredOption('--user <email>', 'email of a user of that organization, recorded as the creator')
    .option('--name <label>', 'label shown in key listings', 'cli')
    .action(keysCreateCommand);
  keys
    .command('list')
    .description("list an organization's API keys (never the keys themselves)")
    .requiredOption('--org <publicId>', 'organization publicId')
    .action(keysListCommand);
  keys
    .command('revoke')
    .description('revoke an API key; takes effect on the next request')
    .argument('<keyId>', 'key id as shown by `keys list`')
    .action(keysRevokeCommand);

  const users = program.command('users').description('manage users of the service');
  users
    .command('set-password')
    .description('set the password a user signs in with at POST /v1/auth/token (read from PARTNER_REPORTS_PASSWORD or standard input)')
    .requiredOption('--org <publicId>', 'organization publicId')
    .requiredOption('--email <email>', 'user email')
    .action(usersSetPasswordCommand);

  return program;
}

export async function main(argv: string[]): Promise<void> {
  // A reader that stops early (`keys list | head -1`) is no failure of the command: what
  // it did stands, and its exit status says so (an unhandled EPIPE ended it with 1).
  for (const stream of [process.stdout, process.stderr]) stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      return;
    }
    if (err instanceof CliFailure || err instanceof ConfigError) {
      process.stderr.write(`partner-reports: ${err.message}\n`);
      process.exitCode = err instanceof CliFailure ? err.exitCode : 2;
      return;
    }
    process.stderr.write(`partner-reports: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
