/**
 * Staging rows as PostgreSQL COPY text (one line per row, columns separated by tabs,
 * `\N` for NULL). COPY is the bulk input path of both engines: the server parses this
 * far faster than it can take the same rows apart from a JSON parameter, and the text
 * is built once per row with no intermediate JSON document.
 */
import { stagingType, type EntitySpec } from './bundle-spec.js';

/** Staging columns in COPY order: the line number, whether the record has a problem, then the spec's fields. */
export function stagingColumns(spec: EntitySpec): string[] {
  return ['line', 'invalid', ...spec.fields.map((f) => f.column)];
}

type Encode = (value: unknown) => string;

// COPY text treats backslash, tab, newline and carriage return as syntax; everything else is literal.
const SPECIAL = /[\\\t\n\r]/;
const SPECIAL_ALL = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const escapeText = (s: string): string => (SPECIAL.test(s) ? s.replace(SPECIAL_ALL, (c) => ESCAPES[c]!) : s);

const ENCODERS: Record<string, Encode> = {
  text: (v) => escapeText(v as string),
  bigint: (v) => String(v),
  'double precision': (v) => String(v),
  boolean: (v) => (v ? 't' : 'f'),
  jsonb: (v) => escapeText(JSON.stringify(v)),
};

const compiled = new WeakMap<EntitySpec, Encode[]>();

/**
 * Encodes one staging row (values by field position, absent = NULL; each value valid for
 * its column) as a COPY line with its newline. `invalid`: the record has a problem.
 */
export function copyLine(spec: EntitySpec, line: number, row: readonly unknown[], invalid = false): string {
  let encoders = compiled.get(spec);
  if (!encoders) {
    encoders = spec.fields.map((f) => ENCODERS[stagingType(f.type)]!);
    compiled.set(spec, encoders);
  }
  let out = invalid ? `${line}\tt` : `${line}\tf`;
  for (let i = 0; i < encoders.length; i++) {
    const value = row[i];
    out += value === undefined || value === null ? '\t\\N' : `\t${encoders[i]!(value)}`;
  }
  return `${out}\n`;
}
