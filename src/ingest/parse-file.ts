/**
 * One bundle file from disk to COPY text: read (read-records.ts), validate
 * (validate-record.ts) and encode (copy-format.ts) each record, yielding chunks of about
 * `chunkBytes` of COPY text with the problems found on the way. Only the current chunk
 * is held, so a file of any size parses in constant memory.
 *
 * A record with a field problem is encoded too, flagged invalid with its valid values
 * (stage.ts says why); only a line that is no record at all (not JSON, a CSV row that
 * does not parse) is left out.
 */
import type { EntitySpec } from './bundle-spec.js';
import { copyLine } from './copy-format.js';
import { readCsv, readNdjson, type RawRecord } from './read-records.js';
import { isKnownColumn, validateRecord, type CustomType } from './validate-record.js';

export interface ParseSource {
  spec: EntitySpec;
  path: string;
  csv: boolean;
}

export interface LineProblem {
  line: number;
  field: string;
  problem: string;
}

export interface ParsedChunk {
  /** COPY text of the chunk's records, those with a problem flagged (may be empty). */
  text: string;
  /** Valid records in `text`. */
  rows: number;
  problems: LineProblem[];
  /** Last line read so far, and bytes of the file read so far. */
  lines: number;
  bytes: number;
}

/** Custom field types by `org|entity`, then key; grows with the bundle's own custom_fields. */
export type CustomTypeMap = Map<string, Map<string, CustomType>>;

export const CHUNK_BYTES = 1024 * 1024;

export async function* parseFile(source: ParseSource, customTypes: CustomTypeMap, chunkBytes = CHUNK_BYTES): AsyncGenerator<ParsedChunk> {
  const { spec } = source;
  let bytes = 0;
  const onBytes = (n: number) => {
    bytes += n;
  };
  const reader: AsyncGenerator<RawRecord[]> = source.csv ? readCsv(source.path, onBytes, (name) => isKnownColumn(spec, name)) : readNdjson(source.path, onBytes);
  const lookup = (org: string, entity: string) => customTypes.get(`${org}|${entity}`);
  let chunk: ParsedChunk = { text: '', rows: 0, problems: [], lines: 0, bytes: 0 };
  const column = (name: string) => spec.fields.findIndex((f) => f.column === name);
  const [org, entity, key, type] = ['org', 'entity', 'key', 'type'].map(column) as [number, number, number, number];
  for await (const batch of reader) {
    for (const raw of batch) {
      // A problem of the whole file (line 0: it cannot be read) leaves the count of lines read.
      chunk.lines = Math.max(chunk.lines, raw.line);
      if ('error' in raw) {
        chunk.problems.push({ line: raw.line, field: raw.field ?? '-', problem: raw.error });
        continue;
      }
      const { row, problems } = validateRecord(spec, raw.record, raw.fromCsv, lookup);
      if (problems.length) {
        for (const p of problems) chunk.problems.push({ line: raw.line, field: p.field, problem: p.problem });
        chunk.text += copyLine(spec, raw.line, row, true);
        continue;
      }
      if (spec.name === 'custom_fields') {
        // Later files' custom values are typed by these definitions.
        const k = `${row[org] as string}|${row[entity] as string}`;
        if (!customTypes.has(k)) customTypes.set(k, new Map());
        customTypes.get(k)!.set(row[key] as string, row[type] as CustomType);
      }
      chunk.text += copyLine(spec, raw.line, row);
      chunk.rows++;
    }
    if (chunk.text.length >= chunkBytes || chunk.problems.length >= 10_000) {
      chunk.bytes = bytes;
      yield chunk;
      chunk = { text: '', rows: 0, problems: [], lines: chunk.lines, bytes: 0 };
    }
  }
  chunk.bytes = bytes;
  yield chunk;
}
