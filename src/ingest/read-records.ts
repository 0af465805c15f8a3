/**
 * Streams the records of one bundle file with their line numbers, in batches (one per
 * chunk read from disk, so the per-record cost of async iteration is paid per batch):
 * NDJSON (one object per line, blank lines skipped) or CSV (header row of field names,
 * nested objects flattened as `owner.email` / `custom.<key>`, empty cells absent).
 * Nothing is held beyond the current chunk, so a file of any size reads in constant
 * memory. A leading byte order mark is skipped in both forms (editors on Windows write one).
 *
 * A file that cannot be read (a directory, a file gone or unreadable) is a problem of the
 * file on line 0, never a thrown or unhandled stream error: the import reports it with
 * its other problems, and a server running the import stays up (control-server.ts).
 */
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { parse, type Parser } from 'csv-parse';
import { LineCounter, lineBreaks } from './line-counter.js';
import { getOwn, setOwn } from './own-property.js';

/** A record, or a line (or header cell, `field`) that is no record; `line` 0 is the whole file. */
export type RawRecord = { line: number; record: Record<string, unknown>; fromCsv: boolean } | { line: number; error: string; field?: string };

const READ_BYTES = 1024 * 1024;

/** Lines end at LF, CRLF or a lone CR (as readline counts them). */
const LINE_BREAK = /\r\n|\n|\r/;

const BOM = 0xfeff;

/** `cannot be read (EISDIR: illegal operation on a directory)`: the system's reason, without the call and path. */
export function cannotRead(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return `cannot be read (${message.replace(/, \w+(?: '[^']*')?$/, '')})`;
}

export async function* readNdjson(path: string, onBytes?: (n: number) => void): AsyncGenerator<RawRecord[]> {
  const decoder = new StringDecoder('utf8');
  let line = 0;
  let rest = '';
  let atStart = true;
  // A CR at a chunk's end may be the first half of a CRLF: the break is decided with the next chunk.
  const parseLines = (text: string, final: boolean): RawRecord[] => {
    const batch: RawRecord[] = [];
    if (atStart && text !== '') {
      // U+FEFF before the first record would make it invalid JSON.
      if (text.charCodeAt(0) === BOM) text = text.slice(1);
      atStart = false;
    }
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
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: READ_BYTES }) as AsyncIterable<Buffer>) {
      onBytes?.(chunk.length);
      const batch = parseLines(rest + decoder.write(chunk), false);
      if (batch.length) yield batch;
    }
  } catch (err) {
    yield [{ line: 0, error: cannotRead(err) }];
    return;
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

/**
 * `knownColumn` says which header names are fields of the file: the others, and a name
 * repeated, are reported once on the header's line and their cells left out (csv-parse
 * would keep the last of repeated cells, and an unknown column was reported only on the
 * rows where its cell is not empty). An empty name is left to the rows, as before.
 */
export async function* readCsv(path: string, onBytes?: (n: number) => void, knownColumn?: (name: string) => boolean): AsyncGenerator<RawRecord[]> {
  const stream = createReadStream(path);
  // pipe() does not forward a read error to the parser: unhandled, it ended the process.
  let readError: unknown;
  stream.on('error', (err) => {
    readError = err;
    parser.destroy(err);
  });
  const lines = new LineCounter();
  // Registered before pipe() adds its own listener, so each chunk is counted before the parser sees it.
  stream.on('data', (chunk) => {
    lines.add(chunk as Buffer);
    onBytes?.((chunk as Buffer).length);
  });
  const skipped: RawRecord[] = [];
  let lastSkipped = -1;
  const skip = (err: CsvParseError) => {
    const line = errorLine(err, lines);
    // A record the parser lost track of (a stray quote) can raise more errors up to its end: the first says why.
    if (line !== lastSkipped) skipped.push({ line, error: csvProblem(err) });
    lastSkipped = line;
  };
  // skip_records_with_error: a malformed row (wrong cell count, stray quote) is reported
  // through 'skip' and parsing goes on, so every bad row of the file is reported at once
  // instead of the first one aborting the stream (and losing rows already parsed).
  // on_record and 'skip' run as the parser reaches each record, in file order, as the
  // line counter needs (the records are read from the stream later). on_record's context
  // is the parser's whole `info`, byte offset included (the typings name fewer fields).
  const header = (names: string[]): Array<string | false> => {
    const line = firstLine(names, parser.info.bytes, lines);
    const seen = new Set<string>();
    return names.map((name) => {
      if (name === '') return name;
      const problem = seen.has(name) ? 'repeated column' : knownColumn && !knownColumn(name) ? 'unknown field' : undefined;
      seen.add(name);
      if (!problem) return name;
      skipped.push({ line, field: name, error: problem });
      return false;
    });
  };
  const parser: Parser = stream.pipe(
    parse({
      columns: header,
      skip_empty_lines: true,
      // Every line ending, line by line, as the line counter and docs/api.md count them:
      // left to itself, csv-parse takes the first line's ending for the whole file, so a
      // CRLF file with one LF line (or the reverse) kept CRs in values or merged rows.
      record_delimiter: ['\r\n', '\n', '\r'],
      bom: true,
      skip_records_with_error: true,
      on_record: (record: Record<string, string>, info): RawRecord => ({ line: firstLine(record, (info as unknown as { bytes: number }).bytes, lines), record: unflatten(record), fromCsv: true }),
    }),
  );
  parser.on('skip', skip);
  try {
    for await (const record of parser as AsyncIterable<RawRecord>) {
      if (skipped.length) yield skipped.splice(0);
      yield [record];
    }
  } catch (err) {
    if (readError !== undefined) skipped.push({ line: 0, error: cannotRead(readError) });
    else skipped.push({ line: errorLine(err as CsvParseError, lines), error: csvProblem(err as CsvParseError) });
  }
  if (skipped.length) yield skipped.splice(0);
}

/** What csv-parse's errors carry: its context at the error (byte offset, and the cells of a record of the wrong length). */
interface CsvParseError {
  code?: string;
  message?: string;
  bytes?: number;
  record?: unknown;
}

/** A record's first line: the line it ends on (`end`: its byte offset), less the line breaks inside its quoted cells. */
function firstLine(record: Record<string, string> | readonly string[], end: number, lines: LineCounter): number {
  let breaks = 0;
  for (const value of Object.values(record)) if (typeof value === 'string') breaks += lineBreaks(value);
  return lines.lineEndingAt(end) - breaks;
}

/**
 * The line of a parse error: a record of the wrong length is placed as a record; any
 * other error where the parser stood at its last cell or record boundary (`bytes`), so
 * an unclosed quote is reported where its cell starts, not at the end of the file.
 */
function errorLine(err: CsvParseError, lines: LineCounter): number {
  if (typeof err.bytes !== 'number') return 0;
  if (err.code === 'CSV_RECORD_INCONSISTENT_COLUMNS' && Array.isArray(err.record)) return firstLine(err.record as string[], err.bytes, lines);
  return lines.lineStartingAt(err.bytes);
}

function csvProblem(err: { code?: string; message?: string }): string {
  const message = (err.message ?? String(err)).replace(/ (on|at) line \d+/, '');
  const counts = /columns length is (\d+), got (\d+)/.exec(message);
  if (err.code === 'CSV_RECORD_INCONSISTENT_COLUMNS' && counts) return `has ${counts[2]} cells but the header has ${counts[1]}`;
  return `not valid CSV: ${message}`;
}

/** `{ "owner.email": "a", "name": "" }` -> `{ owner: { email: "a" } }` (empty cells are absent). */
function unflatten(row: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (value === '') continue;
    const dot = key.indexOf('.');
    if (dot < 0) {
      setOwn(out, key, value);
      continue;
    }
    const head = key.slice(0, dot);
    if (getOwn(out, head) === undefined) setOwn(out, head, {});
    const nested = getOwn(out, head);
    if (typeof nested === 'object' && nested !== null) setOwn(nested as Record<string, unknown>, key.slice(dot + 1), value);
  }
  return out;
}
