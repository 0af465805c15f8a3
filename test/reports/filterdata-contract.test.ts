/**
 * Contract sections 2, 4 and 5 on `/filterdata` and `/columns`: `{}` is accepted for every
 * report (a given context is still validated and narrows), `sort` is validated as on
 * `/records`, and the filter on `filterField` is validated but not applied.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { BUNDLE, ORG } from '../fixtures/small-bundle.js';
import { readsAsItself } from '../../src/reports/filter-language.js';

const R = '/v1/report-analytics/report';
const GVA = `${R}/GLOBAL_VERTICAL_ACCOUNTS`;
const ATTRIBUTION = ['ATTRIBUTION_EVENTS', 'PIPELINE_ATTRIBUTION_SUMMARY', 'PIPELINE_ATTRIBUTION_DETAIL'] as const;
/** A string and a number column of each attribution report. */
const FIELDS: Record<(typeof ATTRIBUTION)[number], { text: string; range: string }> = {
  ATTRIBUTION_EVENTS: { text: 'event_name', range: 'event_date' },
  PIPELINE_ATTRIBUTION_SUMMARY: { text: 'opp_name', range: 'total_attribution_events' },
  PIPELINE_ATTRIBUTION_DETAIL: { text: 'event_name', range: 'number_days_to_new_opp' },
};
const CONNECTED = [ORG.ALPHA, ORG.BETA, ORG.GAMMA];

for (const engine of engines) {
  describe(`filterdata and columns contract on ${engine.name}`, () => {
    let f: FixtureApp;
    /** Every connected partner and every event type: the widest context a caller can give. */
    let everything: { partnerPublicIds: string[]; eventTypeCodes: string[] };
    before(async () => {
      f = await fixtureApp(engine);
      const types = (await f.call('GET', '/v1/attribution/event-types')).json() as Array<{ code: string }>;
      everything = { partnerPublicIds: CONNECTED, eventTypeCodes: types.map((t) => t.code) };
    });
    after(() => f.close());

    const values = async (url: string, body: object) => (await f.ok(url, body)).content.map((c: any) => c.filterData);
    const fields = (problem: { errors?: Array<{ field: string }> }) => (problem.errors ?? []).map((e) => e.field).sort();

    test('filterdata accepts {} on the attribution reports: values over every connected partner and event type', async () => {
      for (const report of ATTRIBUTION) {
        const { text, range } = FIELDS[report];
        const url = (field: string) => `${R}/${report}/filterdata?filterField=${field}&size=2000`;
        const all = await values(url(text), {});
        assert.ok(all.length > 0, report);
        assert.deepEqual(all, await values(url(text), { context: everything }), `${report} ${text}`);
        assert.deepEqual((await f.ok(url(range), {})).content, (await f.ok(url(range), { context: everything })).content, `${report} ${range}`);
        // A context that is given still narrows the values ...
        const gamma = await values(url(text), { context: { ...everything, partnerPublicIds: [ORG.GAMMA] } });
        assert.ok(gamma.length < all.length && gamma.every((v: string) => all.includes(v)), `${report}: ${gamma} within ${all}`);
        // ... and is still validated exactly as on /records.
        assert.deepEqual(fields(await f.problem(url(text), { context: {} })), ['context.eventTypeCodes', 'context.partnerPublicIds'], report);
        const bad = await f.problem(url(text), { context: { partnerPublicIds: [ORG.EPSILON], eventTypeCodes: ['NOPE'] } });
        assert.deepEqual(fields(bad), ['context.eventTypeCodes[0]', 'context.partnerPublicIds[0]'], report);
      }
      // Neither a disconnected partner's event nor another organization's is offered.
      const names = await values(`${R}/ATTRIBUTION_EVENTS/filterdata?filterField=event_name`, {});
      assert.ok(names.includes('List one') && names.includes('Same day'), String(names));
      assert.ok(!names.includes('Disconnected partner') && !names.includes('Other secret event'), String(names));
    });

    test('columns accepts {} on the attribution reports; a given context is still validated', async () => {
      for (const report of ATTRIBUTION) {
        const columns = await f.ok(`${R}/${report}/columns`, {});
        assert.ok(columns.length > 0, report);
        assert.deepEqual(columns, await f.ok(`${R}/${report}/columns`, { context: everything }), report);
        assert.deepEqual(fields(await f.problem(`${R}/${report}/columns`, { context: { eventTypeCodes: ['NOPE'] } })), ['context.eventTypeCodes[0]', 'context.partnerPublicIds'], report);
      }
    });

    test('records, download and dashboard still require the context', async () => {
      for (const report of ATTRIBUTION) {
        for (const op of ['records', 'download', 'dashboard']) {
          assert.deepEqual(fields(await f.problem(`${R}/${report}/${op}`, {})), ['context.eventTypeCodes', 'context.partnerPublicIds'], `${report}/${op}`);
        }
      }
    });

    test('filterdata validates sort as /records does, and keeps the values ascending', async () => {
      for (const sort of ['nope', 'city,up', 'city,asc&sort=bogus,desc']) {
        const records = await f.problem(`${GVA}/records?sort=${sort}`, {});
        const filterdata = await f.problem(`${GVA}/filterdata?filterField=city&sort=${sort}`, {});
        assert.deepEqual(filterdata.errors, records.errors, sort);
        assert.deepEqual(fields(filterdata), ['sort'], sort);
      }
      const plain = await f.ok(`${GVA}/filterdata?filterField=city`, {});
      const sorted = await f.ok(`${GVA}/filterdata?filterField=city&sort=city,desc&sort=account_name`, {});
      // A valid sort changes no value and no order; the envelope says a sort was asked for, as on /records.
      assert.deepEqual({ ...sorted, sort: plain.sort, pageable: { ...sorted.pageable, sort: plain.sort } }, plain, 'a valid sort changes nothing');
      assert.deepEqual([sorted.sort, sorted.pageable.sort], [{ unsorted: false, sorted: true, empty: false }, { unsorted: false, sorted: true, empty: false }]);
      // Reported together with the other problems of the request.
      const together = await f.problem(`${GVA}/filterdata?filterField=city&sort=nope`, { filters: { account_acv: 'abc', nope: 'x' } });
      assert.deepEqual(fields(together), ['filters.account_acv', 'filters.nope', 'sort']);
      assert.deepEqual(fields(await f.problem(`${GVA}/filterdata?filterField=bogus&sort=nope`, {})), ['filterField', 'sort']);
    });

    test('every report operation validates page, size and sort as /records does; where they do not apply they change nothing', async () => {
      const channelColumns = { channelReportType: 'PARTNER_ORG_MATCHED_ACCOUNTS', matchingType: 'MUTUAL', companyPartnerPublicId: ORG.ALPHA };
      const operations: Array<[string, object]> = [
        [`${GVA}/columns`, {}],
        [`${GVA}/dashboard`, {}],
        [`${GVA}/download`, {}],
        [`${R}/ATTRIBUTION_EVENTS/dashboard`, { context: everything }],
        ['/v1/channelecosystem/columns', channelColumns],
      ];
      const records = await f.problem(`${GVA}/records?page=abc&size=0&sort=nope`, {});
      assert.deepEqual(fields(records), ['page', 'size', 'sort']);
      for (const [url, body] of operations) {
        const bad = await f.problem(`${url}?page=abc&size=0&sort=nope`, body);
        assert.deepEqual(fields(bad), ['page', 'size', 'sort'], url);
        // The same messages (the sort's names the operation's report).
        assert.deepEqual(bad.errors!.filter((e) => e.field !== 'sort'), records.errors!.filter((e) => e.field !== 'sort'), url);
        assert.match(bad.errors!.find((e) => e.field === 'sort')!.message, /^unknown sort property "nope"/, url);
        // Listed with the body's problems.
        assert.deepEqual(fields(await f.problem(`${url}?sort=nope`, { ...body, search: 5 })), ['search', 'sort'], url);
        const plain = await f.call('POST', url, body);
        const given = await f.call('POST', `${url}?page=3&size=5&sort=${url.includes('channel') ? 'accountName' : url.includes('ATTRIBUTION') ? 'event_date' : 'city'},desc`, body);
        assert.equal(given.statusCode, 200, url);
        if (!url.endsWith('/download')) assert.deepEqual(given.json(), plain.json(), `${url}: valid paging changes nothing`);
      }
    });

    test('filterdata validates the filter on filterField like /records, but does not apply it', async () => {
      const body = { filters: { account_acv: 'abc' } };
      const records = await f.problem(`${GVA}/records`, body);
      const filterdata = await f.problem(`${GVA}/filterdata?filterField=account_acv`, body);
      assert.deepEqual(filterdata.errors, records.errors);
      assert.deepEqual(fields(filterdata), ['filters.account_acv']);
      const unsupported = { filters: { city: '1<->2' } };
      assert.deepEqual((await f.problem(`${GVA}/filterdata?filterField=city`, unsupported)).errors, (await f.problem(`${GVA}/records`, unsupported)).errors);
      // A valid one is still left out.
      const range = await f.ok(`${GVA}/filterdata?filterField=account_acv`, {});
      assert.deepEqual(await f.ok(`${GVA}/filterdata?filterField=account_acv`, { filters: { account_acv: '0<->1' } }), range);
      const cities = await values(`${GVA}/filterdata?filterField=city`, {});
      assert.deepEqual(await values(`${GVA}/filterdata?filterField=city`, { filters: { city: cities[0] } }), cities);
    });

    test('channel filterdata: the filter on filterField is left out when either names it by an alias', async () => {
      const body = (filters: object) => ({ channelReportType: 'PARTNER_ORG_CONNECTED_PARTNER_ORGS', filters });
      const url = `/v1/channelecosystem/filterdata?filterField=partnerOrgName`;
      const all = await values(url, body({}));
      assert.equal(all.length, 3);
      assert.deepEqual(await values(url, body({ partnerName: 'Alpha Partners' })), all);
      assert.deepEqual(await values(`/v1/channelecosystem/filterdata?filterField=partnerName`, body({ partnerOrgName: 'Alpha Partners' })), all);
      assert.deepEqual(fields(await f.problem(url, body({ partnerName: 'x-?-', partnerOrgName: 'a<->b' }))), ['filters.partnerOrgName']);
    });

    test('problems of the query and of the body are listed in one answer (contract section 1)', async () => {
      const body = { filters: { bogus: '1', city: '1<->2' } };
      for (const path of ['records?page=-1&size=0', 'download?size=0', 'filterdata?page=-1&sort=nope']) {
        const expected = { 'records?page=-1&size=0': ['filters.bogus', 'filters.city', 'page', 'size'], 'download?size=0': ['filters.bogus', 'filters.city', 'size'], 'filterdata?page=-1&sort=nope': ['filterField', 'filters.bogus', 'filters.city', 'page', 'sort'] }[path];
        assert.deepEqual(fields(await f.problem(`${GVA}/${path}`, body)), expected, path);
      }
      const channel = { channelReportType: 'PARTNER_ORG_CONNECTED_PARTNER_ORGS', filters: { bogus: '1', recommended: 'maybe' } };
      assert.deepEqual(fields(await f.problem('/v1/channelecosystem/records?page=-1&size=0', channel)), ['filters.bogus', 'filters.recommended', 'page', 'size']);
      // A body the JSON schema refuses (search must be a string) never reaches the
      // planner; the query's problems are listed with the schema's all the same.
      const malformed = { search: 5 };
      assert.deepEqual(fields(await f.problem(`${GVA}/records?page=-1`, malformed)), ['page', 'search']);
      assert.deepEqual(fields(await f.problem(`${GVA}/download?size=x`, malformed)), ['search', 'size']);
      assert.deepEqual(fields(await f.problem(`${GVA}/filterdata?sort=,`, malformed)), ['filterField', 'search', 'sort']);
      assert.deepEqual(fields(await f.problem('/v1/channelecosystem/filterdata?page=-1', { channelReportType: 'PARTNER_ORG_CONNECTED_PARTNER_ORGS', search: 5 })), ['filterField', 'page', 'search']);
      assert.deepEqual(fields(await f.problem(`${GVA}/records`, malformed)), ['search'], 'a valid query adds nothing');
    });

    test('a parameter given twice is named with every other problem, whatever the body', async () => {
      const body = { filters: { nope: 'x' } };
      const records = await f.problem(`${GVA}/records?sort=a,asc&sort=b,asc&page=1&page=2&size=abc`, body);
      assert.deepEqual(fields(records), ['filters.nope', 'page', 'size', 'sort', 'sort']);
      assert.match(records.errors!.find((e) => e.field === 'page')!.message, /given more than once/);
      const values = await f.problem(`${GVA}/filterdata?filterField=a&filterField=b&filterSearch=x&filterSearch=y&size=abc`, body);
      assert.deepEqual(fields(values), ['filterField', 'filterSearch', 'filters.nope', 'size']);
      assert.match(values.errors!.find((e) => e.field === 'filterField')!.message, /must be given once/);
      const channel = await f.problem('/v1/channelecosystem/records?size=1&size=2&page=x', { channelReportType: 'PARTNER_ORG_CONNECTED_PARTNER_ORGS', filters: { nope: 'x' } });
      assert.deepEqual(fields(channel), ['filters.nope', 'page', 'size']);
    });

    test('a body the JSON schema refuses still gets the planner\'s problems with the other fields (contract section 1)', async () => {
      // The planner runs on the fields the schema accepted; what it finds is listed with the schema's problems.
      const events = await f.problem(`${R}/ATTRIBUTION_EVENTS/records`, { context: { partnerPublicIds: [], eventTypeCodes: [] }, filters: { x: 'y' }, search: 5 });
      assert.deepEqual(fields(events), ['context.eventTypeCodes', 'context.partnerPublicIds', 'filters.x', 'search']);
      const unknown = await f.problem(`${GVA}/records?page=-1&sort=nope`, { bogus: 1, filters: { nope: 'x' }, columns: ['zzz'] });
      assert.deepEqual(fields(unknown), ['bogus', 'columns[0]', 'filters.nope', 'page', 'sort']);
      // A refused field is named once, by the schema: the planner's view of it (here: missing) is left out,
      // while the rest of the same object is checked (eventTypeCodes is missing indeed).
      const context = await f.problem(`${R}/ATTRIBUTION_EVENTS/records`, { context: { partnerPublicIds: 'x' }, filters: { nope: 'x' } });
      assert.deepEqual(fields(context), ['context.eventTypeCodes', 'context.partnerPublicIds', 'filters.nope']);
      assert.deepEqual(fields(await f.problem(`${R}/ATTRIBUTION_EVENTS/records`, { context: 'x', search: 5 })), ['context', 'search']);
      // Only the refused value goes: its siblings in filters, context and columns are still checked.
      const nested = await f.problem(`${R}/ATTRIBUTION_EVENTS/records`, { context: { partnerPublicIds: ['zz'], eventTypeCodes: ['NOPE'], dateRangeDays: -1, bogus: 1 } });
      assert.deepEqual(fields(nested), ['context.bogus', 'context.dateRangeDays', 'context.eventTypeCodes[0]', 'context.partnerPublicIds[0]']);
      assert.deepEqual(fields(await f.problem(`${R}/ATTRIBUTION_EVENTS/records`, { context: { partnerPublicIds: [5], eventTypeCodes: ['FOO'] } })), ['context.eventTypeCodes[0]', 'context.partnerPublicIds[0]']);
      assert.deepEqual(fields(await f.problem(`${GVA}/records`, { filters: { city: 5, nope: 'x', state: '1<->2' } })), ['filters.city', 'filters.nope', 'filters.state']);
      // The other items keep their indexes.
      assert.deepEqual(fields(await f.problem(`${GVA}/records`, { columns: [5, 'bad', 'city'] })), ['columns[0]', 'columns[1]']);
      // A sibling whose key extends the refused one's is still its own field.
      assert.deepEqual(fields(await f.problem(`${GVA}/records`, { filters: { city: 5, 'city.x': 'y' } })), ['filters.city', 'filters.city.x']);
      // A body nested thousands deep is still a 400 naming the field, never a 500.
      const deepArray = `${'['.repeat(5000)}${']'.repeat(5000)}`;
      const deep = await f.app.inject({ method: 'POST', url: `${GVA}/records`, headers: { 'api-key': f.keys.acme, 'content-type': 'application/json' }, payload: `{"nope":${deepArray},"filters":{"city":${deepArray}}}` });
      assert.equal(deep.statusCode, 400, deep.body.slice(0, 300));
      assert.deepEqual(fields(deep.json()), ['filters.city', 'nope']);
      // Past 100 problems, the count covers every one of them.
      const many = await f.problem(`${GVA}/records`, { filters: Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`f${i}`, 1])), columns: ['zzz'] });
      assert.equal(many.errors!.length, 101);
      assert.equal(many.errors![100]!.message, '21 more problems not listed');
      assert.match(many.detail, /^121 problems: /);
      // Many bad items of one field do not hide another field: each field is listed once before any field twice.
      const ids = Array.from({ length: 150 }, (_, i) => `bbbbbbbb-0000-4000-8000-${String(i).padStart(12, '0')}`);
      const crowded = await f.problem(`${R}/ATTRIBUTION_EVENTS/records`, { context: { partnerPublicIds: ids, eventTypeCodes: ['NOPE', 'NADA'] } });
      assert.deepEqual(
        crowded.errors!.map((e) => e.field),
        [...ids.slice(0, 99).map((_, i) => `context.partnerPublicIds[${i}]`), 'context.eventTypeCodes[0]', 'request'],
      );
      assert.equal(crowded.errors![100]!.message, '52 more problems not listed');
      // Also when the planner finds most of them, with the schema, the query or NUL refusing something.
      const unknownColumns = Array.from({ length: 150 }, (_, i) => `nope${i}`);
      for (const [url, body] of [
        [`${GVA}/records`, { search: 5, columns: unknownColumns }],
        [`${GVA}/records?page=1&page=2`, { columns: unknownColumns }],
        [`${GVA}/records`, { search: 'a\u0000', columns: unknownColumns }],
      ] as const) {
        const counted = await f.problem(url, body);
        assert.match(counted.detail, /^151 problems: /, url);
        assert.equal(counted.errors![100]!.message, '51 more problems not listed', url);
      }
      // A channel request without a report still names its query's problems.
      assert.deepEqual(fields(await f.problem('/v1/channelecosystem/records?page=1&page=2&size=x', {})), ['channelReportType', 'page', 'size']);
      assert.deepEqual(fields(await f.problem('/v1/channelecosystem/filterdata?filterField=a&filterField=b', { channelReportType: 5 })), ['channelReportType', 'filterField']);
      // One that names no report is 404, as an unknown report type in a path is, whatever the query says.
      assert.deepEqual(fields(await f.problem('/v1/channelecosystem/records?page=1&page=2&size=x', { channelReportType: 'NOPE' }, 404)), ['channelReportType']);
      for (const op of ['filterdata?filterField=nope', 'columns', 'dashboard', 'download']) {
        assert.deepEqual(fields(await f.problem(`${R}/ATTRIBUTION_EVENTS/${op}`, { context: { partnerPublicIds: [ORG.ALPHA], eventTypeCodes: ['NOPE'] }, search: 5 })), [...(op.startsWith('filterdata') ? ['filterField'] : []), 'context.eventTypeCodes[0]', 'search'].sort(), op);
      }
      const channel = await f.problem('/v1/channelecosystem/records', { channelReportType: 'PARTNER_ORG_MATCHED_ACCOUNTS', matchingType: 'MUTUAL', companyPartnerPublicId: ORG.DELTA, search: 5, filters: { nope: 'x' } });
      assert.deepEqual(fields(channel), ['companyPartnerPublicId', 'filters.nope', 'search']);
    });
  });
}

/** City values the filter language reads as something other than themselves (readsAsItself), and look-alikes it reads as themselves. */
const UNNAMEABLE = ['', 'Foo-,-Bar', '1<->2', 'Trail-!-', 'Q-?-', 'x-^-', '-!-'];
const NAMEABLE = ['Plain-!-x', 'a-,b', '<- > no', 'Dash-', '-?'];

for (const engine of engines) {
  describe(`filterdata offers only values that work as exact filters, on ${engine.name}`, () => {
    // Spec 4.4 rule 2: every value /filterdata offers works as-is as an exact-match filter.
    // The filter language has no escape, so a value that is empty (contract 3: 400), holds
    // "-,-" or "<->", or ends in an operation's suffix cannot be named, and is not offered.
    // A3's city is the empty string; each other city is one more account matched to Alpha.
    const cities = [...UNNAMEABLE.slice(1), ...NAMEABLE];
    const bundle = {
      accounts: [
        ...BUNDLE.accounts!.map((a: any) => (a.org === ORG.ACME && a.crmAccountId === 'A3' ? { ...a, city: '' } : a)),
        ...cities.map((city, i) => ({ org: ORG.ACME, crmAccountId: `X${i}`, name: `Syntax ${i}`, city })),
      ],
      account_matches: [...BUNDLE.account_matches!, ...cities.map((_, i) => ({ org: ORG.ACME, crmAccountId: `X${i}`, partner: ORG.ALPHA, partnerCrmAccountId: 'PA1', firstMatchDate: 0 }))],
    };
    const apps: Record<string, FixtureApp> = {};
    before(async () => {
      apps.stored = await fixtureApp(engine, { bundle });
      apps.sql = await fixtureApp(engine, { bundle, reports: { columnStore: false, precomputed: false, pageCacheRows: 0 } });
      apps.held = await fixtureApp(engine, { bundle, reports: { columnStore: { minRows: 0, waitForLoads: true } } });
    });
    after(async () => {
      for (const f of Object.values(apps)) await f.close();
    });

    test('the JavaScript rule', () => {
      for (const v of UNNAMEABLE) assert.equal(readsAsItself(v), false, v);
      for (const v of NAMEABLE) assert.equal(readsAsItself(v), true, v);
    });

    test('stored values, the column store and SQL: only nameable values, counted and paged without the others; those are still no exact filter', async () => {
      const rows = (await apps.sql!.ok(`${GVA}/records?size=2000&columns=city`, { columns: ['city'] })).content.map((r: any) => r.city);
      for (const v of [...UNNAMEABLE, ...NAMEABLE]) assert.ok(rows.includes(v), `the fixture has the city ${JSON.stringify(v)}`);
      const expected = [...new Set<string>(rows.filter((c: string | null) => c !== null && !UNNAMEABLE.includes(c)))].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : a < b ? -1 : 1));
      for (const [name, f] of Object.entries(apps)) {
        // {} (every row: the stored dictionary where there is one) and a filtered body (no stored answer).
        for (const body of [{}, { filters: { account_name: 'zzz-^-' } }, { filters: { country: 'ZZ-!-' } }]) {
        // The other bodies keep every row but are no stored answer (the column store answers the last).
          const all = await f.ok(`${GVA}/filterdata?filterField=city&size=2000`, body);
          const offered = all.content.map((c: any) => c.filterData);
          assert.deepEqual(offered, expected, `${name} ${JSON.stringify(body)}`);
          assert.equal(all.totalElements, offered.length, name);
          for (const [page, size] of [[0, 1], [1, 1], [2, 3], [1, 4]] as const) {
            const part = await f.ok(`${GVA}/filterdata?filterField=city&size=${size}&page=${page}`, body);
            assert.deepEqual([part.content.map((c: any) => c.filterData), part.totalElements], [offered.slice(page * size, (page + 1) * size), offered.length], `${name}: page ${page} of size ${size}`);
          }
          for (const value of offered) {
            const matched = (await f.ok(`${GVA}/records?size=2000`, { filters: { city: value } })).content.map((r: any) => r.city);
            assert.ok(matched.length > 0 && matched.every((c: string) => c === value), `${name}: ${value} as a filter gives ${matched}`);
          }
          // filterSearch goes through the same rule ("-" is in most of them).
          const dashed = await f.ok(`${GVA}/filterdata?filterField=city&size=2000&filterSearch=-`, body);
          assert.deepEqual(dashed.content.map((c: any) => c.filterData), expected.filter((v) => v.includes('-')), `${name}: filterSearch`);
        }
      }
      assert.deepEqual((await apps.stored!.problem(`${GVA}/records`, { filters: { city: '' } })).errors!.map((e) => e.field), ['filters.city']);
    });
  });
}
