/** Keys and tokens never reach the logs; every request is logged with its request id. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/server/app.js';
import { createApiKey } from '../../src/server/access/api-keys.js';
import { engines } from '../helpers/engines.js';

test('api-key and authorization headers are redacted from request logs', async () => {
  const database = await engines[0]!.open();
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
  const org = await database.db.insertInto('orgs').values({ public_id: '33333333-3333-4333-8333-333333333333', name: 'Log Co' }).returning('id').executeTakeFirstOrThrow();
  const { key } = await createApiKey(database.db, { orgId: org.id, userId: null, name: 'log' });
  const app = await buildApp({ config: loadConfig({}), database, logStream: sink });
  try {
    const token = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2VjcmV0LXNpZ25hdHVyZQ';
    await app.inject({ method: 'GET', url: '/v1/attribution/event-types', headers: { 'api-key': key, 'x-request-id': 'log-test-1' } });
    await app.inject({ method: 'GET', url: '/v1/attribution/event-types', headers: { authorization: `Bearer ${token}` } });
    // A client that puts its key in the query string is refused (401), and its key is not logged.
    const inQuery = await app.inject({ method: 'GET', url: `/v1/attribution/event-types?api-key=${key}&size=5&api%5Fkey=${key}x&access_token=${token}`, headers: { 'x-request-id': 'log-test-2' } });
    assert.equal(inQuery.statusCode, 401);
    const all = lines.join('');
    assert.ok(all.includes('log-test-1'), 'the request id is logged');
    assert.ok(all.includes('/v1/attribution/event-types'));
    assert.equal(all.includes(key), false, 'the API key is not logged');
    assert.equal(all.includes(token), false, 'the bearer token is not logged');
    const queryLine = lines.find((l) => l.includes('log-test-2') && l.includes('"url"'));
    assert.ok(queryLine, 'the request with credentials in its query is logged');
    assert.equal(JSON.parse(queryLine!).req.url, '/v1/attribution/event-types?api-key=[Redacted]&size=5&api%5Fkey=[Redacted]&access_token=[Redacted]');
  } finally {
    await app.close();
    await database.dispose();
  }
});
