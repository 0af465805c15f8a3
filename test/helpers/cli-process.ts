/**
 * How the tests start `partner-reports` as a process: node's arguments before the
 * command's own.
 *
 * The compiled build (dist/cli/run.js) when it is current, by the rule bin/partner-reports.js
 * applies (no file under src/ newer than the newest under dist/; `npm ci` builds it), else
 * the sources through tsx. Either way a test never runs code older than the sources. tsx's
 * loader made every process slower: `--help` took 1.5-1.9 s through tsx against 0.6-0.7 s
 * compiled here, and the command-line tests start about a hundred processes
 * (docs/benchmarks.md, twenty-fifth session). Decided once per test process: the one test
 * that touches a source (commands.test.ts) runs the bin, which builds before it answers, so
 * the build is current again when it is done.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const root = join(import.meta.dirname, '..', '..');

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function buildIsCurrent(): boolean {
  try {
    statSync(join(root, 'dist', 'cli', 'run.js'));
    return newest(join(root, 'src')) <= newest(join(root, 'dist'));
  } catch {
    return false;
  }
}

/** `node` arguments that run the command line (cwd: the repository's root), then `args`. */
export const cliArgs: (...args: string[]) => string[] = buildIsCurrent()
  ? (...args) => [join(root, 'dist', 'cli', 'run.js'), ...args]
  : (...args) => ['--import', 'tsx', join(root, 'src', 'cli', 'run.ts'), ...args];
