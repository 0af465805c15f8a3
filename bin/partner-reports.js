#!/usr/bin/env node
// Entry point of the `partner-reports` command. It runs the compiled CLI; in a fresh
// clone whose build is missing (for example after `npm ci --ignore-scripts`) it builds
// once first, so `npm start` and `npx partner-reports` always work.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'cli', 'main.js');
if (!existsSync(entry)) {
  process.stderr.write('partner-reports: building (first run)...\n');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
}
const { main } = await import(pathToFileURL(entry).href);
await main(process.argv.slice(2));
