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
