/**
 * Line numbers of the bundle readers (read-records.ts, line-counter.ts): CSV records and
 * the rows the CSV parser skips are placed on the file line they start on whatever line
 * breaks their quoted cells hold (csv-parse counts a CRLF inside quotes as two lines),
 * also across read chunks; an NDJSON file may start with a byte order mark.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LineCounter } from '../../src/ingest/line-counter.js';
import { readCsv, readNdjson, type RawRecord } from '../../src/ingest/read-records.js';

const dir = mkdtempSync(join(tmpdir(), 'pr-read-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function read(reader: AsyncGenerator<RawRecord[]>): Promise<string[]> {
  const out: string[] = [];
  for await (const batch of reader) for (const r of batch) out.push('error' in r ? `${r.line}: ${r.error}` : `${r.line}: ${JSON.stringify(r.record)}`);
  // Skipped rows are reported as the parser meets them, records as they are read: compare in line order.
  return out.sort((a, b) => parseInt(a, 10) - parseInt(b, 10));
}

describe('line numbers', () => {
  test('the line counter finds each line whatever the chunk boundaries (LF, CRLF, lone CR)', () => {
    const text = 'a\r\nbb\n\r\nc\rd\r\r\ne\n\nf';
    // Where each line starts, by construction: after each break, CRLF being one.
    const starts: number[] = [0];
    for (let i = 0; i < text.length; i++) {
      if (text[i] === '\r' && text[i + 1] === '\n') i++;
      if (text[i] === '\r' || text[i] === '\n') starts.push(i + 1);
    }
    assert.equal(starts.length, 9);
    // From the start of an empty line (3, 6, 8), what follows starts on the next line.
    const expected = [1, 2, 4, 4, 5, 7, 7, 9, 9];
    for (let size = 1; size <= 8; size++) {
      const counter = new LineCounter();
      for (let i = 0; i < text.length; i += size) counter.add(Buffer.from(text.slice(i, i + size)));
      assert.deepEqual(starts.map((offset) => counter.lineStartingAt(offset)), expected, `chunks of ${size} bytes`);
      // A record ending just past a break (the next line's start) ends on the line before; one ending at the end of the file, on the last.
      const ends = new LineCounter();
      for (let i = 0; i < text.length; i += size) ends.add(Buffer.from(text.slice(i, i + size)));
      assert.deepEqual([...starts.slice(1), text.length].map((offset) => ends.lineEndingAt(offset)), [1, 2, 3, 4, 5, 6, 7, 8, 9], `chunks of ${size} bytes`);
    }
  });

  test('CSV records start on their file line after quoted cells with CRLF, LF or CR, across read chunks', async () => {
    const path = join(dir, 'accounts.csv');
    // [cell as written, its value]
    const cells = [['"one\r\ntwo"', 'one\r\ntwo'], ['"one\ntwo\nthree"', 'one\ntwo\nthree'], ['"one\rtwo"', 'one\rtwo'], ['"a ""quoted"" word"', 'a "quoted" word'], ['plain', 'plain']] as const;
    let text = 'org,crmAccountId,street\r\n';
    let line = 2;
    const expected: string[] = [];
    // About 600 KB: read in many chunks, with records and CRLF pairs straddling their ends.
    for (let i = 1; i <= 6000; i++) {
      const [cell, value] = cells[i % cells.length]!;
      const breaks = value.split(/\r\n|\n|\r/).length - 1;
      if (i % 1000 === 0) {
        text += `A,R${i},${cell},extra\r\n`;
        expected.push(`${line}: has 4 cells but the header has 3`);
      } else {
        const id = `R${i}${'x'.repeat(40)}`;
        text += `A,${id},${cell}\r\n`;
        expected.push(`${line}: ${JSON.stringify({ org: 'A', crmAccountId: id, street: value })}`);
      }
      line += breaks + 1;
      if (i % 700 === 0) {
        text += '\r\n'; // an empty line, skipped
        line++;
      }
    }
    text += `A,LAST,"never\r\nclosed\r\n`;
    expected.push(`${line}: not valid CSV: Quote Not Closed: the parsing is finished with an opening quote`);
    writeFileSync(path, text);
    const found = await read(readCsv(path));
    assert.equal(found.length, expected.length);
    assert.deepEqual(found, expected);
  });

  test('CSV: each line ends at its own CRLF, LF or CR, whatever the first line used', async () => {
    const path = join(dir, 'accounts.csv');
    writeFileSync(path, 'org,crmAccountId,name\nA,Z1,first\r\nA,Z2,second\rA,Z3,third\nA,Z4,"two\r\nlines",extra\r\nA,Z5,last\r');
    assert.deepEqual(await read(readCsv(path)), [
      `2: ${JSON.stringify({ org: 'A', crmAccountId: 'Z1', name: 'first' })}`,
      `3: ${JSON.stringify({ org: 'A', crmAccountId: 'Z2', name: 'second' })}`,
      `4: ${JSON.stringify({ org: 'A', crmAccountId: 'Z3', name: 'third' })}`,
      '5: has 4 cells but the header has 3',
      `7: ${JSON.stringify({ org: 'A', crmAccountId: 'Z5', name: 'last' })}`,
    ]);
    writeFileSync(path, 'org,crmAccountId,name\r\nA,Z1,first\nA,Z2,second,extra\n');
    assert.deepEqual(await read(readCsv(path)), [`2: ${JSON.stringify({ org: 'A', crmAccountId: 'Z1', name: 'first' })}`, '3: has 4 cells but the header has 3']);
  });

  test('NDJSON: a byte order mark before the first record is skipped', async () => {
    const path = join(dir, 'orgs.ndjson');
    writeFileSync(path, '\ufeff{"n":1}\r\n{"n":2}\r\n');
    assert.deepEqual(await read(readNdjson(path)), ['1: {"n":1}', '2: {"n":2}']);
    // Only at the start of the file: elsewhere U+FEFF is the record's own character.
    writeFileSync(path, '{"n":1}\n\ufeff{"n":2}\n');
    assert.deepEqual(await read(readNdjson(path)), ['1: {"n":1}', '2: not valid JSON']);
  });
});
