/** Temporary folders of one test file, removed when the file's tests are done. */
import { after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A maker of temporary folders named `<prefix>XXXXXX`; every folder it made is removed after the file's tests. */
export function tempDirs(): (prefix: string) => string {
  const made: string[] = [];
  after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));
  return (prefix) => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    made.push(d);
    return d;
  };
}
