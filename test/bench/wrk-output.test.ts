/**
 * The benchmark reads wrk's text report (bench/wrk.ts): the figures must come out of it as
 * printed, in milliseconds, and a report without them must fail loudly rather than give 0.
 * The reports below are wrk 4.1.0's (Debian), captured from runs against this service.
 * Where wrk is installed, it is also run against a local server, to see that the request
 * it repeats is the one asked for (a script error makes wrk send its default GET).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodyTemplate, parseWrk, runWrk, wrkAvailable, wrkMs } from '../../bench/wrk.js';

const OK = `Running 2s test @ http://127.0.0.1:8091/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records
  1 threads and 10 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    10.28ms   29.95ms 200.89ms   93.67%
    Req/Sec     3.82k     1.68k    7.30k    73.68%
  Latency Distribution
     50%  812.00us
     75%    3.87ms
     90%    9.81ms
     99%    1.20s
  7252 requests in 2.02s, 290.65MB read
  Socket errors: connect 0, read 2, write 0, timeout 3
Requests/sec:   3595.82
Transfer/sec:    144.12MB
`;

const REFUSED = `Running 1s test @ http://127.0.0.1:8091/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records
  1 threads and 2 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.18ms    1.59ms  19.40ms   91.27%
    Req/Sec     1.00k   173.00     1.30k    54.55%
  Latency Distribution
     50%    1.84ms
     75%    2.31ms
     90%    3.55ms
     99%    8.82ms
  1092 requests in 1.10s, 1.03MB read
  Non-2xx or 3xx responses: 1092
Requests/sec:    992.47
Transfer/sec:      0.93MB
`;

test('durations in every unit wrk prints become milliseconds', () => {
  assert.equal(wrkMs('812.00us'), 0.812);
  assert.equal(wrkMs('3.87ms'), 3.87);
  assert.equal(wrkMs('1.20s'), 1200);
  assert.equal(wrkMs('2.00m'), 120_000);
  assert.throws(() => wrkMs('fast'), /not a wrk duration/);
});

test('a report gives p50, p99, requests/s, the request count and the socket errors', () => {
  assert.deepEqual(parseWrk(OK), { p50: 0.81, p99: 1200, rps: 3596, requests: 7252, errors: 5, non2xx: 0 });
});

test('refused requests are counted, not taken for answers', () => {
  assert.deepEqual(parseWrk(REFUSED), { p50: 1.84, p99: 8.82, rps: 992, requests: 1092, errors: 0, non2xx: 1092 });
});

test('a report without its figures is an error', () => {
  assert.throws(() => parseWrk(OK.replace(/^\s+99%.*$/m, '')), /no 99% latency/);
  assert.throws(() => parseWrk(OK.replace(/^Requests\/sec.*$/m, '')), /unexpected wrk output/);
});

test('a varying body is a template over its number, and one that transforms it is refused', () => {
  assert.deepEqual(bodyTemplate((n) => JSON.stringify({ search: `q${n}x`, state: `zz${n}q` })), ['{"search":"q', 'x","state":"zz', 'q"}']);
  assert.throws(() => bodyTemplate((n) => JSON.stringify({ range: `100<->${5000 + n}` })), /must hold its n as written/);
  assert.throws(() => bodyTemplate(() => '{}'), /must hold its n as written/);
});

/** A local server that records what each request carried, for wrk to drive. */
async function recorder(onRequest: (method: string, url: string, headers: NodeJS.Dict<string | string[]>, body: string) => void) {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      onRequest(req.method!, req.url!, req.headers, body);
      res.writeHead(req.method === 'POST' ? 200 : 405).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

test('wrk sends a new body per request when asked to vary it', async (t) => {
  if (!(await wrkAvailable())) {
    console.log('# skipping the varying wrk run: wrk is not installed (Debian: apt-get install wrk)');
    t.skip('wrk is not installed');
    return;
  }
  const bodies: string[] = [];
  const other: string[] = [];
  const server = await recorder((method, url, headers, body) => (method === 'POST' && url === '/v1/x' && headers['api-key'] === 'k]]' ? bodies : other).push(body));
  try {
    const from = 1_000_000_007;
    const vary = (n: number) => JSON.stringify({ filters: { state: `zz${n}q-^-`, name: ']]-?-' } });
    const r = await runWrk({ url: `http://127.0.0.1:${server.port}/v1/x`, method: 'POST', headers: { 'api-key': 'k]]', 'content-type': 'application/json' }, body: { vary, from }, connections: 3, seconds: 1, timeoutSeconds: 5 });
    assert.deepEqual(other, []);
    assert.ok(r.requests > 10 && r.requests <= bodies.length, `${r.requests} requests counted, ${bodies.length} received`);
    // Every body is vary(n) for a distinct n counted up from `from` (wrk calls the hook once
    // more, to check the script, before it sends anything).
    const numbers = bodies.map((b) => Number(/zz(\d+)q/.exec(b)?.[1]));
    assert.deepEqual(bodies, numbers.map(vary));
    assert.equal(new Set(numbers).size, numbers.length);
    assert.ok(Math.min(...numbers) >= from && Math.max(...numbers) <= from + numbers.length + 3, `numbers ${Math.min(...numbers)}..${Math.max(...numbers)} for ${numbers.length} bodies from ${from}`);
  } finally {
    await server.close();
  }
});

test('wrk repeats the request asked for: method, headers and body', async (t) => {
  if (!(await wrkAvailable())) {
    console.log('# skipping the wrk run: wrk is not installed (Debian: apt-get install wrk)');
    t.skip('wrk is not installed');
    return;
  }
  const seen = new Set<string>();
  let answered = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.add(JSON.stringify([req.method, req.url, req.headers['api-key'], req.headers['content-type'], body]));
      answered++;
      res.writeHead(req.method === 'POST' ? 200 : 405).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    // A body and a key with the characters that end Lua strings and brackets.
    const body = JSON.stringify({ filters: { account_name: ']]x[[-?-', city: "o'\"-^-" } });
    const r = await runWrk({ url: `http://127.0.0.1:${port}/v1/x?page=1`, method: 'POST', headers: { 'api-key': 'prk_a]]b', 'content-type': 'application/json' }, body, connections: 2, seconds: 1, timeoutSeconds: 5 });
    assert.deepEqual([...seen], [JSON.stringify(['POST', '/v1/x?page=1', 'prk_a]]b', 'application/json', body])]);
    assert.equal(r.non2xx, 0);
    assert.ok(r.requests > 0 && r.requests <= answered, `${r.requests} requests counted, ${answered} answered`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
