/**
 * Streams the records of one bundle file with their line numbers, in batches (one per
 * chunk read from disk, so the per-record cost of async iteration is paid per batch):
 * NDJSON (one object per line, blank lines skipped) or CSV (header row of field names,
 * nested objects flattened as `owner.email` / `custom.<key>`, empty cells absent).
 * Nothing is held beyond the current chunk, so a file of any size reads in constant
 * memory.
 */
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { parse } from 'csv-parse';

export type RawRecord = { line: number; record: Record<string, unknown>; fromCsv: boolean } | { line: number; error: string };

const READ_BYTES = 1024 * 1024;

/** Lines end at LF, CRLF or a lone CR (as readline counts them). */
const LINE_BREAK = /\r\n|\n|\r/;

export async function* readNdjson(path: string, onBytes?: (n: number) => void): AsyncGenerator<RawRecord[]> {
  const decoder = new StringDecoder('utf8');
  let line = 0;
  let rest = '';
  // A CR at a chunk's end may be the first half of a CRLF: the break is decided with the next chunk.
  const parseLines = (text: string, final: boolean): RawRecord[] => {
    const batch: RawRecord[] = [];
    const lines = text.includes('\r') ? text.split(LINE_BREAK) : text.split('\n');
    rest = final ? '' : lines.pop()!;
    if (!final && rest === '' && text.endsWith('\r')) rest = `${lines.pop()!}\r`;
    for (const raw of lines) {
      line++;
      const record = parseLine(raw, line);
      if (record) batch.push(record);
    }
    return batch;
  };
  for await (const chunk of createReadStream(path, { highWaterMark: READ_BYTES }) as AsyncIterable<Buffer>) {
    onBytes?.(chunk.length);
    const batch = parseLines(rest + decoder.write(chunk), false);
    if (batch.length) yield batch;
  }
  const tail = rest + decoder.end();
  if (tail !== '') {
    const batch = parseLines(tail, true);
    if (batch.length) yield batch;
  }
}

function parseLine(text: string, line: number): RawRecord | undefined {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { line, error: 'not valid JSON' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { line, error: 'must be a JSON object' };
  return { line, record: value as Record<string, unknown>, fromCsv: false };
}

export async function* readCsv(path: string, onBytes?: (n: number) => void): AsyncGenerator<RawRecord[]> {
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
      if (skipped.length) yield skipped.splice(0);
      yield [{ line: firstLine(record, info.lines), record: unflatten(record), fromCsv: true }];
    }
  } catch (err) {
    const e = err as { message?: string; lines?: number };
    skipped.push({ line: e.lines ?? 0, error: `not valid CSV: ${e.message ?? String(err)}` });
  }
  if (skipped.length) yield skipped.splice(0);
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
