/**
 * Render stage: report rows -> CSV (contract section 5): RFC 4180 quoting, CRLF, a header
 * row of column keys, booleans true/false, dates as epoch seconds, NULL empty, and a `'`
 * before any text cell starting with = + - @ tab or CR (OWASP CSV injection), so a
 * spreadsheet never evaluates a cell as a formula.
 *
 * For speed the database writes the cells by these rules (PostgreSQL's COPY in CSV format
 * over cells prepared by query-csv.ts, or one ready line per row on PGlite, query.ts
 * `csvCellExpr`): the server only moves bytes, so a download costs no per-cell work in
 * Node. `csvCell` / `csvField` are the reference rules (tests compare them).
 */
import { Readable } from 'node:stream';
import type { Plan } from '../plan.js';

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** A value as the text of its cell, before quoting. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return String(value);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** RFC 4180 quoting of one cell text. */
export function csvField(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Streams the header row and then `body` (CSV rows, each ending CRLF). Pulling the next
 * chunk waits for the consumer, so memory holds what the body holds whatever the row count.
 */
export function csvStream(plan: Plan, body: AsyncIterable<Buffer>): Readable {
  const header = plan.output.map((o) => csvField(o.key)).join(',');
  async function* chunks(): AsyncGenerator<Buffer> {
    yield Buffer.from(`${header}\r\n`);
    yield* body;
  }
  return Readable.from(chunks(), { objectMode: false });
}

const LF = 10;
const QUOTE = 34;

/**
 * Rewrites the row ends of CSV text (PostgreSQL's COPY ends rows with LF) to CRLF, chunk
 * by chunk: an LF outside quotes ends a row, one inside a quoted field is data. A `"`
 * outside a quoted field only ever opens one (a field holding a quote is quoted and the
 * quote doubled), so toggling on every `"` tracks the state; the returned function keeps
 * it between chunks of one stream, which must start at a row start.
 */
export function crlfRowEnds(): (chunk: Buffer) => Buffer {
  let quoted = false;
  return (chunk) => {
    const ends: number[] = [];
    const n = chunk.length;
    let i = 0;
    // Next quote / LF at or after i (-1: none up to the end of the chunk).
    let q = -2;
    let lf = -2;
    while (i < n) {
      if (q !== -1 && q < i) q = chunk.indexOf(QUOTE, i);
      if (quoted) {
        if (q === -1) break;
        quoted = false;
        i = q + 1;
        continue;
      }
      if (lf !== -1 && lf < i) lf = chunk.indexOf(LF, i);
      if (q !== -1 && (lf === -1 || q < lf)) {
        quoted = true;
        i = q + 1;
      } else if (lf !== -1) {
        ends.push(lf);
        i = lf + 1;
      } else break;
    }
    if (ends.length === 0) return chunk;
    const out = Buffer.allocUnsafe(n + ends.length);
    let from = 0;
    let to = 0;
    for (const e of ends) {
      to += chunk.copy(out, to, from, e);
      out[to++] = 13;
      from = e;
    }
    chunk.copy(out, to, from, n);
    return out;
  };
}
