/**
 * The Redis rate limiter against a real Redis: shared by instances, exact under
 * concurrency, and degrading to per-instance limits while Redis is down.
 * Needs REDIS_URL (and redis-server on the PATH for the outage test); skipped otherwise.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { redisRateLimiter } from '../../src/server/access/rate-limit-redis.js';
import { SIGN_IN_ATTEMPTS_PER_MINUTE, signInLimiter } from '../../src/server/routes/auth.js';

const REDIS_URL = process.env.REDIS_URL;
const skip = REDIS_URL ? false : 'REDIS_URL is not set';
if (skip) process.stdout.write('# Redis rate-limit tests skipped: REDIS_URL is not set\n');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await sleep(50);
  }
}

test('two instances sharing one Redis together allow exactly N of N+50 concurrent requests', { skip }, async () => {
  let now = 5_000_000;
  const prefix = `pr:test:${randomBytes(4).toString('hex')}:`;
  const a = redisRateLimiter({ url: REDIS_URL!, limit: 20, clock: () => now, prefix });
  const b = redisRateLimiter({ url: REDIS_URL!, limit: 20, clock: () => now, prefix });
  try {
    await until(async () => {
      await Promise.all([a.check('warm'), b.check('warm')]);
      return a.store() === 'redis' && b.store() === 'redis';
    });
    const decisions = await Promise.all(Array.from({ length: 70 }, (_, i) => (i % 2 ? a : b).check('key:shared')));
    assert.equal(decisions.filter((d) => d.allowed).length, 20);
    const denied = decisions.find((d) => !d.allowed)!;
    assert.deepEqual([denied.remaining, denied.resetSeconds], [0, 60]);
    assert.equal((await a.check('key:other')).allowed, true, 'keys are independent');
    now += 60_000;
    assert.equal((await b.check('key:shared')).allowed, true, 'the window rolls');
    assert.equal(a.store(), 'redis');
  } finally {
    await a.close();
    await b.close();
  }
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function hasRedisServer(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

test('Redis stopped mid-run: per-instance limits, then back to Redis when it returns', { skip: skip || (!hasRedisServer() && 'redis-server is not installed') }, async () => {
  const port = await freePort();
  const start = () => execFileSync('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'yes']);
  const stop = () => execFileSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave']);
  start();
  const changes: string[] = [];
  const limiter = redisRateLimiter({ url: `redis://127.0.0.1:${port}`, limit: 5, clock: Date.now, onStoreChange: (s) => changes.push(s) });
  try {
    await until(async () => {
      await limiter.check('k');
      return limiter.store() === 'redis';
    });
    changes.length = 0;
    stop();
    // Without any request meanwhile (an idle instance's /readyz): the connection says so.
    await until(() => limiter.store() !== 'redis');
    assert.equal(limiter.store(), 'memory (redis unavailable)');
    const during = await limiter.check('k2');
    assert.equal(during.allowed, true, 'requests are still served, limited per instance');
    start();
    await until(() => limiter.store() === 'redis', 10_000);
    assert.deepEqual(changes, ['memory (redis unavailable)', 'redis']);
    assert.equal((await limiter.check('k3')).allowed, true);
  } finally {
    await limiter.close();
    try {
      stop();
    } catch {
      /* already stopped */
    }
  }
});

test('sign-in attempts are limited across instances when Redis is shared', { skip }, async () => {
  const prefix = `pr:test:${randomBytes(4).toString('hex')}:signin:`;
  const [a, b] = [0, 1].map(() => signInLimiter({ redisUrl: REDIS_URL }, Date.now, undefined, prefix));
  try {
    // Connected, so that no attempt below falls back to a per-instance limit.
    const shared = (l: unknown) => (l as { store(): string }).store() === 'redis';
    await until(() => shared(a) && shared(b));
    const decisions = [];
    for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_MINUTE + 2; i++) decisions.push(await (i % 2 ? a! : b!).check('email:someone@example.test'));
    assert.deepEqual(decisions.map((d) => d.allowed), [...Array(SIGN_IN_ATTEMPTS_PER_MINUTE).fill(true), false, false]);
  } finally {
    await a!.close();
    await b!.close();
  }
});
