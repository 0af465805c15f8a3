/**
 * "Last N days" windows pinned to stored dates (src/reports/date-windows.ts) give exactly
 * the answers of the unpinned windows, with the clock one second before, at and after
 * every stored event date and opportunity creation date, on the three attribution
 * reports; and a repeated request a second later is answered from the cache while no
 * stored date is crossed, and computed again when one is.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engines } from '../helpers/engines.js';
import { adminCaller, fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { BUNDLE, DAY, ORG } from '../fixtures/small-bundle.js';
import { createReportService, type ReportCall, type ReportService } from '../../src/reports/service.js';
import { jsonOf } from '../../src/reports/cache.js';
import type { Caller } from '../../src/server/access/caller.js';

const DAYS = 100;
const CONTEXT = { partnerPublicIds: [ORG.ALPHA, ORG.BETA, ORG.GAMMA], eventTypeCodes: ['ACTION_LIST', 'WORKFLOW', 'CRM_UPDATE'] };
const REQUESTS: Array<[string, object]> = [
  ['ATTRIBUTION_EVENTS', { context: { ...CONTEXT, dateRangeDays: DAYS } }],
  ['PIPELINE_ATTRIBUTION_DETAIL', { context: { ...CONTEXT, dateRangeDays: DAYS, oppCreatedDateDays: DAYS } }],
  ['PIPELINE_ATTRIBUTION_DETAIL', { context: { ...CONTEXT, oppCreatedDateDays: DAYS } }],
  ['PIPELINE_ATTRIBUTION_SUMMARY', { context: { ...CONTEXT, dateRangeDays: DAYS, oppCreatedDateDays: DAYS } }],
  ['PIPELINE_ATTRIBUTION_SUMMARY', { context: { ...CONTEXT, dateRangeDays: DAYS } }],
];

/** Clock values (ms) that put a window's start one second before, at and after each stored date. */
const DATES = [
  ...(BUNDLE.events as Array<{ org: string; eventDate: number }>).filter((e) => e.org === ORG.ACME).map((e) => e.eventDate),
  ...(BUNDLE.opportunities as Array<{ org: string; createdDate: number }>).filter((o) => o.org === ORG.ACME).map((o) => o.createdDate),
];
const CLOCKS = [...new Set(DATES.flatMap((d) => [d - 1, d, d + 1]).map((start) => (start + DAYS * DAY) * 1000))].sort((a, b) => a - b);

for (const engine of engines) {
  describe(`"last N days" windows pinned to stored dates on ${engine.name}`, () => {
    let f: FixtureApp;
    let caller: Caller;
    let now = 0;
    before(async () => {
      f = await fixtureApp(engine);
      caller = await adminCaller(f.database);
    });
    after(() => f.close());

    const service = (options: { pinWindows?: boolean; pageCacheRows?: number } = {}) => createReportService({ database: f.database, clock: () => now, ...options });
    const call = (reportId: string, body: object): ReportCall => ({ caller, reportId, query: { size: '50' }, body: body as Record<string, unknown> });
    const records = async (s: ReportService, reportId: string, body: object) => JSON.parse(jsonOf(await s.records(call(reportId, body))));

    test('the same rows, totals and dashboards as the unpinned windows, around every stored date, the clock moving either way', async () => {
      const pinned = service();
      const plain = service({ pinWindows: false });
      const totals = new Set<string>();
      // Forward, then back: a start moving back out of the interval found before is looked up again.
      for (const clock of [...CLOCKS, ...[...CLOCKS].reverse()]) {
        now = clock;
        for (const [report, body] of REQUESTS) {
          const what = `${report} ${JSON.stringify(body)} at ${clock}`;
          const [a, b] = await Promise.all([records(pinned, report, body), records(plain, report, body)]);
          assert.deepEqual(a, b, what);
          assert.deepEqual(await pinned.dashboard(call(report, body)), await plain.dashboard(call(report, body)), what);
          totals.add(`${report}:${a.totalElements}`);
        }
      }
      // The clocks cross stored dates: the windows did select different rows along the way.
      assert.ok(totals.size > REQUESTS.length + 3, `totals vary with the clock (${[...totals].join(' ')})`);
    });

    test('a second later the answer comes from the cache until the start passes a stored date', async () => {
      const s = service({ pageCacheRows: 1000 });
      const [report, body] = REQUESTS[0]!;
      // ACME's events in the window's partners, by date: E4, E2, E1, E5, E7, E3 (E6's partner is not connected).
      const dateOf = (id: string) => (BUNDLE.events as Array<{ eventId: string; eventDate: number }>).find((e) => e.eventId === id)!.eventDate;
      now = (dateOf('E2') + 1 + DAYS * DAY) * 1000;
      const first = await records(s, report, body);
      assert.ok(first.totalElements > 1);
      // Renamed behind the service's back: only a computed answer shows it.
      await sql`update rpt_attribution_events set event_name = 'renamed' where org_id = ${caller.orgId}`.execute(f.database.db);
      now += 1000;
      assert.deepEqual(await records(s, report, body), first, 'one second later: the cached answer');
      now = (dateOf('E1') + DAYS * DAY) * 1000;
      assert.deepEqual(await records(s, report, body), first, 'up to the next stored date (E1) itself: the cached answer');
      now += 1000;
      const crossed = await records(s, report, body);
      assert.equal(crossed.totalElements, first.totalElements - 1, 'E1 left the window');
      assert.ok(crossed.content.every((r: { event_name: string }) => r.event_name === 'renamed'), 'computed again');
    });
  });
}

for (const engine of engines) {
  describe(`ETags of "last N days" requests on ${engine.name}`, () => {
    let f: FixtureApp;
    let caller: Caller;
    let now = 0;
    // When set, the clock the service reads while planning (a window that moved between
    // the request's arrival and its plan).
    let atPlan: number | undefined;
    before(async () => {
      f = await fixtureApp(engine, { clock: () => (atPlan !== undefined && /planUntimed/.test(new Error().stack ?? '') ? atPlan : now) });
      caller = await adminCaller(f.database);
    });
    after(() => f.close());

    const post = (url: string, body: object, tag?: string) =>
      f.app.inject({ method: 'POST', url, headers: { 'api-key': f.keys.acme, 'content-type': 'application/json', ...(tag ? { 'if-none-match': tag } : {}) }, payload: JSON.stringify(body) });

    test('a tag holds while the windows in effect do, a 304 always stands for the answer of that second, and tags name windows, not seconds', async () => {
      // The reference: no pinning, no caches, computed at each clock.
      const plain = createReportService({ database: f.database, clock: () => now, pinWindows: false, pageCacheRows: 0 });
      for (const [report, body] of REQUESTS) {
        for (const operation of ['records', 'dashboard'] as const) {
          const url = `/v1/report-analytics/report/${report}/${operation}?size=50`;
          const what = `${report} ${operation} ${JSON.stringify(body)}`;
          let tag: string | undefined;
          let answer: unknown;
          const tagOf = new Map<string, string>();
          let notModified = 0;
          // Forward, then back: the span a tag holds over has a start as well as an end.
          for (const clock of [...CLOCKS, ...[...CLOCKS].reverse()]) {
            now = clock;
            const c: ReportCall = { caller, reportId: report, query: { size: '50' }, body: body as Record<string, unknown> };
            const expected = operation === 'records' ? JSON.parse(jsonOf(await plain.records(c))) : await plain.dashboard(c);
            const res = await post(url, body, tag);
            if (res.statusCode === 304) {
              notModified++;
              assert.equal(res.headers.etag, tag, `${what} at ${clock}`);
              assert.deepEqual(expected, answer, `${what} at ${clock}: a 304 for the same answer`);
              continue;
            }
            assert.equal(res.statusCode, 200, `${what} at ${clock}: ${res.body}`);
            assert.deepEqual(res.json(), expected, `${what} at ${clock}`);
            answer = expected;
            tag = String(res.headers.etag);
            // The same answer computed at another second (the clock in another gap) may
            // have another tag, but one tag never stands for two answers.
            const seen = tagOf.get(tag);
            if (seen !== undefined) assert.equal(seen, JSON.stringify(expected), `${what} at ${clock}: one tag, one answer`);
            tagOf.set(tag, JSON.stringify(expected));
          }
          assert.ok(notModified >= CLOCKS.length / 2, `${what}: tags held across seconds (${notModified} of ${2 * CLOCKS.length} requests answered 304)`);
          assert.ok(tagOf.size > 1, `${what}: tags changed as windows moved`);
        }
      }
    });

    test('a repeat a second later is answered from the memo without planning; crossing a stored date plans again', async () => {
      const [report, body] = REQUESTS[0]!;
      const url = `/v1/report-analytics/report/${report}/records?size=50`;
      const dateOf = (id: string) => (BUNDLE.events as Array<{ eventId: string; eventDate: number }>).find((e) => e.eventId === id)!.eventDate;
      now = (dateOf('E2') + 1 + DAYS * DAY) * 1000;
      const first = await post(url, body);
      assert.equal(first.statusCode, 200);
      now += 1000;
      const again = await post(url, body);
      assert.equal(again.headers.etag, first.headers.etag);
      assert.equal(again.body, first.body);
      assert.match(String(again.headers['server-timing']), /^plan;dur=0\.00,/, 'not planned');
      now = (dateOf('E1') + 1 + DAYS * DAY) * 1000;
      const crossed = await post(url, body, String(first.headers.etag));
      assert.equal(crossed.statusCode, 200, 'E1 left the window: not a 304');
      assert.notEqual(crossed.headers.etag, first.headers.etag);
      assert.equal(crossed.json().totalElements, first.json().totalElements - 1);
    });

    test('a window that moves between arrival and plan gives the answer the tag of the windows it was computed with', async () => {
      const [report, body] = REQUESTS[0]!;
      const url = `/v1/report-analytics/report/${report}/dashboard`;
      const dateOf = (id: string) => (BUNDLE.events as Array<{ eventId: string; eventDate: number }>).find((e) => e.eventId === id)!.eventDate;
      now = (dateOf('E2') + 1 + DAYS * DAY) * 1000;
      const before_ = await post(url, body);
      now += 1000; // still inside the span of the first tag
      atPlan = (dateOf('E1') + 1 + DAYS * DAY) * 1000; // E1 has left the window by the time the plan is made
      try {
        const raced = await post(url, body);
        assert.equal(raced.statusCode, 200);
        assert.notDeepEqual(raced.json(), before_.json(), 'computed with the moved window');
        assert.notEqual(raced.headers.etag, before_.headers.etag, 'so not under the old tag');
      } finally {
        atPlan = undefined;
      }
      const again = await post(url, body, String(before_.headers.etag));
      assert.equal(again.statusCode, 304, 'the old tag still stands for the old windows');
    });

    test('without pinning a relative window holds for its second alone; fixed windows for ever', async () => {
      now = CLOCKS[0]!;
      const seen: Array<{ key: string; after: number; until: number }> = [];
      const s = createReportService({ database: f.database, clock: () => now, pinWindows: false });
      const c = (b: object): ReportCall => ({ caller, reportId: 'ATTRIBUTION_EVENTS', query: {}, body: b as Record<string, unknown>, windowsInEffect: (v) => seen.push(v) });
      await s.records(c({ context: { ...CONTEXT, dateRangeDays: DAYS } }));
      const second = Math.floor(now / 1000);
      assert.deepEqual(seen.pop(), { key: `eventDate:${second - DAYS * DAY}`, after: second - 1, until: second });
      await s.records(c({ context: { ...CONTEXT, eventDateStart: 0, eventDateEnd: second, dateRangeDays: DAYS } }));
      assert.deepEqual(seen.pop(), { key: '', after: -Infinity, until: Infinity });
    });
  });
}
