/**
 * CSV download (contract section 5): every matching row, streamed from the database in
 * keyset batches with backpressure, so memory holds one batch whatever the row count.
 */
import type { Readable } from 'node:stream';
import type { RawBuilder } from 'kysely';
import { csvBatchQuery, sortKeys, type QueryPlan } from './query.js';
import { csvStream } from './render/csv.js';

/** Rows per keyset batch of a CSV download (ready lines of about 1 KB each). */
const CSV_BATCH = 10_000;

type Run = <T>(query: RawBuilder<unknown>) => Promise<T[]>;

/** The CSV stream of a plan: the header row, then the rows in the plan's order. */
export function downloadStream(run: Run, p: QueryPlan): Readable {
  const keyCount = sortKeys(p).length;
  async function* batches(): AsyncGenerator<string[]> {
    let after: unknown[] | null = null;
    for (;;) {
      const rows: Array<Record<string, unknown>> = await run<Record<string, unknown>>(csvBatchQuery(p, after, CSV_BATCH));
      if (rows.length === 0) return;
      yield rows.map((r) => r.line as string);
      if (rows.length < CSV_BATCH) return;
      const last: Record<string, unknown> = rows[rows.length - 1]!;
      after = Array.from({ length: keyCount }, (_, i): unknown => last[`k${i}`] ?? null);
    }
  }
  return csvStream(p, batches());
}
