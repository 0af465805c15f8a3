/**
 * Bundles written for one test file: `bundle({ orgs: [...], events: [...] })` writes each
 * list as `<name>.ndjson` in a new folder and returns it; the folders go when the file's
 * tests end.
 */
import { after } from 'node:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function ndjsonBundles(prefix: string): (files: Record<string, object[]>) => string {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  return (files) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    for (const [name, records] of Object.entries(files)) writeFileSync(join(dir, `${name}.ndjson`), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    return dir;
  };
}
