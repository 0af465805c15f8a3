/**
 * The Redis rate limiter against a real Redis: shared by instances, exact under
 * concurrency, and degrading to per-instance limits while Redis is down.
 * Needs REDIS_URL (and redis-server on the PATH for the outage test); skipped otherwise.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Socket } from 'node:net';
import { ANSWER_WITHIN_MS, redisRateLimiter } from '../../src/server/access/rate-limit-redis.js';
import { SIGN_IN_ATTEMPTS_PER_MINUTE, signInLimiter } from '../../src/server/routes/auth.js';
import { busy } from '../helpers/busy.js';

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

test('an event loop blocked past the 500 ms wait keeps the limit in Redis when Redis had answered', { skip }, async () => {
  const changes: string[] = [];
  const limiter = redisRateLimiter({ url: REDIS_URL!, limit: 5, clock: Date.now, prefix: `pr:test:${randomBytes(4).toString('hex')}:`, onStoreChange: (s) => changes.push(s) });
  try {
    await until(async () => {
      await limiter.check('warm');
      return limiter.store() === 'redis';
    });
    changes.length = 0;
    // The command is written before the block; Redis answers during it. A plain timer
    // fired first when the loop came back, and the request was limited per instance.
    const decision = limiter.check('k');
    busy(ANSWER_WITHIN_MS + 400);
    assert.equal((await decision).remaining, 4, 'counted in Redis');
    assert.deepEqual(changes, [], 'never fell back');
    assert.equal(limiter.store(), 'redis');
  } finally {
    await limiter.close();
  }
});

test('a Redis that stops answering without closing: the request waits about 500 ms, then per-instance limits', { skip }, async () => {
  // Through a proxy that can hold Redis's replies: pausing Redis itself (CLIENT PAUSE)
  // would stall every other test using it.
  const proxy = await replyHoldingProxy(REDIS_URL!);
  const changes: string[] = [];
  const limiter = redisRateLimiter({ url: proxy.url, limit: 5, clock: Date.now, prefix: `pr:test:${randomBytes(4).toString('hex')}:`, onStoreChange: (s) => changes.push(s) });
  try {
    await until(async () => {
      await limiter.check('warm');
      return limiter.store() === 'redis';
    });
    changes.length = 0;
    // Redis's replies are held from here on; the connection stays open.
    proxy.freeze();
    const started = Date.now();
    const during = await limiter.check('k');
    const waited = Date.now() - started;
    assert.equal(during.allowed, true, 'served, limited per instance');
    assert.ok(waited >= ANSWER_WITHIN_MS - 20 && waited < 1_500, `waited ${waited} ms`);
    assert.deepEqual(changes, ['memory (redis unavailable)']);
    // Back to Redis once it answers again.
    proxy.thaw();
    await until(async () => {
      await limiter.check('k');
      return limiter.store() === 'redis';
    }, 10_000);
  } finally {
    await limiter.close();
    proxy.close();
  }
});

/** A TCP proxy to the Redis of `redisUrl` that holds its replies while frozen and passes them on when thawed. */
async function replyHoldingProxy(redisUrl: string): Promise<{ url: string; freeze(): void; thaw(): void; close(): void }> {
  const target = new URL(redisUrl);
  let frozen = false;
  const pairs: Array<{ client: Socket; upstream: Socket; held: Buffer[] }> = [];
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    const pair = { client, upstream, held: [] as Buffer[] };
    pairs.push(pair);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d) => (frozen ? pair.held.push(d) : client.write(d)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(redisUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    freeze: () => void (frozen = true),
    thaw() {
      frozen = false;
      for (const pair of pairs) for (const d of pair.held.splice(0)) pair.client.write(d);
    },
    close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      server.close();
    },
  };
}
