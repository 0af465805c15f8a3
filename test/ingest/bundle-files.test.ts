/**
 * The files of a bundle folder (import-bundle.ts bundleFiles, read-records.ts): a bundle
 * file that cannot be read is a problem of the file, never a thrown or unhandled stream
 * error (on this thread and in the parsing worker); a bundle file's name in another
 * format or case is a problem; any other file is ignored and listed; a CSV header's
 * unknown and repeated columns are reported once, on its line.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { engines, type TestDatabase } from '../helpers/engines.js';
import { formatProblem, importBundle } from '../../src/ingest/import-bundle.js';
import { parseBundle } from '../../src/ingest/parse-bundle.js';
import { readCsv, readNdjson, type RawRecord } from '../../src/ingest/read-records.js';
import { BUNDLE, ORG, writeSmallBundle } from '../fixtures/small-bundle.js';

const dirs: string[] = [];
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), 'pr-bundle-files-'));
  dirs.push(dir);
  return dir;
};
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const EISDIR = 'cannot be read (EISDIR: illegal operation on a directory)';

async function all(reader: AsyncGenerator<RawRecord[]>): Promise<RawRecord[]> {
  const out: RawRecord[] = [];
  for await (const batch of reader) out.push(...batch);
  return out;
}

describe('a bundle file that cannot be read, below the import', () => {
  test('both readers yield it as a problem of line 0 instead of failing', async () => {
    const dir = folder();
    mkdirSync(join(dir, 'accounts.csv'));
    assert.deepEqual(await all(readCsv(join(dir, 'accounts.csv'))), [{ line: 0, error: EISDIR }]);
    assert.deepEqual(await all(readNdjson(join(dir, 'accounts.csv'))), [{ line: 0, error: EISDIR }]);
    assert.deepEqual(await all(readCsv(join(dir, 'gone.csv'))), [{ line: 0, error: 'cannot be read (ENOENT: no such file or directory)' }]);
  });

  test('the parsing worker reports it the same way', async () => {
    const dir = folder();
    mkdirSync(join(dir, 'accounts.csv'));
    for (const inWorker of [false, true]) {
      const problems = [];
      for await (const { chunk } of parseBundle([{ entity: 'accounts', path: join(dir, 'accounts.csv'), csv: true }], new Map(), inWorker)) problems.push(...chunk.problems);
      assert.deepEqual(problems, [{ line: 0, field: '-', problem: EISDIR }], inWorker ? 'in the worker' : 'on this thread');
    }
  });
});

for (const engine of engines) {
  describe(`bundle files on ${engine.name}`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await engine.open();
    });
    after(() => db.dispose());

    const version = async () => (await sql<{ value: string }>`select value from service_state where key = 'data_version'`.execute(db.db)).rows[0]!.value;

    async function problems(dir: string): Promise<string[]> {
      const before = await version();
      const result = await importBundle(db, dir);
      assert.equal(result.ok, false, 'the import must fail');
      assert.equal(await version(), before, 'nothing changed');
      return result.ok ? [] : result.problems.map(formatProblem);
    }

    test('a directory or a dangling symlink named as a bundle file is a problem of the file, all of them at once', async () => {
      const dir = writeSmallBundle(folder());
      rmSync(join(dir, 'accounts.ndjson'));
      mkdirSync(join(dir, 'accounts.csv'));
      rmSync(join(dir, 'events.ndjson'));
      mkdirSync(join(dir, 'events.ndjson'));
      rmSync(join(dir, 'users.ndjson'));
      symlinkSync(join(dir, 'no-such-file.ndjson'), join(dir, 'users.ndjson'));
      assert.deepEqual(await problems(dir), [
        'users.ndjson:0: -: cannot be read (ENOENT: no such file or directory)',
        `accounts.csv:0: -: ${EISDIR}`,
        `events.ndjson:0: -: ${EISDIR}`,
      ]);
    });

    test('a bundle file named in another format or case is a problem; other files are ignored and listed', async () => {
      const dir = writeSmallBundle(folder());
      for (const name of ['users.csv', 'events.csv', 'accounts.json', 'Orgs.ndjson', 'ORGS.NDJSON', 'custom_fields.csv']) writeFileSync(join(dir, name), 'x\n');
      assert.deepEqual(await problems(dir), [
        'ORGS.NDJSON:0: -: not a bundle file: orgs is read from orgs.ndjson',
        'Orgs.ndjson:0: -: not a bundle file: orgs is read from orgs.ndjson',
        'users.csv:0: -: not a bundle file: users is read from users.ndjson',
        'custom_fields.csv:0: -: not a bundle file: custom_fields is read from custom_fields.ndjson',
        'accounts.json:0: -: not a bundle file: accounts is read from accounts.ndjson or accounts.csv',
        'events.csv:0: -: not a bundle file: events is read from events.ndjson',
      ]);
      const clean = writeSmallBundle(folder());
      for (const name of ['README.md', '.DS_Store', 'manifest.json']) writeFileSync(join(clean, name), 'x\n');
      mkdirSync(join(clean, 'notes'));
      const result = await importBundle(db, clean);
      assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
      assert.deepEqual(result.ignored, ['.DS_Store', 'README.md', 'manifest.json', 'notes']);
    });

    test("a CSV header's unknown and repeated columns are reported once, on its line, with the other problems", async () => {
      const dir = folder();
      writeFileSync(join(dir, 'orgs.ndjson'), `${JSON.stringify(BUNDLE.orgs![0])}\n`);
      writeFileSync(
        join(dir, 'accounts.csv'),
        ['org,crmAccountId,name,nmae,owner.emial,name,custom.tier', `${ORG.ACME},H1,One,typo,a@b.test,Again,Gold`, `${ORG.ACME},H2,,,,,`, `${ORG.ACME},H3,Three,typo,,,`].join('\n') + '\n',
      );
      assert.deepEqual(await problems(dir), [
        'accounts.csv:1: nmae: unknown field',
        'accounts.csv:1: owner.emial: unknown field',
        'accounts.csv:1: name: repeated column',
        'accounts.csv:3: name: missing required field',
      ]);
      // Without them the same rows import (the first of the cells named twice was the one kept).
      writeFileSync(join(dir, 'accounts.csv'), ['org,crmAccountId,name,owner.email,custom.tier', `${ORG.ACME},H1,One,a@b.test,Gold`].join('\n') + '\n');
      const result = await importBundle(db, dir);
      assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
    });
  });
}
