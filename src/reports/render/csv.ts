/**
 * Render stage: report rows -> CSV (contract section 5): RFC 4180 quoting, CRLF, a header
 * row of column keys, booleans true/false, dates as epoch seconds, NULL empty, and a `'`
 * before any text cell starting with = + - @ tab or CR (OWASP CSV injection), so a
 * spreadsheet never evaluates a cell as a formula.
 */
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Plan } from '../plan.js';

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return String(value);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/**
 * Streams `batches` (arrays of positional rows) as CSV. Pulling the next batch waits for
 * the consumer (Readable.from + pipe), so memory holds one batch, whatever the row count.
 */
export function csvStream(plan: Plan, batches: AsyncIterable<Array<Record<string, unknown>>>): Readable {
  const keys = plan.output.map((o) => o.key);
  async function* records(): AsyncGenerator<string[]> {
    for await (const batch of batches) {
      for (const row of batch) yield keys.map((_, i) => csvCell(row[`c${i}`]));
    }
  }
  const stringifier = stringify({ header: true, columns: keys, record_delimiter: '\r\n' });
  const source = Readable.from(records(), { objectMode: true });
  source.on('error', (err) => stringifier.destroy(err));
  return source.pipe(stringifier);
}
