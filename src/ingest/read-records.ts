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
  const parser = stream.pipe(parse({ columns: true, info: true, skip_empty_lines: true, bom: true, relax_column_count: false }));
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      yield { line: info.lines, record: unflatten(record), fromCsv: true };
    }
  } catch (err) {
    const e = err as { message?: string; lines?: number };
    yield { line: e.lines ?? 0, error: `not valid CSV: ${e.message ?? String(err)}` };
  }
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
