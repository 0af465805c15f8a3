/**
 * The in-memory figure cache (src/reports/cache.ts) keeps values as JSON text within a
 * byte budget: values come back equal (as new objects), and filling it past the budget
 * evicts the least recently used, however few the entries.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryFigureCache } from '../../src/reports/cache.js';

test('values round-trip as equal, separate objects', async () => {
  const cache = memoryFigureCache();
  const page = { totalElements: 2, content: [{ filterData: 'DE', filterRangeMin: null }, { filterData: 'ü "q"', filterRangeMin: 1.5 }] };
  await cache.set('values:1', page);
  await cache.set('count:1', 0);
  const back = await cache.get<typeof page>('values:1');
  assert.deepEqual(back, page);
  assert.notEqual(back, page);
  assert.equal(await cache.get('count:1'), 0);
  assert.equal(await cache.get('missing'), undefined);
});

test('the budget is in bytes: large values evict the oldest', async () => {
  const cache = memoryFigureCache(100_000);
  const big = (i: number) => ({ i, text: 'x'.repeat(10_000) });
  for (let i = 0; i < 10; i++) await cache.set(`k${i}`, big(i));
  // Ten values of about 20 KB each in a 100 KB budget: the first ones are gone.
  assert.equal(await cache.get('k0'), undefined);
  assert.deepEqual(await cache.get('k9'), big(9));
  let kept = 0;
  for (let i = 0; i < 10; i++) if ((await cache.get(`k${i}`)) !== undefined) kept++;
  assert.ok(kept >= 3 && kept <= 5, `kept ${kept}`);
});
