/**
 * How the tests start `partner-reports` as a process: node's arguments before the
 * command's own.
 *
 * The compiled build (dist/cli/run.js) when it is current, by the rule bin/partner-reports.js
 * applies (bin/build-state.js: no file under src/ newer than the newest under dist/; `npm ci`
 * builds it), else
 * the sources through tsx. Either way a test never runs code older than the sources. tsx's
 * loader made every process slower: `--help` took 1.5-1.9 s through tsx against 0.6-0.7 s
 * compiled here, and the command-line tests start about a hundred processes
 * (docs/benchmarks.md, twenty-fifth session). Decided once per test process: the one test
 * that touches a source (commands.test.ts) runs the bin, which builds before it answers, so
 * the build is current again when it is done.
 */
import { join } from 'node:path';
import { buildIsCurrent } from '../../bin/build-state.js';

export const root = join(import.meta.dirname, '..', '..');

/** `node` arguments that run the command line (cwd: the repository's root), then `args`. */
export const cliArgs: (...args: string[]) => string[] = buildIsCurrent(root, join('cli', 'run.js'))
  ? (...args) => [join(root, 'dist', 'cli', 'run.js'), ...args]
  : (...args) => ['--import', 'tsx', join(root, 'src', 'cli', 'run.ts'), ...args];
