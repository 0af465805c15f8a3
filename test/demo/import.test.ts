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
  });
}
