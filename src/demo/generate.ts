/**
 * The deterministic demo dataset generator: writes a dataset bundle (contract section 7)
 * of the fixed cast (cast.ts) and `scale` units of CRM data per tenant (chunk.ts).
 * Same seed and scale, same bytes; the wall clock is never read for data.
 *
 * Scale model, exact for every scale S: the demo organization has 2000 * S account
 * matches with CONNECTED partners (the rows of its GLOBAL_VERTICAL_ACCOUNTS report),
 * the second tenant 100 * S; accounts, opportunities, events and the partners' accounts
 * grow linearly with S. Files are written as they are generated (buffered, with
 * backpressure) under temporary names and renamed at the end.
 *
 * @example
 *   const summary = await writeDemoBundle('./demo-bundle', { scale: 1, seed: 42 });
 *   // summary.files['account_matches.ndjson'] === 2225 (or so); then `partner-reports import ./demo-bundle`
 */
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { buildCast } from './cast.js';
import { ACCOUNTS_PER_CHUNK, writeChunk, type ChunkOutput, type TenantRun } from './chunk.js';
import { CompanyNames } from './company-names.js';
import { NdjsonFile } from './ndjson-writer.js';

export { ACCOUNT_SHARE_NAMES, DEMO_ADMIN_EMAIL, DEMO_ORG_PUBLIC_ID } from './cast.js';

export interface DemoSummary {
  /** Rows written per file name (`accounts.ndjson`: 4321). */
  files: Record<string, number>;
  rows: number;
  seconds: number;
}

export interface DemoOptions {
  /** Integer >= 1; row counts grow linearly with it. */
  scale: number;
  /** Any safe integer; the same seed writes the same bundle. */
  seed: number;
  /** Called now and then while the tenants' data is written. */
  onProgress?: (chunksDone: number, chunksTotal: number) => void;
}

/** The bundle's files, in the order they are written. */
export const DEMO_FILES = ['orgs', 'users', 'partnerships', 'custom_fields', 'event_types', 'accounts', 'opportunities', 'account_matches', 'events'] as const;
type FileName = (typeof DEMO_FILES)[number];

/** Chunks between two buffer checks: small enough to keep buffers near 1 MiB, large enough to cost nothing. */
const DRAIN_EVERY = 32;

export async function writeDemoBundle(outDir: string, options: DemoOptions): Promise<DemoSummary> {
  const { scale, seed } = options;
  if (!Number.isSafeInteger(scale) || scale < 1) throw new RangeError(`scale must be an integer >= 1 (got ${scale})`);
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be an integer (got ${seed})`);
  const started = performance.now();
  await mkdir(outDir, { recursive: true });

  const cast = buildCast(seed);
  const names = new CompanyNames(seed);
  const partial = (name: FileName) => join(outDir, `.${name}.ndjson.partial`);
  const writers = Object.fromEntries(DEMO_FILES.map((name) => [name, new NdjsonFile(partial(name))])) as Record<FileName, NdjsonFile>;

  try {
    for (const org of cast.orgs) writers.orgs.lines.value(org.record);
    for (const org of cast.orgs) for (const user of org.users) writers.users.lines.value(user);
    for (const p of cast.partnerships) writers.partnerships.lines.value(p);
    for (const org of cast.orgs) {
      for (const c of org.customFields) {
        writers.custom_fields.lines.value({ org: org.publicId, entity: c.entity, key: c.key, title: c.title, type: c.type, classification: c.classification });
      }
    }
    for (const t of cast.eventTypes) writers.event_types.lines.value(t);

    // Company-name numbers: each tenant's accounts, then each tenant's extra partner accounts, never overlapping.
    const runs: Array<TenantRun & { chunks: number }> = [];
    let nameBase = 0;
    cast.tenants.forEach((tenant, tenantIndex) => {
      const chunks = tenant.chunksPerScale * scale;
      runs.push({ tenant, tenantIndex, seed, names, nameBase, extraNameBase: 0, chunks });
      nameBase += chunks * ACCOUNTS_PER_CHUNK;
    });
    for (const run of runs) {
      run.extraNameBase = nameBase;
      nameBase += run.chunks;
    }

    const out: ChunkOutput = {
      accounts: writers.accounts.lines,
      opportunities: writers.opportunities.lines,
      account_matches: writers.account_matches.lines,
      events: writers.events.lines,
    };
    const total = runs.reduce((n, r) => n + r.chunks, 0);
    let done = 0;
    for (const run of runs) {
      for (let c = 0; c < run.chunks; c++) {
        writeChunk(run, c, out);
        if (++done % DRAIN_EVERY === 0) {
          for (const w of Object.values(writers)) await w.drain();
          if (done % (DRAIN_EVERY * 64) === 0) options.onProgress?.(done, total);
        }
      }
    }
    options.onProgress?.(done, total);

    for (const w of Object.values(writers)) await w.close();
    for (const name of DEMO_FILES) await rename(partial(name), join(outDir, `${name}.ndjson`));
  } catch (err) {
    for (const w of Object.values(writers)) w.destroy();
    await Promise.all(DEMO_FILES.map((name) => rm(partial(name), { force: true })));
    throw err;
  }

  const files: Record<string, number> = {};
  let rows = 0;
  for (const name of DEMO_FILES) {
    files[`${name}.ndjson`] = writers[name].rows;
    rows += writers[name].rows;
  }
  return { files, rows, seconds: (performance.now() - started) / 1000 };
}
