/**
 * A database dropped and created again under a running server (PostgreSQL) starts its
 * data and credentials versions over at the same numbers. The versions carry the
 * database's id (migration 0020), so nothing the server cached of the old database, a
 * page or a resolved key, is served for the new one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { engines } from '../helpers/engines.js';
import { createKeyFor, fixtureApp } from '../helpers/fixture-app.js';
import { BUNDLE, ORG, USERS, writeSmallBundle } from '../fixtures/small-bundle.js';
import { openDatabase } from '../../src/db/database.js';
import { importBundle } from '../../src/ingest/import-bundle.js';

const postgres = engines.find((e) => e.name === 'postgres');
const GVA = '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records?sort=crm_account_id,asc';

test('a database created again under the running app: its answers and keys, not the old one\'s', { skip: postgres ? false : 'DATABASE_URL is not set' }, async () => {
  const f = await fixtureApp(postgres!);
  try {
    const names = (page: { content: Array<{ crm_account_id: string; account_name: string }> }) => page.content.map((r) => `${r.crm_account_id}:${r.account_name}`);
    const before = names(await f.ok(GVA, {}));
    assert.ok(before.some((n) => n.startsWith('A1:') && !n.endsWith('Renamed')));

    // Dropped and created again by name, then filled as the first was (one import, the same
    // three keys: the same data and credentials versions), with account A1 renamed.
    const url = f.database.url!;
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    const name = new URL(url).pathname.slice(1);
    await admin.query(`drop database ${name} with (force)`);
    await admin.query(`create database ${name}`);
    await admin.end();
    // Reachable but empty: not ready (every request would fail on the missing tables).
    // The app's pooled connections to the dropped database fail first.
    let ready = await f.app.inject({ method: 'GET', url: '/readyz' });
    for (let i = 0; i < 5 && !/no schema/.test(ready.body); i++) ready = await f.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 503, ready.body);
    assert.match(ready.json().detail, /^the database has no schema/);
    const again = await openDatabase({ databaseUrl: url, maxConnections: 1 });
    const dir = mkdtempSync(join(tmpdir(), 'pr-recreated-'));
    let newKey: string;
    try {
      writeSmallBundle(dir, { accounts: BUNDLE.accounts!.map((a) => ((a as { crmAccountId: string }).crmAccountId === 'A1' ? { ...a, name: 'Renamed' } : a)) });
      assert.ok((await importBundle(again, dir)).ok);
      newKey = await createKeyFor(again, ORG.ACME, USERS.ACME_ADMIN);
      await createKeyFor(again, ORG.ACME, USERS.ACME_MEMBER);
      await createKeyFor(again, ORG.OTHER, USERS.OTHER_ADMIN);
      const versions = await again.db.selectFrom('service_state').select(['key', 'value']).where('key', 'in', ['data_version', 'credentials_version']).orderBy('key').execute();
      assert.equal(versions.find((v) => v.key === 'data_version')?.value, '1', 'the counters started over');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await again.close();
    }

    // The app's pooled connections to the dropped database are gone: a first answer may be a 503.
    let first = await f.call('POST', GVA, {}, newKey);
    for (let i = 0; i < 5 && first.statusCode === 503; i++) first = await f.call('POST', GVA, {}, newKey);
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(names(first.json()), before.map((n) => (n.startsWith('A1:') ? 'A1:Renamed' : n)), 'the new rows, not the page cached of the old');
    assert.equal((await f.call('POST', GVA, {})).statusCode, 401, 'a key of the old database is not let in');
    assert.equal((await f.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200, 'ready again once migrated');
  } finally {
    await f.close();
  }
});
