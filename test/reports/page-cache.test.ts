/**
 * The page cache (service.ts): a page answered once is answered again from its JSON text,
 * without a query, while the data version holds; a new data version computes it again;
 * the cache is bounded by rows, and a page pushed out is computed again. Driven through
 * the report service itself (the route's ETag memo would answer repeats on its own).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engines } from '../helpers/engines.js';
import { adminCaller, fixtureApp, NOW, type FixtureApp } from '../helpers/fixture-app.js';
import { createReportService, type ReportService } from '../../src/reports/service.js';
import { jsonOf, jsonPayload } from '../../src/reports/cache.js';
import type { Caller } from '../../src/server/access/caller.js';

for (const engine of engines) {
  describe(`page cache on ${engine.name}`, () => {
    let f: FixtureApp;
    let caller: Caller;
    before(async () => {
      f = await fixtureApp(engine);
      caller = await adminCaller(f.database);
    });
    after(() => f.close());

    const service = (pageCacheRows: number) => createReportService({ database: f.database, clock: () => NOW * 1000, pageCacheRows, precomputed: false });
    /** Page `n` of size 2 in the default order, parsed from the text the route would send. */
    const page = async (s: ReportService, n: number) =>
      JSON.parse(jsonOf(await s.records({ caller, reportId: 'GLOBAL_VERTICAL_ACCOUNTS', query: { page: String(n), size: '2' }, body: {} }))) as { content: Array<{ account_name: string }> };
    /** Renames the report rows of page `n` (rows are numbered in the default order) behind the service's back. */
    const rename = async (n: number, name: string) => {
      await sql`update rpt_global_accounts set account_name = ${name} where org_id = ${caller.orgId} and rid in (${2 * n + 1}, ${2 * n + 2})`.execute(f.database.db);
    };
    const names = (p: { content: Array<{ account_name: string }> }) => p.content.map((r) => r.account_name);

    test('a page seen before is answered from its text until the data version changes', async () => {
      const s = service(100);
      const first = await page(s, 0);
      assert.equal(first.content.length, 2);
      await rename(0, 'renamed once');
      assert.deepEqual(await page(s, 0), first, 'the cached text, no query');
      assert.deepEqual(names(await page(service(0), 0)), ['renamed once', 'renamed once'], 'without the cache the change shows');
      await sql`update service_state set value = (value::bigint + 1)::text where key = 'data_version'`.execute(f.database.db);
      assert.deepEqual(names(await page(s, 0)), ['renamed once', 'renamed once'], 'a new data version computes the page again');
    });

    test('writing a page counts as render time (Server-Timing), and a page from the cache writes nothing', async () => {
      const s = service(100);
      const timing = { plan: 0, render: 0 };
      await s.records({ caller, reportId: 'GLOBAL_VERTICAL_ACCOUNTS', query: { page: '0', size: '3' }, body: {}, timing });
      assert.ok(timing.plan > 0, 'planned');
      assert.ok(timing.render > 0, 'the rows were written, and timed as such');
      const again = { plan: 0, render: 0 };
      await s.records({ caller, reportId: 'GLOBAL_VERTICAL_ACCOUNTS', query: { page: '0', size: '3' }, body: {}, timing: again });
      assert.equal(again.render, 0, 'the cached text is not written again');
    });

    test('a page is held and sent as its UTF-8 bytes: Content-Length counts bytes, repeats are byte-identical', async () => {
      const name = 'Zürich ✓ 𝄞 日本 "q" \\';
      await rename(1, name);
      const answer = await service(100).records({ caller, reportId: 'GLOBAL_VERTICAL_ACCOUNTS', query: { page: '1', size: '2' }, body: {} });
      const payload = jsonPayload(answer);
      assert.ok(Buffer.isBuffer(payload), 'a page is sent as the bytes it was encoded to once');
      assert.equal(payload.toString('utf8'), jsonOf(answer));
      const bodies: string[] = [];
      for (let i = 0; i < 2; i++) {
        const res = await f.call('POST', '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records?page=1&size=2', {});
        assert.equal(res.statusCode, 200);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        assert.equal(Number(res.headers['content-length']), res.rawPayload.length);
        assert.ok(res.rawPayload.length > res.body.length, 'multi-byte characters counted as bytes');
        bodies.push(res.body);
      }
      assert.equal(bodies[1], bodies[0]);
      assert.deepEqual(names(JSON.parse(bodies[0]!)), [name, name]);
    });

    test('bounded by rows: the least recently used page goes first', async () => {
      const s = service(4);
      await page(s, 0);
      const p1 = await page(s, 1);
      const p2 = await page(s, 2); // 6 rows, at most 4 held: page 0 goes
      for (const n of [0, 1, 2]) await rename(n, 'renamed twice');
      assert.deepEqual(names(await page(s, 0)), ['renamed twice', 'renamed twice'], 'page 0 was pushed out and is computed again');
      // Page 0 back in pushed out page 1, the least recently used; page 2 is still held.
      assert.deepEqual(await page(s, 2), p2, 'page 2 still cached');
      assert.notDeepEqual(names(p1), ['renamed twice', 'renamed twice']);
      assert.deepEqual(names(await page(s, 1)), ['renamed twice', 'renamed twice'], 'page 1 was pushed out and is computed again');
    });
  });
}
