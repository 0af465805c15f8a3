/**
 * A 100,000-row CSV download streams: every row arrives and the server's memory (heap and
 * the buffers outside it, where the PostgreSQL path keeps its COPY batches) does not grow
 * with the row count (asserted loosely here; measured in the benchmark). On both engines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/server/app.js';
import { createApiKey } from '../../src/server/access/api-keys.js';
import { engines } from '../helpers/engines.js';

const ROWS = 100_000;

for (const engine of engines) test(`download of 100,000 rows on ${engine.name}: complete, in order, memory growth bounded`, async () => {
  const database = await engine.open();
  const org = await database.db.insertInto('orgs').values({ public_id: '44444444-4444-4444-8444-444444444444', name: 'Big Co' }).returning('id').executeTakeFirstOrThrow();
  await sql`insert into rpt_global_accounts (org_id, rid, partner_org_id, account_name, crm_account_id, annual_revenue, partner_org_name, partner_org_public_id)
    select ${org.id}, g, 0, 'Account ' || lpad(g::text, 6, '0'), 'C' || g, g * 1.5, 'Partner', '55555555-5555-4555-8555-555555555555'
    from generate_series(1, ${ROWS}) g`.execute(database.db);
  const { key } = await createApiKey(database.db, { orgId: org.id, userId: null, name: 'csv' });
  const app = await buildApp({ config: loadConfig({}), database, logger: false });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    global.gc?.();
    const used = () => {
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const before = used();
    let peak = before;
    const res = await fetch(`${url}/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/download`, { method: 'POST', headers: { 'api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ columns: ['crm_account_id', 'account_name', 'annual_revenue'] }) });
    assert.equal(res.status, 200);
    let lines = 0;
    let tail = '';
    let first = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      const text = tail + decoder.decode(chunk, { stream: true });
      const parts = text.split('\r\n');
      tail = parts.pop()!;
      if (!first) first = parts[1] ?? '';
      lines += parts.length;
      peak = Math.max(peak, used());
    }
    assert.equal(tail, '');
    assert.equal(lines, ROWS + 1, 'header and every row');
    assert.equal(first, 'C1,Account 000001,1.5');
    // The whole CSV is about 3 MB per 100,000 short rows and the server holds a few batches
    // of 10,000-20,000 rows, so this only catches a download that holds everything at once
    // for wide rows; generous slack for GC timing.
    assert.ok(peak - before < 64 * 1024 * 1024, `memory grew by ${Math.round((peak - before) / 1048576)} MiB`);
  } finally {
    await app.close();
    await database.dispose();
  }
});
