/**
 * The fast paths return exactly what the plain path returns: keyset seeks from page
 * boundaries (forced from the first row here) against OFFSET paging, cached counts and
 * pages against fresh ones, and the figures precomputed at import (row counts, ranges,
 * value dictionaries for counts, filter values and contains, stored dashboards) against
 * the same figures computed from the report rows, on every report and several orders.
 * CSV lines formatted in SQL match the reference cell rules applied to the same rows.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { ORG } from '../fixtures/small-bundle.js';
import { csvCell, csvField } from '../../src/reports/render/csv.js';

const R = '/v1/report-analytics/report';
const CONTEXT = { partnerPublicIds: [ORG.ALPHA, ORG.BETA, ORG.GAMMA], eventTypeCodes: ['ACTION_LIST', 'WORKFLOW', 'CRM_UPDATE'] };

const QUERIES: Array<[string, string, object]> = [
  [`${R}/GLOBAL_VERTICAL_ACCOUNTS/records`, '', {}],
  [`${R}/GLOBAL_VERTICAL_ACCOUNTS/records`, '&sort=partner_account_type,asc&sort=crm_account_id,desc', {}],
  [`${R}/GLOBAL_VERTICAL_ACCOUNTS/records`, '&sort=account_acv,desc', { filters: { account_name: 'acme-?-' } }],
  [`${R}/GLOBAL_VERTICAL_ACCOUNTS/records`, '&sort=custom_ispartnerpaid,desc', {}],
  [`${R}/GLOBAL_VERTICAL_OPPORTUNITIES/records`, '&sort=amount,asc', {}],
  [`${R}/ATTRIBUTION_EVENTS/records`, '', { context: CONTEXT }],
  [`${R}/ATTRIBUTION_EVENTS/records`, '&sort=partner_org_name,desc', { context: CONTEXT }],
  [`${R}/PIPELINE_ATTRIBUTION_DETAIL/records`, '&sort=number_days_to_new_opp,asc', { context: CONTEXT }],
  [`${R}/PIPELINE_ATTRIBUTION_SUMMARY/records`, '&sort=total_attribution_events,desc', { context: CONTEXT }],
  ['/v1/channelecosystem/records', '&sort=partnerType,desc', { channelReportType: 'PARTNER_ORG_CONNECTED_PARTNER_ORGS' }],
];

for (const engine of engines) {
  describe(`keyset pages and caches on ${engine.name}`, () => {
    let plain: FixtureApp;
    let keyset: FixtureApp;
    before(async () => {
      plain = await fixtureApp(engine, { reports: { keysetFromOffset: Number.MAX_SAFE_INTEGER, precomputed: false, pageCacheRows: 0 } });
      keyset = await fixtureApp(engine, { reports: { keysetFromOffset: 1 } });
    });
    after(async () => {
      await plain.close();
      await keyset.close();
    });

    test('every page of every query is identical on the keyset and OFFSET paths', async () => {
      for (const [url, query, body] of QUERIES) {
        for (const size of [1, 2, 3]) {
          for (let page = 0; page <= 7; page++) {
            const u = `${url}?page=${page}&size=${size}${query}`;
            const [a, b] = await Promise.all([plain.ok(u, body), keyset.ok(u, body)]);
            assert.deepEqual(b, a, u);
          }
        }
      }
    });

    test('repeated requests (cached counts and boundaries) give the same answers', async () => {
      for (const [url, query, body] of QUERIES) {
        const u = `${url}?page=1&size=2${query}`;
        const first = await keyset.ok(u, body);
        const again = await keyset.ok(u, body);
        assert.deepEqual(again, first, u);
      }
    });
  });
}

const GVA = `${R}/GLOBAL_VERTICAL_ACCOUNTS`;

/** Filters over the precomputed dictionary columns (and others), each a count/page the fast path answers differently. */
const FILTERS: object[] = [
  {},
  { country: 'US' },
  { country: 'US-,-DE-,-nowhere' },
  { country: 'US-!-' },
  { city: 'an-?-' },
  { city: 'SAN-,-fran-?-' },
  { city: 'o-^-' },
  { state: 'CA-!-' },
  { account_type: 'cust-?-', country: 'US' },
  { partner_org_name: 'alpha-?-', city: 'a-?-' },
  { partner_account_type: 'x-^-' },
  { account_name: 'acme-?-', city: 'land-^-' },
  { account_acv: '100<->' },
  { country: 'nowhere' },
  // Dictionary filters that resolve to no value or to every value (dictionary-filters.ts).
  { city: 'qqqq-?-' },
  { city: 'qqqq-?-', account_name: 'acme-?-' },
  { state: 'zz-^-' },
  { state: 'zz-^-', country: 'US' },
  { state: 'zz-^-', account_acv: '100<->' },
  { country: 'u-?-' },
  { country: 'u-^-' },
];

const FIELDS = ['city', 'country', 'state', 'partner_org_name', 'partner_account_type', 'account_name', 'account_acv', 'recent_open_opp_date', 'partner_first_match_date'];

for (const engine of engines) {
  describe(`precomputed figures equal computed ones on ${engine.name}`, () => {
    let plain: FixtureApp;
    let fast: FixtureApp;
    before(async () => {
      plain = await fixtureApp(engine, { reports: { precomputed: false, pageCacheRows: 0 } });
      fast = await fixtureApp(engine);
    });
    after(async () => {
      await plain.close();
      await fast.close();
    });

    test('counts and pages of filters on dictionary columns, with and without search', async () => {
      const dictionaries = await fast.database.db.selectFrom('rpt_summaries' as never).select('col' as never).where('tbl' as never, '=', 'rpt_global_accounts' as never).where('has_values' as never, '=', true as never).execute();
      const names = dictionaries.map((d: Record<string, unknown>) => d.col);
      for (const c of ['city', 'country', 'state', 'partner_org_name', 'account_type']) assert.ok(names.includes(c), `dictionary for ${c}: ${names.join(', ')}`);
      for (const filters of FILTERS) {
        for (const search of ['', 'san', 'acme holdings']) {
          for (const q of ['?size=2', '?page=1&size=2&sort=city,desc']) {
            const body = { filters, search };
            const [a, b] = await Promise.all([plain.ok(`${GVA}/records${q}`, body), fast.ok(`${GVA}/records${q}`, body)]);
            assert.deepEqual(b, a, `${q} ${JSON.stringify(body)}`);
            assert.deepEqual(await fast.ok(`${GVA}/records${q}`, body), a, `repeat ${q} ${JSON.stringify(body)}`);
          }
        }
      }
    });

    test('filter values and ranges: stored ones equal computed ones, for every page and filterSearch', async () => {
      const RANGE_FIELDS = new Set(['account_acv', 'recent_open_opp_date', 'partner_first_match_date']);
      for (const field of FIELDS) {
        for (const filterSearch of ['', 'a', 'SAN']) {
          for (const [page, size] of [[0, 20], [0, 1], [1, 2], [5, 2]] as const) {
            // A filter on the listed field itself: validated (so one its type takes), not applied.
            const own = RANGE_FIELDS.has(field) ? '0<->1' : 'zz-^-';
            for (const body of [{}, { filters: { [field]: own } }, { filters: { country: 'US' } }, { filters: { state: 'zz-^-' } }, { filters: { city: 'qqqq-?-' } }, { filters: { city: 'an-?-', state: 'zz-^-' } }]) {
              const u = `${GVA}/filterdata?filterField=${field}&page=${page}&size=${size}${filterSearch ? `&filterSearch=${filterSearch}` : ''}`;
              const [a, b] = await Promise.all([plain.ok(u, body), fast.ok(u, body)]);
              assert.deepEqual(b, a, `${u} ${JSON.stringify(body)}`);
            }
          }
        }
      }
    });

    test('dashboards: the stored unfiltered one equals the computed one; filtered ones agree', async () => {
      for (const filters of FILTERS) {
        const [a, b] = await Promise.all([plain.ok(`${GVA}/dashboard`, { filters }), fast.ok(`${GVA}/dashboard`, { filters })]);
        assert.deepEqual(b, a, JSON.stringify(filters));
      }
      const opp = `${R}/GLOBAL_VERTICAL_OPPORTUNITIES/dashboard`;
      assert.deepEqual(await fast.ok(opp, {}), await plain.ok(opp, {}));
    });

    test('CSV downloads of filters on dictionary columns equal the plain ones', async () => {
      for (const filters of FILTERS) {
        for (const q of ['', '?sort=city,desc']) {
          const [a, b] = await Promise.all([plain.call('POST', `${GVA}/download${q}`, { filters }), fast.call('POST', `${GVA}/download${q}`, { filters })]);
          assert.equal(a.statusCode, 200);
          assert.equal(b.body, a.body, `${q} ${JSON.stringify(filters)}`);
        }
      }
    });

    test('CSV lines formatted in SQL equal the reference cell rules over the same rows', async () => {
      for (const [report, body] of [['GLOBAL_VERTICAL_ACCOUNTS', {}], ['GLOBAL_VERTICAL_OPPORTUNITIES', { filters: { amount: '0<->' } }], ['ATTRIBUTION_EVENTS', { context: CONTEXT }], ['PIPELINE_ATTRIBUTION_DETAIL', { context: CONTEXT }], ['PIPELINE_ATTRIBUTION_SUMMARY', { context: CONTEXT }]] as const) {
        const page = await plain.ok(`${R}/${report}/records?size=2000`, body);
        const res = await fast.call('POST', `${R}/${report}/download`, body);
        assert.equal(res.statusCode, 200);
        const keys = Object.keys(page.content[0] ?? {});
        const expected = [keys.map(csvField).join(','), ...page.content.map((row: Record<string, unknown>) => keys.map((k) => csvField(csvCell(row[k]))).join(','))].join('\r\n') + '\r\n';
        assert.equal(res.body, expected, report);
      }
    });
  });
}

for (const engine of engines) {
  describe(`conditional requests and timing on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine);
    });
    after(() => f.close());

    test('ETag from data version and request; If-None-Match answers 304; errors get no tag', async () => {
      const url = `${R}/GLOBAL_VERTICAL_ACCOUNTS/records?size=2`;
      const first = await f.call('POST', url, {});
      assert.equal(first.statusCode, 200);
      const etag = String(first.headers.etag);
      assert.match(etag, /^W\/"\d+\.[0-9a-f]{8}-[\w-]+"$/);
      const again = await f.app.inject({ method: 'POST', url, headers: { 'api-key': f.keys.acme, 'content-type': 'application/json', 'if-none-match': etag }, payload: '{}' });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
      const otherPage = await f.call('POST', `${R}/GLOBAL_VERTICAL_ACCOUNTS/records?size=3`, {});
      assert.notEqual(otherPage.headers.etag, etag);
      const otherTenant = await f.call('POST', url, {}, f.keys.other);
      assert.notEqual(otherTenant.headers.etag, etag);
      const bad = await f.call('POST', url, { filters: { nope: 'x' } });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.headers.etag, undefined);
      // A new import bumps the data version, so the old tag no longer matches.
      await f.database.db.updateTable('service_state').set({ value: '999' }).where('key', '=', 'data_version').execute();
      const afterImport = await f.app.inject({ method: 'POST', url, headers: { 'api-key': f.keys.acme, 'content-type': 'application/json', 'if-none-match': etag }, payload: '{}' });
      assert.equal(afterImport.statusCode, 200);
      assert.match(String(afterImport.headers.etag), /^W\/"999\.[0-9a-f]{8}-/);
    });

    test('Server-Timing reports plan, db and render', async () => {
      const res = await f.call('POST', `${R}/GLOBAL_VERTICAL_ACCOUNTS/filterdata?filterField=city`, {});
      assert.match(String(res.headers['server-timing']), /^plan;dur=\d+\.\d\d, db;dur=\d+\.\d\d, render;dur=\d+\.\d\d$/);
    });
  });
}
