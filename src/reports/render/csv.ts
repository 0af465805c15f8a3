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
 * One CSV line (without its CRLF) of cell texts already quoted by `csvField`. A line of
 * one empty cell is written `""`, as Python's csv module writes it: an empty line is a
 * row to RFC 4180, but Python's csv reader, pandas and spreadsheets' importers skip it,
 * and a download of one column would lose its NULL rows. Still the empty value.
 */
export function csvLineOf(fields: readonly string[]): string {
  return fields.length === 1 && fields[0] === '' ? '""' : fields.join(',');
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
