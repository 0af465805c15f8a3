/**
 * answerWithin, the Redis rate limiter's wait: a reply that arrived while the event loop
 * was blocked past the wait is taken, not declared late (a plain timer fires before the
 * loop reads its sockets); a command with no reply is late after the wait.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { answerWithin } from '../../src/server/access/rate-limit-redis.js';
import { busy } from '../helpers/busy.js';

test('a reply that arrived while the event loop was blocked past the wait is taken', async () => {
  // Another process answers, as Redis does, while this one is blocked.
  const echo = spawn('cat', [], { stdio: ['pipe', 'pipe', 'ignore'] });
  try {
    echo.stdin.write('warm\n');
    await once(echo.stdout, 'data');
    const reply = new Promise<string>((resolve) => echo.stdout.once('data', (d: Buffer) => resolve(String(d))));
    echo.stdin.write('pong\n');
    const answer = answerWithin(reply, 50);
    busy(400);
    assert.equal(await answer, 'pong\n');
  } finally {
    echo.kill();
  }
});

test('a command without a reply is late after the wait, and one that fails fails', async () => {
  const started = Date.now();
  const answer = await answerWithin(new Promise<string>(() => undefined), 100);
  assert.equal(typeof answer, 'symbol', 'late');
  assert.ok(Date.now() - started >= 95, 'not before the wait');
  await assert.rejects(answerWithin(Promise.reject(new Error('refused')), 100), /refused/);
});
