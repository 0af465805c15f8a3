/** The rolling per-key rate limit over HTTP with an injected clock. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { memoryRateLimiter } from '../../src/server/access/rate-limit.js';

const URL = '/v1/attribution/event-types';

for (const engine of engines) {
  describe(`rate limit on ${engine.name}`, () => {
    let f: FixtureApp;
    let now = 1_000_000;
    before(async () => {
      f = await fixtureApp(engine, { config: { rateLimitPerMinute: 20 }, access: { limiter: memoryRateLimiter(20, () => now) } });
    });
    after(() => f.close());

    test('exactly N of N+50 concurrent requests pass; the rest get 429 with Retry-After; keys are independent', async () => {
      const responses = await Promise.all(Array.from({ length: 70 }, () => f.call('GET', URL)));
      const ok = responses.filter((r) => r.statusCode === 200);
      const limited = responses.filter((r) => r.statusCode === 429);
      assert.equal(ok.length, 20);
      assert.equal(limited.length, 50);
      assert.equal(limited[0]!.headers['retry-after'], '60');
      assert.match(String(limited[0]!.headers['content-type']), /application\/problem\+json/);
      assert.equal(limited[0]!.headers['ratelimit-policy'], '"default";q=20;w=60');
      assert.equal(limited[0]!.headers.ratelimit, '"default";r=0;t=60');
      assert.equal((await f.call('GET', URL, undefined, f.keys.other)).statusCode, 200, 'another key has its own quota');
    });

    test('the window rolls: requests become possible as old ones age out, and rejected ones do not count', async () => {
      now += 30_000;
      const stillLimited = await f.call('GET', URL);
      assert.equal(stillLimited.statusCode, 429);
      assert.equal(stillLimited.headers['retry-after'], '30');
      now += 30_000; // the first 20 are now exactly 60 s old: out of the window
      const again = await f.call('GET', URL);
      assert.equal(again.statusCode, 200);
      assert.equal(again.headers.ratelimit, '"default";r=19;t=60');
    });
  });
}
