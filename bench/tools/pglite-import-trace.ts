/**
 * An import into PGlite with every statement traced: the seconds since start, the
 * process RSS and the statement's first characters, printed before it runs, plus each
 * import step's duration. PGlite runs inside this process and its WebAssembly heap never
 * shrinks, so the RSS printed before a statement that jumps shows which statement made
 * the heap grow (how the parent-cycle check was found running it out of memory at scale
 * 1000, docs/benchmarks.md).
 *   node --import tsx bench/tools/pglite-import-trace.ts <bundle-dir> <data-dir>
 * Run it under `/usr/bin/time -v` for the peak RSS.
 */
import { PGlite } from '@electric-sql/pglite';
import { openDatabase } from '../../src/db/database.js';
import { importBundle } from '../../src/ingest/import-bundle.js';

const [bundle, dataDir] = process.argv.slice(2);
if (!bundle || !dataDir) throw new Error('usage: pglite-import-trace.ts <bundle-dir> <data-dir>');

const started = Date.now();
const log = (line: string) => {
  const { rss, heapUsed } = process.memoryUsage();
  process.stdout.write(`${((Date.now() - started) / 1000).toFixed(1)}s rss ${Math.round(rss / 2 ** 20)} MiB (JS heap ${Math.round(heapUsed / 2 ** 20)}) ${line}\n`);
};

// Every statement reaches PGlite through `query` (Kysely's PGlite dialect calls it); the
// COPY blobs of the staging phase are left out (thousands of them).
const query = PGlite.prototype.query;
PGlite.prototype.query = function (this: PGlite, text: string, ...rest: unknown[]) {
  if (!text.includes("'/dev/blob'")) log(`> ${text.replace(/\s+/g, ' ').trim().slice(0, 120)}`);
  return (query as (...args: unknown[]) => ReturnType<PGlite['query']>).call(this, text, ...rest);
} as PGlite['query'];

const database = await openDatabase({ dataDir });
try {
  const result = await importBundle(database, bundle, { onStep: (step, ms) => log(`step ${step} ${(ms / 1000).toFixed(1)} s`) });
  log(result.ok ? `imported; data version ${result.dataVersion}` : `rejected: ${result.problems.length} problems`);
} finally {
  await database.close();
}
