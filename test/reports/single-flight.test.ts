/**
 * Identical requests that arrive together share one computation (src/reports/cache.ts
 * singleFlight): a count, filter values, a dashboard and a page are computed once for
 * ten concurrent identical requests, every request gets the same answer, a different
 * organization or request is never joined to another's computation, and a failed
 * computation is not remembered. (PGlite runs one statement at a time, so there the first
 * request has usually stored its figures before the others look: the request-level check
 * bites on PostgreSQL, the unit tests on both.)
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { memoryFigureCache, singleFlight, type FigureCache } from '../../src/reports/cache.js';

const GVA = '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS';

/** A figure cache that counts how many values of each kind were computed and stored. */
function countingCache(): FigureCache & { stored: Map<string, number> } {
  const inner = memoryFigureCache();
  const stored = new Map<string, number>();
  return {
    stored,
    get: (key) => inner.get(key),
    async set(key, value) {
      const kind = key.split(':')[0]!;
      stored.set(kind, (stored.get(kind) ?? 0) + 1);
      await inner.set(key, value);
    },
  };
}

describe('singleFlight', () => {
  test('joins calls of one key while the first runs, and forgets it when it settles', async () => {
    const flight = singleFlight();
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const compute = async () => {
      runs++;
      await gate;
      return { n: runs };
    };
    const calls = [flight('a', compute), flight('a', compute), flight('b', compute)];
    release();
    const [a1, a2, b] = await Promise.all(calls);
    assert.equal(runs, 2, 'one run for key a, one for key b');
    assert.equal(a1, a2, 'both callers of a get the same value');
    assert.notEqual(a1, b);
    await flight('a', compute);
    assert.equal(runs, 3, 'a settled computation is not reused');
  });

  test('a failure reaches every joined caller and is not remembered', async () => {
    const flight = singleFlight();
    let runs = 0;
    const failing = async () => {
      runs++;
      await new Promise((r) => setTimeout(r, 5));
      throw new Error('boom');
    };
    const results = await Promise.allSettled([flight('k', failing), flight('k', failing)]);
    assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected']);
    assert.equal(runs, 1);
    assert.equal(await flight('k', async () => 'ok'), 'ok');
  });
});

for (const engine of engines) {
  describe(`concurrent identical requests on ${engine.name}`, () => {
    let f: FixtureApp;
    let cache: ReturnType<typeof countingCache>;
    before(async () => {
      cache = countingCache();
      // No page cache: the page itself must also be computed once through the flight.
      f = await fixtureApp(engine, { reports: { cache, pageCacheRows: 0, precomputed: false } });
    });
    after(() => f.close());

    test('ten identical requests compute each figure once and get the same answer', async () => {
      const body = { filters: { country: 'US-,-DE' } };
      const pages = await Promise.all(Array.from({ length: 10 }, () => f.ok(`${GVA}/records?size=2`, body)));
      const values = await Promise.all(Array.from({ length: 10 }, () => f.ok(`${GVA}/filterdata?filterField=city`, body)));
      const boards = await Promise.all(Array.from({ length: 10 }, () => f.ok(`${GVA}/dashboard`, body)));
      for (const answers of [pages, values, boards]) for (const a of answers) assert.deepEqual(a, answers[0]);
      assert.ok(pages[0].totalElements > 0);
      assert.deepEqual(Object.fromEntries(cache.stored), { count: 1, 'filter-values': 1, dashboard: 1 });
    });

    test('another organization, or another request, is computed on its own', async () => {
      const body = { filters: { country: 'US' } };
      const [acme, other, acme2] = await Promise.all([
        f.ok(`${GVA}/dashboard`, body),
        f.ok(`${GVA}/dashboard`, body, f.keys.other),
        f.ok(`${GVA}/dashboard`, { filters: { country: 'DE' } }),
      ]);
      assert.equal(cache.stored.get('dashboard'), 4, 'three more dashboards: two organizations, two requests');
      assert.notDeepEqual(acme, other);
      assert.notDeepEqual(acme, acme2);
    });
  });
}
