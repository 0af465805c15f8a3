/**
 * The `partner-reports` command as a process: help, import (success and failure), keys
 * create / list / revoke, and serve with a graceful SIGTERM. Runs on embedded PGlite in a
 * temporary DATA_DIR, and on PostgreSQL too when DATABASE_URL is set.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliArgs, root } from '../helpers/cli-process.js';
import { tempDirs } from '../helpers/temp-dirs.js';
import { until } from '../helpers/until.js';
import { engines } from '../helpers/engines.js';
import { BUNDLE, ORG, USERS, writeSmallBundle } from '../fixtures/small-bundle.js';

const tmp = tempDirs();

function cli(env: NodeJS.ProcessEnv, ...args: string[]) {
  return spawnSync(process.execPath, cliArgs(...args), { cwd: root, encoding: 'utf8', timeout: 120_000, env: { ...process.env, LOG_LEVEL: 'warn', ...env } });
}

test('the executable starts node with a young generation of 2 x 8 MB, and runs', () => {
  const bin = join(root, 'bin', 'partner-reports.js');
  // The first line is what `partner-reports`, `npx partner-reports` and `npm start` run.
  assert.equal(readFileSync(bin, 'utf8').split('\n')[0], '#!/usr/bin/env -S node --max-semi-space-size=8');
  const help = spawnSync(bin, ['--help'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /Usage: partner-reports/);
  // The flag exists in this V8 (node refuses an unknown one; this says which it is).
  assert.match(execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }), /--max-semi-space-size \(/);
});

test('a reader that closes early is no failure: no EPIPE stack, the exit status stands', async () => {
  const child = spawn(process.execPath, cliArgs('--help'), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy(); // as `| head -1` does once it has its line
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.deepEqual([code, stderr], [0, '']);
});

test('a build brought up to date is not built again after a source file is only touched', () => {
  const bin = join(root, 'bin', 'partner-reports.js');
  spawnSync(bin, ['--help'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  const source = join(root, 'src', 'config.ts');
  const now = new Date();
  utimesSync(source, now, now);
  assert.match(spawnSync(bin, ['--help'], { cwd: root, encoding: 'utf8', timeout: 120_000 }).stderr, /building/, 'a newer source builds');
  assert.equal(spawnSync(bin, ['--help'], { cwd: root, encoding: 'utf8', timeout: 120_000 }).stderr, '', 'and once built, runs');
});

test('--help lists every subcommand and each subcommand describes its options', () => {
  const help = cli({}, '--help');
  assert.equal(help.status, 0);
  for (const c of ['serve', 'import', 'demo', 'keys', 'users', 'start']) assert.match(help.stdout, new RegExp(`\\b${c}\\b`));
  assert.match(help.stdout, /DATABASE_URL/);
  const keys = cli({}, 'keys', 'create', '--help');
  assert.match(keys.stdout, /--org <publicId>/);
  assert.match(keys.stdout, /--user <email>/);
  assert.match(cli({}, 'serve', '--help').stdout, /--port/);
  assert.match(cli({}, 'import', '--help').stdout, /bundle-dir/);
  const unknown = cli({}, 'frobnicate');
  assert.notEqual(unknown.status, 0);
});

test('a command that cannot start says why in one line and exits, on the embedded database too', async () => {
  const { createServer } = await import('node:net');
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  const port = (busy.address() as { port: number }).port;
  try {
    const env = { DATA_DIR: tmp('pr-cli-busy-'), DATABASE_URL: '' };
    // An open PGlite kept the process alive after a failed start: it neither served nor exited.
    const inUse = cli({ ...env, PORT: String(port) }, 'serve');
    assert.equal(inUse.status, 1, `exited (not killed by the timeout): ${inUse.stderr}`);
    assert.equal(inUse.stderr, `partner-reports: cannot listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE)\n`);
    const jwks = cli({ ...env, JWT_JWKS_URL: join(tmp('pr-cli-jwks-'), 'missing.json') }, 'serve', '--port', '0');
    assert.equal(jwks.status, 2, jwks.stderr);
    assert.match(jwks.stderr, /^partner-reports: invalid configuration:\n {2}JWT_JWKS_URL: .*missing\.json is not a readable JSON Web Key Set \(ENOENT[^\n]*\n$/);
    // A temporary directory whose socket path is too long for Unix sockets: the command
    // socket cannot be set up, and the server says so and exits (it stayed listening).
    const longTmp = join(tmp('pr-cli-long-'), 'x'.repeat(90));
    mkdirSync(longTmp);
    const socket = cli({ ...env, TMPDIR: longTmp }, 'serve', '--port', '0');
    assert.equal(socket.status, 1, `exited (not killed by the timeout): ${socket.stderr}`);
    assert.match(socket.stderr, /^partner-reports: cannot open the control socket for commands beside the server \([^\n]*\n$/);
    const range = cli(env, 'serve', '--port', '70000');
    assert.notEqual(range.status, 0);
    assert.match(range.stderr, /--port must be an integer from 0 to 65535/);
    // A database server that cannot be reached: one line, its password not printed.
    const unreachable = cli({ DATABASE_URL: 'postgres://postgres:s3cret@127.0.0.1:1/nowhere?sslmode=disable&password=hunter2' }, 'keys', 'list', '--org', ORG.ACME);
    assert.equal(unreachable.status, 1);
    assert.equal(unreachable.stderr, 'partner-reports: cannot reach postgres://postgres:***@127.0.0.1:1/nowhere?sslmode=disable&password=***: connect ECONNREFUSED 127.0.0.1:1\n');
    // An embedded database whose folder is a file: one line too.
    const file = join(tmp('pr-cli-file-'), 'data');
    writeFileSync(file, 'not a folder');
    const notFolder = cli({ DATA_DIR: file, DATABASE_URL: '' }, 'keys', 'list', '--org', ORG.ACME);
    assert.equal(notFolder.status, 1);
    assert.match(notFolder.stderr, /^partner-reports: cannot open the embedded database in .*data \(DATA_DIR\): [^\n]+\n$/);
  } finally {
    busy.close();
  }
});

for (const engine of engines) {
  describe(`command line on ${engine.name}`, () => {
    test('import, keys create/list/revoke, serve and SIGTERM', async () => {
      const database = engine.name === 'postgres' ? await engine.open() : undefined;
      const env: NodeJS.ProcessEnv = database ? { DATABASE_URL: database.url } : { DATA_DIR: tmp('pr-cli-data-'), DATABASE_URL: '' };
      try {
        const bad = writeSmallBundle(tmp('pr-cli-bad-'), { users: [...BUNDLE.users!, { org: ORG.ACME, email: 'x@acme.test' }] });
        const failed = cli(env, 'import', bad);
        assert.equal(failed.status, 1);
        assert.match(failed.stderr, new RegExp(`users\\.ndjson:${BUNDLE.users!.length + 1}: name: missing required field`));
        assert.match(failed.stderr, /nothing was changed/);
        // A bundle file that cannot be read is a problem like any other, not a crash.
        const unreadable = writeSmallBundle(tmp('pr-cli-unreadable-'));
        mkdirSync(join(unreadable, 'accounts.csv'));
        rmSync(join(unreadable, 'accounts.ndjson'));
        const refused = cli(env, 'import', unreadable);
        assert.equal(refused.status, 1, refused.stderr);
        assert.match(refused.stderr, /^accounts\.csv:0: -: cannot be read \(EISDIR: illegal operation on a directory\)$/m);
        assert.doesNotMatch(refused.stderr, /Unhandled|    at /);

        const imported = cli(env, 'import', writeSmallBundle(tmp('pr-cli-good-')));
        assert.equal(imported.status, 0, imported.stderr);
        assert.match(imported.stdout, /^accounts: 12 inserted, 0 updated, 0 unchanged$/m);
        assert.match(imported.stdout, /data version 1/);

        const created = cli(env, 'keys', 'create', '--org', ORG.ACME, '--user', USERS.ACME_ADMIN, '--name', 'cli test');
        assert.equal(created.status, 0, created.stderr);
        const lines = created.stdout.trim().split('\n');
        const key = lines[lines.length - 1]!;
        assert.match(key, /^prk_[A-Za-z0-9_-]{43}$/, 'the key alone on the last line');
        const listed = cli(env, 'keys', 'list', '--org', ORG.ACME);
        assert.match(listed.stdout, /cli test/);
        assert.equal(listed.stdout.includes(key), false);
        const keyId = /^([0-9a-f-]{36})\tcli test/m.exec(listed.stdout)![1]!;
        assert.equal(cli(env, 'keys', 'create', '--org', ORG.ACME, '--user', 'nobody@acme.test').status, 1);

        // serve: answers with the key, then stops cleanly on SIGTERM.
        const port = 19_000 + Math.floor(Math.random() * 900);
        const server = spawn(process.execPath, cliArgs('serve', '--port', String(port)), { cwd: root, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: 'ignore' });
        const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
        try {
          let res: Response | undefined;
          await until(async () => (res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined)) !== undefined, 60_000, 200);
          assert.equal(res?.status, 200);
          const page = await fetch(`http://127.0.0.1:${port}/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records?size=1`, { method: 'POST', headers: { 'api-key': key, 'content-type': 'application/json' }, body: '{}' });
          assert.equal(page.status, 200);
          assert.equal(((await page.json()) as { totalElements: number }).totalElements, 4);
        } finally {
          server.kill('SIGTERM');
        }
        assert.equal(await exited, 0, 'graceful shutdown exits 0');

        assert.equal(cli(env, 'keys', 'revoke', keyId).status, 0);
        assert.match(cli(env, 'keys', 'list', '--org', ORG.ACME).stdout, new RegExp(`${keyId}\\tcli test\\t\\S+\\t\\S+\\t\\S+\\t\\S+\\t20\\d\\d-`));
      } finally {
        if (database) await database.dispose();
      }
    });

    test('keys revoke: an id that is not a UUID is one line of error and exit 1, never a stack', async () => {
      const database = engine.name === 'postgres' ? await engine.open() : undefined;
      const env: NodeJS.ProcessEnv = database ? { DATABASE_URL: database.url } : { DATA_DIR: tmp('pr-cli-revoke-'), DATABASE_URL: '' };
      try {
        // 36 characters of the old pattern's alphabet, but no UUID; then other near misses.
        for (const id of ['000000000000000000000000000000000000', '0000000-00000-0000-0000-0000000000000', 'zzzzzzzz-0000-0000-0000-000000000000', 'x']) {
          const refused = cli(env, 'keys', 'revoke', id);
          assert.equal(refused.status, 1, id);
          assert.equal(refused.stderr, `partner-reports: not a key id (a UUID as shown by \`keys list\`): ${JSON.stringify(id)}\n`, id);
        }
        // A well-formed id of no key: its own one-line error.
        const missing = cli(env, 'keys', 'revoke', '00000000-0000-0000-0000-000000000000');
        assert.equal(missing.status, 1);
        assert.equal(missing.stderr, 'partner-reports: no API key 00000000-0000-0000-0000-000000000000\n');
      } finally {
        if (database) await database.dispose();
      }
    });
  });
}

test('beside a server holding the embedded database, the commands run inside it and take effect at once', async () => {
  const env: NodeJS.ProcessEnv = { DATA_DIR: tmp('pr-cli-held-'), DATABASE_URL: '' };
  assert.equal(cli(env, 'import', writeSmallBundle(tmp('pr-cli-held-good-'))).status, 0);
  const port = 19_000 + Math.floor(Math.random() * 900);
  // The server and the commands with different temporary directories (where the server's
  // socket lives): the commands find it through DATA_DIR all the same.
  const server = spawn(process.execPath, cliArgs('serve', '--port', String(port)), { cwd: root, env: { ...process.env, LOG_LEVEL: 'warn', ...env, TMPDIR: tmp('pr-srv-') }, stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
  const commandTmp = tmp('pr-cmd-');
  // spawnSync would block this process's event loop, not the server's: the commands run beside it.
  const run = (...args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, cliArgs(...args), { cwd: root, env: { ...process.env, LOG_LEVEL: 'warn', ...env, TMPDIR: commandTmp } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      child.on('exit', (status) => resolve({ status, stdout, stderr }));
    });
  const events = (key: string) => fetch(`http://127.0.0.1:${port}/v1/attribution/event-types`, { headers: { 'api-key': key } }).then((r) => r.status);
  try {
    await until(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined)) !== undefined, 60_000, 200);

    const created = await run('keys', 'create', '--org', ORG.ACME, '--user', USERS.ACME_ADMIN, '--name', 'beside');
    assert.equal(created.status, 0, created.stderr);
    const key = created.stdout.trim().split('\n').at(-1)!;
    assert.equal(await events(key), 200, 'a key created beside the server works at once');
    const keyId = /^([0-9a-f-]{36})\tbeside/m.exec((await run('keys', 'list', '--org', ORG.ACME)).stdout)![1]!;
    assert.equal((await run('keys', 'revoke', keyId)).status, 0);
    assert.equal(await events(key), 401, 'a key revoked beside the server is refused at once');

    // A failure in the server comes back as the command's own: message and exit status.
    const unknown = await run('keys', 'create', '--org', ORG.ACME, '--user', 'nobody@acme.test');
    assert.deepEqual([unknown.status, /no user nobody@acme\.test/.test(unknown.stderr)], [1, true]);
    const bad = await run('import', writeSmallBundle(tmp('pr-cli-held-bad-'), { users: [...BUNDLE.users!, { org: ORG.ACME, email: 'x@acme.test' }] }));
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /users\.ndjson:\d+: name: missing required field/);
    // An unreadable bundle file (read by the server, which forwards the import) is the command's problem; the server stays up.
    const unreadable = writeSmallBundle(tmp('pr-cli-held-unreadable-'));
    mkdirSync(join(unreadable, 'accounts.csv'));
    rmSync(join(unreadable, 'accounts.ndjson'));
    const refused = await run('import', unreadable);
    assert.equal(refused.status, 1, refused.stderr);
    assert.match(refused.stderr, /^accounts\.csv:0: -: cannot be read \(EISDIR: illegal operation on a directory\)$/m);
    const againDir = writeSmallBundle(tmp('pr-cli-held-again-'));
    writeFileSync(join(againDir, 'README.md'), 'about this bundle\n');
    const again = await run('import', againDir);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /data version 1 \(nothing changed: the report tables were kept\)/);
    assert.match(again.stdout, /^ignored \(not bundle files\): README\.md$/m);
    const renamed = BUNDLE.accounts!.map((a) => ((a as { crmAccountId: string }).crmAccountId === 'A1' ? { ...a, name: 'Renamed beside the server' } : a));
    const changed = await run('import', writeSmallBundle(tmp('pr-cli-held-changed-'), { accounts: renamed }));
    assert.equal(changed.status, 0, changed.stderr);
    assert.match(changed.stdout, /accounts: 0 inserted, 1 updated, \d+ unchanged\n[^]*data version 2\n/);

    const second = await run('serve', '--port', String(port + 1));
    assert.equal(second.status, 1);
    assert.match(second.stderr, /another partner-reports server holds the embedded database/);
  } finally {
    server.kill('SIGTERM');
  }
  assert.equal(await exited, 0, 'graceful shutdown exits 0');
  assert.equal(existsSync(join(env.DATA_DIR!, '.partner-reports-server')), false, 'the pointer to the socket goes with the server');
  // What the server wrote is what is on disk after it stops: the revocation stayed.
  assert.match(cli(env, 'keys', 'list', '--org', ORG.ACME).stdout, /\tbeside\t\S+\t\S+\t\S+\t\S+\t20\d\d-/);
});
