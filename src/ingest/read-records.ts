/**
 * Streams the records of one bundle file with their line numbers: NDJSON (one object per
 * line, blank lines skipped) or CSV (header row of field names, nested objects flattened
 * as `owner.email` / `custom.<key>`, empty cells absent). Nothing is held beyond the
 * current record, so a file of any size reads in constant memory.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';

export type RawRecord = { line: number; record: Record<string, unknown>; fromCsv: boolean } | { line: number; error: string };

export async function* readNdjson(path: string, onBytes?: (n: number) => void): AsyncGenerator<RawRecord> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  if (onBytes) stream.on('data', (chunk) => onBytes(Buffer.byteLength(chunk as string)));
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      yield { line, error: 'not valid JSON' };
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) yield { line, error: 'must be a JSON object' };
    else yield { line, record: value as Record<string, unknown>, fromCsv: false };
  }
}

export async function* readCsv(path: string, onBytes?: (n: number) => void): AsyncGenerator<RawRecord> {
  const stream = createReadStream(path);
  if (onBytes) stream.on('data', (chunk) => onBytes((chunk as Buffer).length));
  // skip_records_with_error: a malformed row (wrong cell count, stray quote) is reported
  // through 'skip' and parsing goes on, so every bad row of the file is reported at once
  // instead of the first one aborting the stream (and losing rows already parsed).
  const parser = stream.pipe(parse({ columns: true, info: true, skip_empty_lines: true, bom: true, skip_records_with_error: true }));
  const skipped: RawRecord[] = [];
  parser.on('skip', (err: { code?: string; message?: string; lines?: number }) => skipped.push({ line: err.lines ?? 0, error: csvProblem(err) }));
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      while (skipped.length) yield skipped.shift()!;
      yield { line: firstLine(record, info.lines), record: unflatten(record), fromCsv: true };
    }
  } catch (err) {
    const e = err as { message?: string; lines?: number };
    skipped.push({ line: e.lines ?? 0, error: `not valid CSV: ${e.message ?? String(err)}` });
  }
  while (skipped.length) yield skipped.shift()!;
}

function csvProblem(err: { code?: string; message?: string }): string {
  const message = (err.message ?? String(err)).replace(/ (on|at) line \d+/, '');
  const counts = /columns length is (\d+), got (\d+)/.exec(message);
  if (err.code === 'CSV_RECORD_INCONSISTENT_COLUMNS' && counts) return `has ${counts[2]} cells but the header has ${counts[1]}`;
  return `not valid CSV: ${message}`;
}

/** csv-parse counts lines up to a record's end; a quoted cell spanning lines moves its start back. */
function firstLine(record: Record<string, string>, endLine: number): number {
  let breaks = 0;
  for (const value of Object.values(record)) if (value.includes('\n')) breaks += value.split('\n').length - 1;
  return endLine - breaks;
}

/** `{ "owner.email": "a", "name": "" }` -> `{ owner: { email: "a" } }` (empty cells are absent). */
function unflatten(row: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (value === '') continue;
    const dot = key.indexOf('.');
    if (dot < 0) {
      out[key] = value;
      continue;
    }
    const head = key.slice(0, dot);
    const nested = (out[head] ??= {}) as Record<string, unknown>;
    if (typeof nested === 'object') nested[key.slice(dot + 1)] = value;
  }
  return out;
}
