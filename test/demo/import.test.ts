/**
 * The demo bundle through the real importer and reports: a scale-1 bundle imports into a
 * fresh database, and the reports of the demo organization show what the scale model
 * promises (2000 GLOBAL_VERTICAL_ACCOUNTS rows, 100 for the second tenant, attribution
 * data in the last 90 days of 2026-11-22).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { engines, type TestDatabase } from '../helpers/engines.js';
import { loadConfig } from '../../src/config.js';
import { buildApp, type App } from '../../src/server/app.js';
import { createApiKey } from '../../src/server/access/api-keys.js';
import { formatProblem, importBundle } from '../../src/ingest/import-bundle.js';
import { DEMO_ADMIN_EMAIL, DEMO_ORG_PUBLIC_ID } from '../../src/demo/generate.js';
import { demoBundle, readBundle, type Bundle } from './bundle-reader.js';
import { columnStore } from '../../src/reports/column-store.js';
import { loadPrecomputed } from '../../src/reports/precomputed.js';
import { loadOrgMetadata } from '../../src/reports/metadata.js';
import { buildPlan } from '../../src/reports/plan.js';
import { accelerate } from '../../src/reports/direct-sql.js';
import { reportById } from '../../src/reports/catalog/index.js';

const NOW = Date.UTC(2026, 10, 22);
const R = '/v1/report-analytics/report';

for (const engine of engines) {
  describe(`demo bundle imported on ${engine.name}`, () => {
    let database: TestDatabase;
    let bundle: Bundle;
    let app: App;
    let keys: { demo: string; tenantB: string };
    let tenantB: string;
    before(async () => {
      database = await engine.open();
      const written = await demoBundle(1, 42);
      try {
        bundle = readBundle(written.dir);
        const result = await importBundle(database, written.dir);
        if (!result.ok) assert.fail(`the demo bundle did not import:\n${result.problems.slice(0, 20).map(formatProblem).join('\n')}`);
        for (const c of result.counts) assert.equal(c.inserted, written.summary.files[`${c.entity}.ndjson`], `${c.entity} rows inserted`);
      } finally {
        written.dispose();
      }
      tenantB = bundle.opportunities.find((o) => o.org !== DEMO_ORG_PUBLIC_ID)!.org;
      const key = async (org: string, email: string) => {
        const o = await database.db.selectFrom('orgs').select('id').where('public_id', '=', org).executeTakeFirstOrThrow();
        const u = await database.db.selectFrom('users').select('id').where('org_id', '=', o.id).where('email', '=', email).executeTakeFirstOrThrow();
        return (await createApiKey(database.db, { orgId: o.id, userId: u.id, name: 'demo test' })).key;
      };
      const adminB = bundle.users.find((u) => u.org === tenantB && u.role === 'ADMIN')!.email;
      keys = { demo: await key(DEMO_ORG_PUBLIC_ID, DEMO_ADMIN_EMAIL), tenantB: await key(tenantB, adminB) };
      app = await buildApp({ config: { ...loadConfig({}), rateLimitPerMinute: 1_000_000 }, database, logger: false, clock: () => NOW });
    });
    after(async () => {
      await app?.close();
      await database?.dispose();
    });

    const post = async (url: string, body: unknown, key: string) => {
      const res = await app.inject({ method: 'POST', url, headers: { 'api-key': key, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      return res.json();
    };
    const connected = (org: string) => bundle.partnerships.filter((p) => p.org === org && p.status === 'CONNECTED').map((p) => p.partner);

    test('GLOBAL_VERTICAL_ACCOUNTS has 2000 rows for the demo organization and 100 for the second tenant', async () => {
      assert.equal((await post(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records?size=1`, {}, keys.demo)).totalElements, 2000);
      assert.equal((await post(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records?size=1`, {}, keys.tenantB)).totalElements, 100);
    });

    test('attribution reports have data in the last 90 days', async () => {
      const context = { partnerPublicIds: connected(DEMO_ORG_PUBLIC_ID), eventTypeCodes: ['ACTION_LIST', 'WORKFLOW'], dateRangeDays: 90, oppCreatedDateDays: 90 };
      for (const report of ['PIPELINE_ATTRIBUTION_SUMMARY', 'PIPELINE_ATTRIBUTION_DETAIL', 'ATTRIBUTION_EVENTS']) {
        const page = await post(`${R}/${report}/records?size=1`, { context }, keys.demo);
        assert.ok(page.totalElements >= 50, `${report}: ${page.totalElements} rows`);
      }
    });

    test('the connected partners of the demo organization', async () => {
      const page = await post('/v1/channelecosystem/records?size=50', { channelReportType: 'PARTNER_ORG_CONNECTED_PARTNER_ORGS' }, keys.demo);
      assert.deepEqual(page.content.map((r: { companyPartnerPublicId: string }) => r.companyPartnerPublicId).sort(), connected(DEMO_ORG_PUBLIC_ID).sort());
    });

    test('the column store answers counts, filter values and ranges over 2000 rows as SQL does', async () => {
      // Bitsets of many words, tests shared between requests (kept bitsets ANDed with new ones).
      const plain = await buildApp({ config: { ...loadConfig({}), rateLimitPerMinute: 1_000_000 }, database, logger: false, clock: () => NOW, reports: { columnStore: false, pageCacheRows: 0 } });
      const held = await buildApp({ config: { ...loadConfig({}), rateLimitPerMinute: 1_000_000 }, database, logger: false, clock: () => NOW, reports: { columnStore: { minRows: 0, waitForLoads: true } } });
      try {
        const ask = async (a: App, url: string, body: unknown) => {
          const res = await a.inject({ method: 'POST', url, headers: { 'api-key': keys.demo, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
          assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
          return res.json();
        };
        const GVA = `${R}/GLOBAL_VERTICAL_ACCOUNTS`;
        const filterSets: Array<Record<string, string>> = [
          { country: 'DE' },
          { country: 'DE-,-US', industry: 'Retail-!-' },
          { number_of_employees: '100<->5000' },
          { number_of_employees: '100<->5000', partner_first_match_date: '1735689600<->1767225600' },
          { number_of_employees: '100<->5001', partner_first_match_date: '1735689600<->1767225600' },
          { annual_revenue: '1000000<->', country: 'DE-!-' },
          { account_acv: '<->50000', city: 'an-?-', partner_org_name: 'a-?-' },
          { recent_open_opp_date: '1<->', territory: 'EMEA-?-' },
        ];
        const totals = new Set<number>();
        for (const filters of filterSets) {
          const [a, b] = await Promise.all([ask(plain, `${GVA}/records?size=5`, { filters }), ask(held, `${GVA}/records?size=5`, { filters })]);
          assert.deepEqual(b, a, JSON.stringify(filters));
          totals.add(a.totalElements);
          assert.deepEqual(await ask(held, `${GVA}/dashboard`, { filters }), await ask(plain, `${GVA}/dashboard`, { filters }), `dashboard ${JSON.stringify(filters)}`);
          for (const field of ['industry', 'country', 'annual_revenue', 'partner_first_match_date']) {
            const u = `${GVA}/filterdata?filterField=${field}&size=50`;
            assert.deepEqual(await ask(held, u, { filters }), await ask(plain, u, { filters }), `${field} ${JSON.stringify(filters)}`);
          }
        }
        assert.ok(totals.size >= 6 && [...totals].every((n) => n > 0 && n < 2000), `totals: ${[...totals].join(', ')}`);
        // And the store itself answered (it declines silently, leaving the answer to SQL).
        const org = await database.db.selectFrom('orgs').select('id').where('public_id', '=', DEMO_ORG_PUBLIC_ID).executeTakeFirstOrThrow();
        const pre = await loadPrecomputed(database.db, org.id);
        const meta = await loadOrgMetadata(database.db, org.id);
        const plan = accelerate(Object.assign(buildPlan({ report: reportById('GLOBAL_VERTICAL_ACCOUNTS'), meta, body: { filters: filterSets[3]!, search: '', columns: undefined, context: undefined }, paging: { page: 0, size: 20, sort: [] }, nowSeconds: 0 }), { version: 'x', pre }), pre);
        const fromStore = await columnStore({ db: database.db, minRows: 0, waitForLoads: true }).count(plan);
        assert.equal(fromStore, (await ask(plain, `${GVA}/records?size=1`, { filters: filterSets[3] })).totalElements);
        const dashboard = await columnStore({ db: database.db, minRows: 0, waitForLoads: true }).dashboard(plan);
        assert.ok(dashboard && Number(dashboard.totals.overlapping_accounts) > 1 && dashboard.byPartner.length > 1, 'the store computed the dashboard');
      } finally {
        await plain.close();
        await held.close();
      }
    });
  });
}
