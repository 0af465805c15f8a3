/**
 * The parsing pipeline of `import` (parse-bundle.ts): a file of 1,000,000 lines streams
 * through in chunks with the heap bounded (never the whole file in memory), the worker
 * thread yields exactly what parsing on this thread yields, a record with a problem is
 * staged flagged, and line numbers survive CRLF and lone-CR line breaks split across
 * read chunks.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parseBundle, type FileChunk } from '../../src/ingest/parse-bundle.js';
import { readNdjson } from '../../src/ingest/read-records.js';

// A collection on demand, so what is measured is the heap still reachable, not garbage not yet collected.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const ORG = '11111111-1111-4111-8111-111111111111';
const dir = mkdtempSync(join(tmpdir(), 'pr-parse-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function writeUsers(path: string, lines: number, bad: (i: number) => boolean = () => false): Promise<void> {
  const out = createWriteStream(path);
  let text = '';
  for (let i = 1; i <= lines; i++) {
    text += bad(i) ? '{"org": 1}\n' : `{"org":"${ORG}","email":"user${i}@example.test","name":"User number ${i}","title":"Partner Manager"}\n`;
    if (text.length > 1 << 20) {
      if (!out.write(text)) await once(out, 'drain');
      text = '';
    }
  }
  out.end(text);
  await once(out, 'finish');
}

describe('parse pipeline', () => {
  test('a 1,000,000-line file streams in chunks with the heap bounded', async (t) => {
    const path = join(dir, 'users.ndjson');
    await writeUsers(path, 1_000_000);
    gc();
    const base = process.memoryUsage().heapUsed;
    let peak = 0;
    let rows = 0;
    let chunks = 0;
    let lastLine = 0;
    for await (const { chunk } of parseBundle([{ entity: 'users', path, csv: false }], new Map(), false)) {
      rows += chunk.rows;
      chunks++;
      lastLine = chunk.lines;
      if (chunks % 25 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - base);
      }
    }
    t.diagnostic(`${chunks} chunks; reachable heap grew by at most ${(peak / 1048576).toFixed(1)} MiB`);
    assert.equal(rows, 1_000_000);
    assert.equal(lastLine, 1_000_000);
    assert.ok(chunks > 50, `${chunks} chunks`);
    // The file is ~110 MB (its records as objects several times that); what is held is one read chunk and one COPY chunk.
    assert.ok(peak < 32 * 1024 * 1024, `reachable heap grew by ${Math.round(peak / 1e6)} MB`);
  });

  test('the worker thread yields exactly what this thread yields', async () => {
    const path = join(dir, 'users-small.ndjson');
    await writeUsers(path, 30_000, (i) => i % 7000 === 0);
    const collect = async (inWorker: boolean) => {
      const out: FileChunk[] = [];
      for await (const c of parseBundle([{ entity: 'users', path, csv: false }, { entity: 'users', path, csv: false }], new Map(), inWorker)) out.push(c);
      return out;
    };
    const here = await collect(false);
    const there = await collect(true);
    assert.deepEqual(there, here);
    assert.deepEqual(here.flatMap((c) => c.chunk.problems.map((p) => `${c.file}:${p.line}: ${p.field}: ${p.problem}`)).slice(0, 2), ['0:7000: org: must be a UUID, got number 1', '0:7000: email: missing required field']);
    assert.equal(here.reduce((n, c) => n + c.chunk.rows, 0), 2 * (30_000 - 4));
  });

  test('a record with a problem is encoded too, flagged, with its valid values (a bad one NULL)', async () => {
    const path = join(dir, 'users-flagged.ndjson');
    writeFileSync(path, `{"org":"${ORG}","email":"a@example.test","name":"A"}\n{"org":"${ORG}","email":3,"name":"B"}\n[]\n`);
    const chunks: FileChunk[] = [];
    for await (const c of parseBundle([{ entity: 'users', path, csv: false }], new Map(), false)) chunks.push(c);
    // line, invalid, then org, email, name, title, phone, division, role; line 3 is no record at all.
    assert.equal(chunks.map((c) => c.chunk.text).join(''), `1\tf\t${ORG}\ta@example.test\tA\t\\N\t\\N\t\\N\t\\N\n2\tt\t${ORG}\t\\N\tB\t\\N\t\\N\t\\N\t\\N\n`);
    assert.equal(chunks.reduce((n, c) => n + c.chunk.rows, 0), 1, 'rows counts the valid records');
    assert.deepEqual(chunks.flatMap((c) => c.chunk.problems), [{ line: 2, field: 'email', problem: 'must be a string, got number 3' }, { line: 3, field: '-', problem: 'must be a JSON object' }]);
  });

  test('line numbers count LF, CRLF and lone CR breaks, also across read chunks', async () => {
    const path = join(dir, 'breaks.ndjson');
    const record = (i: number) => JSON.stringify({ n: i, pad: 'x'.repeat(1000) });
    // Enough lines that some CRLF pairs straddle the reader's 1 MiB chunks.
    const breaks = ['\n', '\r\n', '\r'];
    let text = '';
    for (let i = 1; i <= 3000; i++) text += record(i) + breaks[i % 3]!;
    writeFileSync(path, `${text}\n${record(3001)}`);
    const lines: number[] = [];
    for await (const batch of readNdjson(path)) for (const r of batch) if ('record' in r) lines.push(r.line, (r.record as { n: number }).n);
    const expected: number[] = [];
    for (let i = 1; i <= 3000; i++) expected.push(i, i);
    expected.push(3002, 3001); // after the blank line
    assert.deepEqual(lines, expected);
  });
});
