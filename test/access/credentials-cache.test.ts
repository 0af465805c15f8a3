/**
 * The access layer keeps resolved callers, and the report service keeps rendered pages
 * (with their JSON text), in memory. Neither may ever outlive the rows they came from: a
 * revocation, a removed key, a re-roled user or an import, by whatever path it is
 * committed, is in force on the very next request; and nothing cached for one
 * organization is answered to another.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { BUNDLE, ORG, USERS, writeSmallBundle } from '../fixtures/small-bundle.js';
import { formatProblem, importBundle } from '../../src/ingest/import-bundle.js';
import { keysRevokeCommand } from '../../src/cli/keys.js';
import { serviceStateReader } from '../../src/reports/data-version.js';

const EVENT_TYPES = '/v1/attribution/event-types';
const RECORDS = '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records';
const KEYS = '/v1/admin/api-keys';

for (const engine of engines) {
  describe(`cached callers and pages on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine);
    });
    after(() => f.close());

    const status = async (key: string, method: 'GET' | 'POST' = 'GET', url = EVENT_TYPES) => (await f.call(method, url, method === 'POST' ? {} : undefined, key)).statusCode;
    /** A new ADMIN key of ACME, already used (so its caller is cached) a few times. */
    const warmKey = async (): Promise<{ id: string; key: string }> => {
      const res = await f.call('POST', KEYS, { name: 'cached' });
      assert.equal(res.statusCode, 201, res.body);
      const { id, key } = res.json();
      for (let i = 0; i < 3; i++) assert.equal(await status(key), 200);
      return { id, key };
    };
    /** A statement on a connection of its own where there is one (PostgreSQL), as another process would. */
    const fromElsewhere = async (text: string, values: unknown[]) => {
      if (!f.database.url) {
        await sql.raw(text.replace(/\$(\d+)/g, (_m, i) => `'${String(values[Number(i) - 1])}'`)).execute(f.database.db);
        return;
      }
      const client = new pg.Client({ connectionString: f.database.url });
      await client.connect();
      try {
        await client.query(text, values);
      } finally {
        await client.end();
      }
    };

    test('a key revoked through the admin route is refused on the next request', async () => {
      const { id, key } = await warmKey();
      assert.equal((await f.call('DELETE' as 'GET', `${KEYS}/${id}`)).statusCode, 204);
      assert.equal(await status(key), 401);
      assert.equal(await status(key, 'POST', RECORDS), 401);
    });

    test('a key revoked by plain SQL from another connection is refused on the next request', async () => {
      const { id, key } = await warmKey();
      await fromElsewhere('update api_keys set revoked_at = now() where id = $1', [id]);
      assert.equal(await status(key), 401);
    });

    test('a key deleted from another connection, and then its user, is refused on the next request', async () => {
      const o = await f.database.db.selectFrom('orgs').select('id').where('public_id', '=', ORG.ACME).executeTakeFirstOrThrow();
      const u = await f.database.db.insertInto('users').values({ org_id: o.id, email: 'leaving@acme.test', name: 'Leaving', role: 'ADMIN' }).returning('id').executeTakeFirstOrThrow();
      const { createApiKey } = await import('../../src/server/access/api-keys.js');
      const created = await createApiKey(f.database.db, { orgId: o.id, userId: u.id, name: 'leaving' });
      for (let i = 0; i < 3; i++) assert.equal(await status(created.key), 200);
      await fromElsewhere('delete from api_keys where id = $1', [created.id]);
      await fromElsewhere('delete from users where id = $1', [u.id]);
      assert.equal(await status(created.key), 401);
    });

    test('keysRevokeCommand (the CLI, another process on PostgreSQL) is in force on the next request', { skip: engine.name === 'pglite' && 'the CLI opens its own database: only PostgreSQL is shared between processes' }, async () => {
      const { id, key } = await warmKey();
      const saved = process.env.DATABASE_URL;
      const write = process.stdout.write;
      process.env.DATABASE_URL = f.database.url;
      process.stdout.write = (() => true) as typeof process.stdout.write;
      try {
        await keysRevokeCommand(id);
      } finally {
        process.stdout.write = write;
        process.env.DATABASE_URL = saved;
      }
      assert.equal(await status(key), 401);
    });

    test('a re-roled user: ADMIN rights end (and come back) on the next request', async () => {
      const { key } = await warmKey();
      assert.equal(await status(key, 'GET', KEYS), 200);
      const owner = await f.database.db.selectFrom('api_keys').innerJoin('users', 'users.id', 'api_keys.user_id').select('users.id').where('api_keys.key_hash', '=', (await import('../../src/server/access/api-keys.js')).hashKey(key)).executeTakeFirstOrThrow();
      await fromElsewhere(`update users set role = 'MEMBER' where id = $1`, [owner.id]);
      assert.equal(await status(key, 'GET', KEYS), 403);
      await fromElsewhere(`update users set role = 'ADMIN' where id = $1`, [owner.id]);
      assert.equal(await status(key, 'GET', KEYS), 200);
    });

    test('an import that re-roles a user and changes the data is in force on the next request', async () => {
      const before = await f.ok(RECORDS, {});
      const admin = f.keys.acme;
      assert.equal(await status(admin, 'GET', KEYS), 200);
      const dir = mkdtempSync(join(tmpdir(), 'pr-reimport-'));
      try {
        const users = BUNDLE.users!.map((u) => ((u as { email: string }).email === USERS.ACME_ADMIN ? { ...u, role: 'MEMBER' } : u));
        const accounts = BUNDLE.accounts!.map((a) => ((a as { crmAccountId: string; org: string }).crmAccountId === 'A1' && (a as { org: string }).org === ORG.ACME ? { ...a, name: 'Acme Holdings Renamed' } : a));
        writeSmallBundle(dir, { users, accounts });
        const result = await importBundle(f.database, dir);
        if (!result.ok) assert.fail(result.problems.map(formatProblem).join('\n'));
        assert.equal(await status(admin, 'GET', KEYS), 403, 'the import made the user a MEMBER');
        const after = await f.ok(RECORDS, {});
        const names = (page: { content: Array<Record<string, unknown>> }) => JSON.stringify(page.content);
        assert.match(names(after), /Acme Holdings Renamed/);
        assert.doesNotMatch(names(before), /Acme Holdings Renamed/);
        // Back as it was, for the other tests.
        writeSmallBundle(dir, {});
        const back = await importBundle(f.database, dir);
        assert.ok(back.ok);
        assert.equal(await status(admin, 'GET', KEYS), 200);
        assert.deepEqual(await f.ok(RECORDS, {}), before);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    test('the same page request of two organizations: each gets its own page, on first and repeated requests', async () => {
      for (let round = 0; round < 3; round++) {
        const [acme, other] = await Promise.all([f.call('POST', RECORDS, {}, f.keys.acme), f.call('POST', RECORDS, {}, f.keys.other)]);
        assert.equal(acme.statusCode, 200);
        assert.equal(other.statusCode, 200);
        assert.notEqual(acme.body, other.body);
        assert.doesNotMatch(other.body, /Acme Holdings/);
        assert.equal(JSON.stringify(other.json()), other.body, 'the body is the JSON of the page');
      }
    });

    test('last-used timestamps are still written, without invalidating cached callers', async () => {
      const { id, key } = await warmKey();
      const version = async () => (await serviceStateReader(f.database)()).credentialsVersion;
      const v0 = await version();
      await fromElsewhere('update api_keys set last_used_at = now() where id = $1', [id]);
      assert.equal(await version(), v0, 'a last_used_at write does not change the credentials version');
      await fromElsewhere(`update api_keys set name = 'renamed' where id = $1`, [id]);
      assert.notEqual(await version(), v0, 'any other change of a key does');
      assert.equal(await status(key), 200);
    });
  });
}

describe('the version reader never hands a call a read that started before it', () => {
  test('a call made while a read is in flight gets the next read', async () => {
    // A fake database: each read returns the value of `committed` at the moment the
    // read starts, and finishes only when the test says so.
    let committed = 1;
    const reads: Array<{ value: number; finish: () => void }> = [];
    const fakeDatabase = {
      rows: () => {
        const value = committed;
        return new Promise((resolve) => reads.push({ value, finish: () => resolve([{ key: 'credentials_version', value: String(value) }, { key: 'data_version', value: '7' }]) }));
      },
    };
    const read = serviceStateReader(fakeDatabase as never);
    const first = read();
    assert.equal(reads.length, 1);
    committed = 2; // a revocation commits while the first read is in flight
    const second = read(); // a request arriving after the commit
    const third = read();
    reads[0]!.finish();
    assert.equal((await first).credentialsVersion, '1');
    await new Promise((r) => setImmediate(r));
    assert.equal(reads.length, 2, 'one more read for every call made during the first');
    reads[1]!.finish();
    assert.equal((await second).credentialsVersion, '2');
    assert.equal((await third).credentialsVersion, '2');
    assert.equal((await second).dataVersion, '7');
  });
});
