/**
 * CSV download (contract section 5): every matching row, streamed from the database in
 * bounded batches, so memory holds a few batches whatever the row count.
 *
 * - PostgreSQL: `COPY (select <cells> ...) TO STDOUT` per range of rows in the plan's order
 *   (query-csv.ts); the ranges come from one pass over the matching rows' sort keys (or,
 *   for every row in the default order, from `rid` alone). Each batch runs on a pooled
 *   connection of its own, is read whole into memory and the connection returned, so a
 *   slow client never holds a connection or a statement open; two batches are produced at
 *   a time (both cores: PostgreSQL formats, Node only moves bytes) and the next ones start
 *   only when the client has taken the earlier ones (backpressure).
 * - PGlite (and plans of fewer than two columns): keyset batches of ready CSV lines
 *   (query.ts `csvBatchQuery`).
 *
 * Either way, a download in the report's default columns reads the lines stored at import
 * when the service says they match its plan (`lines`, csv-lines.ts) instead of formatting
 * every cell: every row in the default order from the compressed blocks of lines, any
 * other selection line by line. On PostgreSQL they travel in COPY's text format, whose
 * escapes `CopyOut` undoes.
 */
import type { Readable } from 'node:stream';
import { CompiledQuery, type Kysely } from 'kysely';
import { boundariesQuery, csvBatchQuery, isWholeTable, sortKeys, type QueryPlan } from './query.js';
import { blockBatchQuery, copyBatchQuery, copyStatement, copySupported, lastBlockQuery, lastRidQuery, type Boundary, type CopyBatch } from './query-csv.js';
import { LINES_PER_BLOCK, type LineCopy } from './csv-lines.js';
import { csvStream } from './render/csv.js';
import type { Database } from '../db/database.js';
import { DataChanged } from './data-version.js';

/** Rows per keyset batch of ready lines (about 1 KB each). */
const CSV_BATCH = 10_000;
/**
 * Rows per COPY batch (about 0.7 KB each at 65 columns) and batches produced at once.
 * 10,000: with 20,000 a download raised the server's RSS by 92 MB instead of 72, at the
 * same speed (docs/benchmarks.md, ninth session).
 */
const COPY_BATCH = 10_000;
const COPY_AHEAD = 2;
/**
 * Rows per COPY of stored line blocks (32 blocks, about 2.9 MB): each batch is read whole
 * before it is passed on, so a download holds COPY_AHEAD of them. With 78 blocks (10,000
 * rows) a full download at scale 1000 raised the server's peak RSS by 36-59 MiB, median
 * 260 MiB over five runs; with 32, by 22-42 MiB, median 246, at the same speed (twelfth
 * session, docs/benchmarks.md).
 */
const BLOCK_BATCH = 4_096;

/**
 * The CSV stream of a plan: the header row, then the rows in the plan's order, from the
 * database the service runs on (COPY on PostgreSQL, ready-line batches on PGlite).
 */
/**
 * The download was planned at one data version and an import has committed since: its
 * batches would come from the new report tables under the old header and columns (a CSV
 * of two shapes, rows skipped or repeated at the seam). The stream stops with this
 * error instead, and the client sees a transfer that did not complete.
 */
export class DataChangedDuringDownload extends DataChanged {
  constructor() {
    super('the data changed (an import committed) while the download was streaming; download again');
  }
}

/**
 * Each batch of `batches`, passed on only once `current()` says the data version is
 * still the plan's, asked after the batch was read: a batch whose statement ran after an
 * import's commit sees that commit's version changed, so no batch of other data is ever
 * sent. (The version and the report tables change in the import's one transaction.)
 *
 * And asked once more at the end, before the download is declared complete: a batch that
 * read nothing yields nothing to check, yet may have read nothing because of a commit. On
 * PostgreSQL a `COPY (select ...)` takes its snapshot before it locks the tables of its
 * query; one that waited for an import's swap of a report table then reads the new table
 * with a snapshot from before the commit, and sees none of its rows. Without this check a
 * download started just before a commit answered 200 with the header row alone.
 */
export async function* unchangedBatches(batches: AsyncIterable<Buffer>, current: () => Promise<boolean>): AsyncGenerator<Buffer> {
  for await (const batch of batches) {
    if (!(await current())) throw new DataChangedDuringDownload();
    yield batch;
  }
  if (!(await current())) throw new DataChangedDuringDownload();
}

export function downloadStream(
  database: Pick<Database, 'db' | 'engine'>,
  p: QueryPlan,
  options: { batchRows?: number; lines?: LineCopy | undefined; current?: () => Promise<boolean> } = {},
): Readable {
  const db = database.db as Kysely<any>;
  const { lines } = options;
  const postgres = database.engine === 'postgres';
  const copy = postgres && copySupported(p);
  const fromBlocks = lines !== undefined && isWholeTable(p);
  const batchRows = options.batchRows ?? (fromBlocks && postgres ? BLOCK_BATCH : copy ? COPY_BATCH : CSV_BATCH);
  async function* body(): AsyncGenerator<Buffer> {
    if (lines && fromBlocks) {
      // Whole blocks per batch: at least one, else about batchRows lines.
      const blocks = Math.max(1, Math.round(batchRows / LINES_PER_BLOCK));
      yield* postgres ? copyBlocks(db, p, blocks, lines.blocks) : selectBlocks(db, p, blocks, lines.blocks);
    } else if (copy) yield* copyBatches(db, p, batchRows, lines?.table);
    else yield* lineBatches(db, p, batchRows, lines?.table);
  }
  return csvStream(p, options.current ? unchangedBatches(body(), options.current) : body());
}

async function* lineBatches(db: Kysely<any>, p: QueryPlan, batchRows: number, linesTable: string | undefined): AsyncGenerator<Buffer> {
  const keyCount = sortKeys(p).length;
  let after: unknown[] | null = null;
  for (;;) {
    const rows = (await csvBatchQuery(p, after, batchRows, linesTable).execute(db)).rows as Array<Record<string, unknown>>;
    if (rows.length === 0) return;
    yield Buffer.from(`${rows.map((r) => r.line as string).join('\r\n')}\r\n`);
    if (rows.length < batchRows) return;
    const last: Record<string, unknown> = rows[rows.length - 1]!;
    after = Array.from({ length: keyCount }, (_, i): unknown => last[`k${i}`] ?? null);
  }
}

async function* copyBatches(db: Kysely<any>, p: QueryPlan, batchRows: number, linesTable: string | undefined): AsyncGenerator<Buffer> {
  const ends = await boundaries(db, p, batchRows);
  yield* copyAhead(
    db,
    ends.map((end, i) => copyBatchQuery(p, ends[i - 1] ?? null, end, batchRows, linesTable)),
  );
}

/** Every row in the default order from the stored blocks, `blocks` blocks per COPY. */
async function* copyBlocks(db: Kysely<any>, p: QueryPlan, blocks: number, table: string): AsyncGenerator<Buffer> {
  const [row] = (await lastBlockQuery(p, table).execute(db)).rows as Array<{ last: string | null }>;
  if (row?.last == null) return;
  const batches: CopyBatch[] = [];
  for (let from = 0n, last = BigInt(row.last); from <= last; from += BigInt(blocks)) batches.push(blockBatchQuery(p, table, from, from + BigInt(blocks)));
  yield* copyAhead(db, batches);
}

/** The batches' COPY output in order, COPY_AHEAD of them running at a time, each started only when the client has taken the ones before the previous. */
async function* copyAhead(db: Kysely<any>, batches: readonly CopyBatch[]): AsyncGenerator<Buffer> {
  const started: Array<Promise<Buffer[]>> = [];
  const start = (i: number) => {
    const { query, format } = batches[i]!;
    const batch = copyRows(db, copyStatement(db, query, format), format);
    // A batch still running when the client goes away finishes unread; its failure is nobody's.
    batch.catch(() => undefined);
    started.push(batch);
  };
  for (let i = 0; i < batches.length; i++) {
    while (started.length < Math.min(i + COPY_AHEAD, batches.length)) start(started.length);
    const chunks = await started[i]!;
    started[i] = DONE;
    yield* chunks;
  }
}

/** PGlite: every row in the default order from the stored blocks, `blocks` blocks per select. */
async function* selectBlocks(db: Kysely<any>, p: QueryPlan, blocks: number, table: string): AsyncGenerator<Buffer> {
  for (let from = 0n; ; from += BigInt(blocks)) {
    const rows = (await blockBatchQuery(p, table, from, from + BigInt(blocks)).query.execute(db)).rows as Array<{ lines: string }>;
    if (rows.length === 0) return;
    yield Buffer.from(`${rows.map((r) => r.lines).join('\r\n')}\r\n`);
  }
}

const DONE: Promise<Buffer[]> = Promise.resolve([]);

const BACKSLASH = 92;
/** The bytes COPY's text format writes after a backslash for a control character (PostgreSQL copyto.c, CopyAttributeOutText). */
const TEXT_ESCAPES: Readonly<Record<number, number>> = { 98: 8, 102: 12, 110: 10, 114: 13, 116: 9, 118: 11 };

/**
 * Copies `row[0, end)` into `out` at `at` with COPY's text escapes undone (`\\` is a
 * backslash, `\n` LF, `\r` CR, `\t` tab, `\b` `\f` `\v`; a backslash before any other
 * byte stands for that byte) and returns the new end. Output is never longer than input.
 * Written by hand: it is the inverse of one PostgreSQL output routine, which no library has.
 */
export function unescapeText(row: Buffer, end: number, out: Buffer, at: number): number {
  let i = 0;
  while (i < end) {
    const next = row.indexOf(BACKSLASH, i);
    const stop = next < 0 || next >= end ? end : next;
    at += row.copy(out, at, i, stop);
    if (stop === end) break;
    const c = row[stop + 1]!;
    out[at++] = TEXT_ESCAPES[c] ?? c;
    i = stop + 2;
  }
  return at;
}

/** Range ends of the batches, in order (empty: no rows). */
async function boundaries(db: Kysely<any>, p: QueryPlan, every: number): Promise<Boundary[]> {
  const last = lastRidQuery(p);
  if (last) {
    const [row] = (await last.execute(db)).rows as Array<{ k0: string | null }>;
    if (!row?.k0) return [];
    const max = BigInt(row.k0);
    const out: Boundary[] = [];
    for (let r = BigInt(every); r < max; r += BigInt(every)) out.push([r.toString()]);
    out.push([max.toString()]);
    return out;
  }
  const keyCount = sortKeys(p).length;
  // The sort keys of every `every`-th row and of the last one, as text (exact for every key type).
  const rows = (await boundariesQuery(p, every, { last: true, asText: true }).execute(db)).rows as Array<Record<string, string | null>>;
  return rows.map((r) => Array.from({ length: keyCount }, (_, i) => r[`k${i}`] ?? null));
}

/**
 * One COPY on a pooled connection of its own, read whole. pg's `client.query()` accepts a
 * "submittable" in place of SQL text, and Kysely hands its `sql` to `client.query()`
 * unchanged (as in ingest/copy-into.ts), so the connection stays Kysely's pooled one.
 */
function copyRows(db: Kysely<any>, statement: string, format: CopyBatch['format']): Promise<Buffer[]> {
  return db.connection().execute(async (conn) => {
    const copy = new CopyOut(statement, format);
    await conn.executeQuery({ ...CompiledQuery.raw(''), sql: copy as unknown as string });
    return copy.done;
  });
}

/** Bytes per block the rows of a COPY are gathered in. */
const BLOCK = 1 << 20;

/**
 * `COPY ... TO STDOUT` as a pg submittable: the backend sends each row as one CopyData
 * message ending with LF (protocol, "COPY Operations"), which pg's parser hands over as a
 * view of its read buffer; the row is copied at once into 1 MB blocks with CRLF instead.
 * In text format (one column of stored lines) the row's escapes are undone on the way.
 * Resolves with the blocks at ReadyForQuery, rejects with the server's error.
 */
class CopyOut {
  readonly done: Promise<Buffer[]>;
  private resolve!: (blocks: Buffer[]) => void;
  private reject!: (error: unknown) => void;
  private readonly blocks: Buffer[] = [];
  private block = Buffer.allocUnsafe(BLOCK);
  private used = 0;
  private failed = false;

  constructor(
    private readonly text: string,
    private readonly format: CopyBatch['format'],
  ) {
    this.done = new Promise<Buffer[]>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  submit(connection: { query(text: string): void }): void {
    connection.query(this.text);
  }

  handleCopyData(message: { chunk: Buffer }): void {
    const row = message.chunk;
    const n = row.length;
    if (n === 0 || row[n - 1] !== 10) {
      this.fail(new Error('COPY: a CopyData message that is not one row ending LF'));
      return;
    }
    if (this.used + n + 1 > this.block.length) {
      if (this.used > 0) this.blocks.push(this.block.subarray(0, this.used));
      this.block = Buffer.allocUnsafe(Math.max(BLOCK, n + 1));
      this.used = 0;
    }
    if (this.format === 'text' && row.indexOf(BACKSLASH) >= 0) this.used = unescapeText(row, n - 1, this.block, this.used);
    else this.used += row.copy(this.block, this.used, 0, n - 1);
    this.block[this.used++] = 13;
    this.block[this.used++] = 10;
  }

  handleError(error: unknown): void {
    this.fail(error);
  }

  handleReadyForQuery(): void {
    if (this.failed) return;
    if (this.used > 0) this.blocks.push(this.block.subarray(0, this.used));
    this.resolve(this.blocks);
  }

  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handlePortalSuspended(): void {}
  handleEmptyQuery(): void {}
  handleCopyInResponse(connection: { sendCopyFail(message: string): void }): void {
    connection.sendCopyFail('not a COPY FROM');
  }

  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.reject(error);
  }
}
