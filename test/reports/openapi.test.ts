/** The OpenAPI document and the reference page describe every endpoint, from the route schemas. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/server/app.js';
import { engines } from '../helpers/engines.js';

test('GET /openapi.json lists every endpoint with its body, responses and security; /docs renders', async () => {
  const database = await engines[0]!.open();
  const app = await buildApp({ config: loadConfig({}), database, logger: false });
  try {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.equal(doc.openapi, '3.1.0');
    const reports = ['PIPELINE_ATTRIBUTION_SUMMARY', 'PIPELINE_ATTRIBUTION_DETAIL', 'ATTRIBUTION_EVENTS', 'GLOBAL_VERTICAL_ACCOUNTS', 'GLOBAL_VERTICAL_OPPORTUNITIES'];
    for (const r of reports) {
      for (const op of ['records', 'filterdata', 'columns', 'download', 'dashboard']) {
        const path = doc.paths[`/v1/report-analytics/report/${r}/${op}`];
        assert.ok(path?.post, `${r}/${op}`);
        assert.ok(path.post.responses['400'] && path.post.responses['401'] && path.post.responses['429'], `${r}/${op} errors`);
      }
      const row = doc.paths[`/v1/report-analytics/report/${r}/records`].post.responses['200'].content['application/json'].schema.properties.content.items;
      assert.ok(Object.keys(row.properties).length > 15, `${r} row schema comes from the catalog`);
    }
    for (const p of ['/v1/attribution/event-types', '/v1/channelecosystem/report-names', '/v1/admin/api-keys']) assert.ok(doc.paths[p]?.get, p);
    for (const p of ['/v1/channelecosystem/records', '/v1/channelecosystem/columns', '/v1/channelecosystem/filterdata', '/v1/admin/api-keys', '/v1/auth/token']) assert.ok(doc.paths[p]?.post, p);
    assert.ok(doc.paths['/v1/admin/api-keys/{id}']?.delete);
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['apiKey', 'bearer']);
    const body = doc.paths['/v1/report-analytics/report/ATTRIBUTION_EVENTS/records'].post.requestBody.content['application/json'].schema;
    assert.deepEqual(Object.keys(body.properties).sort(), ['columns', 'context', 'filters', 'search']);
    // Query parameters as a client sends them once: a string each (a repeated one is a problem
    // the service names, not a type to offer); `sort` alone repeats.
    const params = (url: string) => Object.fromEntries(doc.paths[url].post.parameters.filter((q: any) => q.in === 'query').map((q: any) => [q.name, q.schema]));
    const records = params('/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records');
    const values = params('/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/filterdata');
    for (const q of [records.page, records.size, values.page, values.size, values.filterField, values.filterSearch]) assert.equal(q.type, 'string', JSON.stringify(q));
    assert.ok(records.sort.anyOf, 'sort is a string or an array');
    const page = await app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /swagger/i);
  } finally {
    await app.close();
    await database.dispose();
  }
});
