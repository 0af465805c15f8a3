#!/usr/bin/env -S node --max-semi-space-size=8
// Entry point of the `partner-reports` command. It runs the compiled CLI, building it
// first when the build is missing (for example after `npm ci --ignore-scripts`) or older
// than a source file, so `npm start` and `npx partner-reports` always run current code.
//
// --max-semi-space-size=8: V8's young generation stops growing at 2 x 8 MB instead of
// 2 x 16. Short-lived objects and the Buffers they hold (a download moves 1.4 GB through
// them at scale 1000) are then collected sooner: the server's peak RSS during a full
// download was 230-237 MiB against 246-260 with V8's default, at the same CPU a request.
// 4 MB saved about 10 MiB more but cost 8% more CPU a first-seen request (objects of
// requests in flight promoted), 1 MB made them 60% slower (docs/benchmarks.md, twelfth session). V8
// reads it only at start-up, so it is on the command line; `node bin/partner-reports.js`
// runs without it.
import { writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { buildIsCurrent } from './build-state.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'cli', 'main.js');
if (!buildIsCurrent(root, join('cli', 'main.js'))) {
  process.stderr.write('partner-reports: building...\n');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
  // tsc leaves an output it would write unchanged as it is, so after a source file was only
  // touched the build would stay older than the sources and run again every time: this
  // file marks when the build was last brought up to date.
  try {
    writeFileSync(join(root, 'dist', '.built'), `${new Date().toISOString()}\n`);
  } catch {
    // A build folder this user cannot write (a shared install): it runs, and builds again next time.
  }
}
const { main } = await import(pathToFileURL(entry).href);
await main(process.argv.slice(2));
