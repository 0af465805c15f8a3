/**
 * The fast paths return exactly what the plain path returns: keyset seeks from page
 * boundaries (forced from the first row here) against OFFSET paging, and cached counts
 * against fresh ones, on every report and several orders.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { ORG } from '../fixtures/small-bundle.js';

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
      plain = await fixtureApp(engine, { reports: { keysetFromOffset: Number.MAX_SAFE_INTEGER } });
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
      assert.match(etag, /^W\/"\d+-[\w-]+"$/);
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
      assert.match(String(afterImport.headers.etag), /^W\/"999-/);
    });

    test('Server-Timing reports plan, db and render', async () => {
      const res = await f.call('POST', `${R}/GLOBAL_VERTICAL_ACCOUNTS/filterdata?filterField=city`, {});
      assert.match(String(res.headers['server-timing']), /^plan;dur=\d+\.\d\d, db;dur=\d+\.\d\d, render;dur=\d+\.\d\d$/);
    });
  });
}
