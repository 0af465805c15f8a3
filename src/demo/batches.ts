/**
 * The tenants' CRM data is generated in batches of consecutive chunks, either in this
 * thread or in worker threads (batch-worker.ts); the batches are written in order, so
 * the bytes are the same either way. This file holds what both sides share: the job
 * description, and rebuilding the tenant runs from the seed (a worker gets numbers, not
 * objects, and derives the same cast).
 */
import { buildCast } from './cast.js';
import { writeChunk, type ChunkOutput, type TenantRun } from './chunk.js';
import { CompanyNames } from './company-names.js';
import { JsonLines } from './json-lines.js';

/** The files chunks write to, in the order batch results list them. */
export const CHUNK_FILES = ['accounts', 'opportunities', 'account_matches', 'events'] as const;

/** Chunks per batch: about 10,000 rows of the demo organization. */
export const BATCH_CHUNKS = 256;

export interface RunSetup {
  tenantIndex: number;
  chunks: number;
  nameBase: number;
  extraNameBase: number;
}

export interface Setup {
  seed: number;
  runs: RunSetup[];
}

export interface Job {
  id: number;
  /** Index into Setup.runs. */
  run: number;
  from: number;
  to: number;
  /** Buffers of an earlier result, written out and given back for reuse (one per file of CHUNK_FILES). */
  spare?: ArrayBuffer[];
}

export interface BatchResult {
  id: number;
  /** Encoded lines per file of CHUNK_FILES. */
  files: Uint8Array[];
  rows: number[];
}

export function tenantRuns(setup: Setup): TenantRun[] {
  const cast = buildCast(setup.seed);
  const names = new CompanyNames(setup.seed);
  return setup.runs.map((r) => ({
    tenant: cast.tenants[r.tenantIndex]!, tenantIndex: r.tenantIndex, seed: setup.seed, names, nameBase: r.nameBase, extraNameBase: r.extraNameBase,
  }));
}

/** The batches of a setup, in the order they are written. */
export function jobsOf(setup: Setup): Job[] {
  const jobs: Job[] = [];
  setup.runs.forEach((r, run) => {
    for (let from = 0; from < r.chunks; from += BATCH_CHUNKS) jobs.push({ id: jobs.length, run, from, to: Math.min(from + BATCH_CHUNKS, r.chunks) });
  });
  return jobs;
}

export class BatchGenerator {
  private readonly out: ChunkOutput = { accounts: new JsonLines(), opportunities: new JsonLines(), account_matches: new JsonLines(), events: new JsonLines() };

  constructor(private readonly runs: TenantRun[]) {}

  generate(job: Job): BatchResult {
    if (job.spare) this.recycle(job.spare);
    const run = this.runs[job.run]!;
    for (let c = job.from; c < job.to; c++) writeChunk(run, c, this.out);
    const taken = CHUNK_FILES.map((f) => this.out[f].take());
    return { id: job.id, files: taken.map((t) => t.bytes), rows: taken.map((t) => t.rows) };
  }

  /** Takes back the buffers of a result whose bytes were written (one per file of CHUNK_FILES). */
  recycle(buffers: ArrayBuffer[]): void {
    buffers.forEach((b, i) => this.out[CHUNK_FILES[i]!].recycle(b));
  }
}
