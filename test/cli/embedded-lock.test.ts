/**
 * One process at a time on the embedded database's DATA_DIR (src/cli/data-dir-lock.ts):
 * commands run at once, or while `serve` is still starting, each take effect, and none
 * loses another's change. Before the lock, two `keys create` at once both printed a key
 * and one was lost, and a `keys create` run while `serve` was starting printed a key the
 * server refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isHolder, lockFile, tryLockDataDir } from '../../src/cli/data-dir-lock.js';
import { cliArgs, root } from '../helpers/cli-process.js';
import { tempDirs } from '../helpers/temp-dirs.js';
import { until } from '../helpers/until.js';
import { ORG, USERS, writeSmallBundle } from '../fixtures/small-bundle.js';

const tmp = tempDirs();

type Run = { status: number | null; stdout: string; stderr: string };

/** The command as a process, not waited for synchronously (several run side by side). */
function run(env: NodeJS.ProcessEnv, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, cliArgs(...args), { cwd: root, env: { ...process.env, LOG_LEVEL: 'warn', DATABASE_URL: '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

const readLock = (dataDir: string) => {
  try {
    return readFileSync(lockFile(dataDir), 'utf8');
  } catch {
    return '';
  }
};

const keyOf = (r: Run) => r.stdout.trim().split('\n').at(-1)!;

test('the lock: taken when free or held by a process that is gone, refused while its holder runs, released only by its owner', () => {
  const dataDir = join(tmp('pr-lock-'), 'data');
  // A folder that does not exist yet is made.
  const mine = tryLockDataDir(dataDir, 'command');
  assert.ok(!isHolder(mine));
  assert.equal(readFileSync(lockFile(dataDir), 'utf8'), `${process.pid} command\n`);
  mine.release();
  assert.equal(existsSync(lockFile(dataDir)), false);

  // Held by a live process: refused, naming it.
  const sleeper = spawn('sleep', ['30']);
  try {
    writeFileSync(lockFile(dataDir), `${sleeper.pid} server\n`);
    assert.deepEqual(tryLockDataDir(dataDir, 'command'), { pid: sleeper.pid, role: 'server' });
  } finally {
    sleeper.kill();
  }
  // Left by a process that is gone: taken.
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  writeFileSync(lockFile(dataDir), `${gone.stdout} command\n`);
  const taken = tryLockDataDir(dataDir, 'server');
  assert.ok(!isHolder(taken));
  assert.equal(readFileSync(lockFile(dataDir), 'utf8'), `${process.pid} server\n`);
  // A lock file that is no longer ours (removed and taken by another) stays on release.
  writeFileSync(lockFile(dataDir), `1 command\n`);
  taken.release();
  assert.equal(readFileSync(lockFile(dataDir), 'utf8'), '1 command\n');
});

test('commands run at once on one embedded database each take effect', async () => {
  const env = { DATA_DIR: join(tmp('pr-lock-keys-'), 'data') };
  const imported = await run(env, 'import', writeSmallBundle(tmp('pr-lock-bundle-')));
  assert.equal(imported.status, 0, imported.stderr);
  const names = ['k1', 'k2', 'k3', 'k4', 'k5'];
  const created = await Promise.all(names.map((name) => run(env, 'keys', 'create', '--org', ORG.ACME, '--user', USERS.ACME_ADMIN, '--name', name)));
  for (const c of created) assert.equal(c.status, 0, c.stderr);
  const listed = (await run(env, 'keys', 'list', '--org', ORG.ACME)).stdout;
  assert.deepEqual(names.filter((name) => listed.includes(`\t${name}\t`)), names);
  assert.equal(existsSync(lockFile(env.DATA_DIR)), false, 'each gave the folder up');
});

test('a command run while serve is starting reaches the server once it is up; a second server is refused meanwhile', async () => {
  const env = { DATA_DIR: join(tmp('pr-lock-serve-'), 'data'), TMPDIR: tmp('pr-lock-tmp-') };
  assert.equal((await run(env, 'import', writeSmallBundle(tmp('pr-lock-bundle-')))).status, 0);
  const port = 19_000 + Math.floor(Math.random() * 900);
  const server = spawn(process.execPath, cliArgs('serve', '--port', String(port)), { cwd: root, env: { ...process.env, LOG_LEVEL: 'warn', DATABASE_URL: '', ...env }, stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
  try {
    // Sent as soon as the server holds the folder: before its database is open and its
    // command socket is up.
    await until(() => / server\n$/.test(readLock(env.DATA_DIR)), 60_000, 25);
    assert.match(readLock(env.DATA_DIR), / server\n$/);
    const [created, second] = await Promise.all([run(env, 'keys', 'create', '--org', ORG.ACME, '--user', USERS.ACME_ADMIN, '--name', 'early'), run(env, 'serve', '--port', String(port + 1))]);
    assert.equal(created.status, 0, created.stderr);
    assert.equal(second.status, 1);
    assert.match(second.stderr, /another partner-reports server holds the embedded database/);
    // The key was made in the server's database: it works there once it listens.
    await until(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined)) !== undefined, 60_000, 100);
    const answer = await fetch(`http://127.0.0.1:${port}/v1/attribution/event-types`, { headers: { 'api-key': keyOf(created) } });
    assert.equal(answer.status, 200);
  } finally {
    server.kill('SIGTERM');
  }
  assert.equal(await exited, 0);
  assert.equal(existsSync(lockFile(env.DATA_DIR)), false, 'the server gave the folder up');
  // And it is on disk after the server stopped.
  assert.match((await run(env, 'keys', 'list', '--org', ORG.ACME)).stdout, /\tearly\t/);
});
