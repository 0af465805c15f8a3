/**
 * An answer is never made of two data versions: an import that commits while a request
 * is being answered (it swaps the report tables and bumps the version in one transaction)
 * makes runReport compute the answer again at the new version, tagged with it; a download
 * that spans such a commit stops instead of sending batches of the new tables under the
 * old header; before its first byte, that is a 503 the client can retry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createAnswerMemo, runReport } from '../../src/server/routes/report-call.js';
import type { ReportCall, ReportService } from '../../src/reports/service.js';
import { DataChangedDuringDownload, unchangedBatches } from '../../src/reports/download.js';
import { toApiError } from '../../src/server/app.js';
import { DataChanged } from '../../src/reports/data-version.js';

function fakes(versions: string[]) {
  const reads = [...versions];
  const reports = { dataVersion: async () => reads.shift() ?? versions[versions.length - 1]! } as unknown as ReportService;
  const headers: Record<string, string> = {};
  const request = { headers: {}, body: { filters: {} }, url: '/v1/x/records', method: 'POST', serviceState: undefined } as unknown as FastifyRequest;
  const reply = {
    header(name: string, value: string) {
      headers[name] = value;
      return reply;
    },
  } as unknown as FastifyReply;
  const call = { caller: { orgId: 7 }, reportId: 'GLOBAL_VERTICAL_ACCOUNTS', query: {}, body: {} } as unknown as ReportCall;
  return { reports, request, reply, call, headers };
}

test('an answer computed across an import is computed again at the new version, and tagged with it', async () => {
  // Read before the answer (1), after it (2: an import committed), after the second computation (2).
  const { reports, request, reply, call, headers } = fakes(['1', '2', '2']);
  const seen: Array<string | undefined> = [];
  const answers = createAnswerMemo();
  const result = await runReport(request, reply, reports, call, async (c) => {
    seen.push(c.dataVersion);
    return { rows: `at ${c.dataVersion}` };
  }, { etag: true, answers });
  assert.deepEqual(seen, ['1', '2']);
  assert.deepEqual(result, { rows: 'at 2' });
  assert.match(headers.etag!, /^W\/"2-/);
  assert.deepEqual([...answers.issued.keys()], [headers.etag], 'no tag issued for the answer of version 1');
});

test('an unchanged version is confirmed once; a request is computed at most three times, and never sent unconfirmed', async () => {
  const steady = fakes(['5', '5']);
  let calls = 0;
  await runReport(steady.request, steady.reply, steady.reports, steady.call, async () => ({ n: ++calls }), { etag: true });
  assert.equal(calls, 1);
  // Confirmed at the third computation: sent.
  const third = fakes(['1', '2', '3', '3']);
  calls = 0;
  const last = await runReport(third.request, third.reply, third.reports, third.call, async (c) => ({ n: ++calls, v: c.dataVersion }), { etag: true });
  assert.deepEqual(last, { n: 3, v: '3' });
  // A third import during the third computation: a 503 to retry, not an answer of two versions.
  const busy = fakes(['1', '2', '3', '4', '5']);
  calls = 0;
  const error = await runReport(busy.request, busy.reply, busy.reports, busy.call, async () => ({ n: ++calls }), { etag: true }).then(
    () => assert.fail('an unconfirmed answer was returned'),
    (e: unknown) => e,
  );
  assert.equal(calls, 3);
  assert.ok(error instanceof DataChanged);
  const api = toApiError(error);
  assert.deepEqual([api.status, api.headers['retry-after']], [503, '5']);
  assert.match(api.message, /changed/);
  assert.equal(busy.headers.etag, undefined, 'no tag for it');
});

test('a download stops at the first batch read after the version changed', async () => {
  async function* batches() {
    yield Buffer.from('a\r\n');
    yield Buffer.from('b\r\n');
    yield Buffer.from('c\r\n');
  }
  const versions = ['1', '1', '2'];
  const out: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const b of unchangedBatches(batches(), async () => versions.shift() === '1')) out.push(b.toString());
    })(),
    DataChangedDuringDownload,
  );
  assert.deepEqual(out, ['a\r\n', 'b\r\n']);
  const api = toApiError(new DataChangedDuringDownload());
  assert.equal(api.status, 503);
  assert.equal(api.headers['retry-after'], '5');
});

test('a download whose batches read nothing still confirms the version before it ends', async () => {
  // On PostgreSQL a COPY that waited for an import's table swap reads the new table with a
  // snapshot from before the commit: no rows, so no batch to check the version after.
  async function* nothing(): AsyncGenerator<Buffer> {}
  await assert.rejects(
    (async () => {
      for await (const _ of unchangedBatches(nothing(), async () => false)) assert.fail('no batch');
    })(),
    DataChangedDuringDownload,
  );
  async function* one() {
    yield Buffer.from('a\r\n');
  }
  const versions = ['1', '2'];
  const out: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const b of unchangedBatches(one(), async () => versions.shift() === '1')) out.push(b.toString());
    })(),
    DataChangedDuringDownload,
  );
  assert.deepEqual(out, ['a\r\n'], 'the last batch is sent, then the end is refused');
  // Unchanged throughout: every batch, and a clean end.
  const steady: string[] = [];
  for await (const b of unchangedBatches(one(), async () => true)) steady.push(b.toString());
  assert.deepEqual(steady, ['a\r\n']);
});
