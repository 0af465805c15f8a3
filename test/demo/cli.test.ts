/**
 * `partner-reports demo` as a process: writes the bundle and prints the rows per file;
 * a bad --scale is refused with a message and a non-zero exit code.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cliArgs, root } from '../helpers/cli-process.js';
import { BUNDLE_FILES, readNdjson, removeDir, tempDir } from './bundle-reader.js';


function cli(...args: string[]) {
  return spawnSync(process.execPath, cliArgs(...args), { cwd: root, encoding: 'utf8', timeout: 120_000 });
}

describe('partner-reports demo', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach(removeDir));

  test('writes the bundle and prints rows per file and the rate', () => {
    const parent = tempDir('cli');
    dirs.push(parent);
    const out = join(parent, 'bundle');
    const run = cli('demo', '--out', out, '--seed', '7');
    assert.equal(run.status, 0, run.stderr);
    for (const f of BUNDLE_FILES) {
      assert.ok(existsSync(join(out, `${f}.ndjson`)), `${f}.ndjson written`);
      const rows = readNdjson(join(out, `${f}.ndjson`)).length;
      assert.match(run.stdout, new RegExp(`${f}\\.ndjson\\s+${rows.toLocaleString('en-US')}\\n`), `${f} count printed`);
    }
    assert.match(run.stdout, /rows\/s/);
    assert.match(run.stdout, /seed 7/);
  });

  test('--scale 0 and --scale 1.5 are refused', () => {
    for (const scale of ['0', '1.5', 'x']) {
      const parent = tempDir('cli-bad');
      dirs.push(parent);
      const out = join(parent, 'bundle');
      const run = cli('demo', '--out', out, '--scale', scale);
      assert.notEqual(run.status, 0, `--scale ${scale} exits non-zero`);
      assert.match(run.stderr, /--scale must be an integer >= 1/);
      assert.ok(!existsSync(join(out, 'orgs.ndjson')), 'nothing written');
    }
  });

  test('--out is required', () => {
    const run = cli('demo');
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, /--out/);
  });
});
