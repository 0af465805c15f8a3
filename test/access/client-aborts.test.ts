/**
 * A client that gives up on a download before its answer began is no failure of the
 * service: it is logged at info, not as a 500 with a stack (an operator's error alerts
 * would fire on every cancelled export).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { engines } from '../helpers/engines.js';
import { fixtureApp } from '../helpers/fixture-app.js';
import { until } from '../helpers/until.js';

const pglite = engines.find((e) => e.name === 'pglite')!;
const DOWNLOAD = '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/download';

test('a download whose client closed the connection before the answer began is logged at info, without a 500', async () => {
  const lines: Array<{ level: number; msg: string; reqId?: string; code?: string }> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  const f = await fixtureApp(pglite, { logStream: sink });
  // Holds the download until its client has gone, so the close always comes before the
  // answer begins (in real traffic: while the first batch is read).
  f.app.addHook('preHandler', async (request) => {
    if (request.url.endsWith('/download')) assert.ok(await until(() => request.raw.socket.destroyed, 10_000), 'the client closed');
  });
  try {
    const { hostname, port } = new URL(await f.app.listen({ port: 0, host: '127.0.0.1' }));
    const socket = connect(Number(port), hostname);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.on('error', () => undefined);
    const body = '{}';
    socket.write(`POST ${DOWNLOAD} HTTP/1.1\r\nhost: test\r\napi-key: ${f.keys.acme}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
    assert.ok(await until(() => lines.some((l) => l.msg === 'incoming request' && l.reqId !== undefined), 10_000), 'the request arrived');
    socket.destroy();
    const reqId = lines.find((l) => l.msg === 'incoming request')!.reqId;
    assert.ok(await until(() => lines.some((l) => l.reqId === reqId && l.level >= 30 && l.msg !== 'incoming request'), 10_000), 'the abort was logged');
    const mine = lines.filter((l) => l.reqId === reqId);
    assert.deepEqual(mine.filter((l) => l.level >= 40).map((l) => `${l.level} ${l.msg}`), [], 'no warning or error for the abort');
    const info = mine.find((l) => l.msg === 'client closed the connection before the answer began');
    assert.ok(info, `logged as a closed connection: ${JSON.stringify(mine)}`);
    assert.equal(info.level, 30);
  } finally {
    await f.close();
  }
});
