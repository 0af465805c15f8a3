/**
 * Validation of one bundle record against its file's spec (bundle-spec.ts): unknown
 * fields (top-level and inside nested objects), missing required fields, wrong types,
 * values outside their enumeration, custom values typed by the organization's custom
 * field definitions. CSV cells (always text) are converted by the field's type here.
 * Returns the staging row (values in the order of the spec's fields, absent = undefined)
 * and every problem of the record.
 *
 * This runs once per line of files with millions of lines, so each spec is compiled
 * once into a table of per-field converters, and a record is checked in one pass over
 * its own keys; nothing is allocated for a valid record but its row array (an array of
 * known length, not an object with per-record keys, which V8 handles far faster).
 */
import { SHAREABLE_NAMES } from '../reports/catalog/account-fields.js';
import { decimalNumber } from '../reports/filter-language.js';
import { EVENT_DETAIL_COLUMNS, type EntitySpec, type FieldSpec } from './bundle-spec.js';
import { setOwn } from './own-property.js';

export interface FieldProblem {
  field: string;
  problem: string;
}

export type CustomType = 'string' | 'number' | 'currency' | 'date' | 'boolean';

/** Custom field types of one organization and entity, by key. */
export type CustomTypes = (org: string, entity: string) => ReadonlyMap<string, CustomType> | undefined;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CUSTOM_SHARE = /^custom\.[^.]+$/;

/** A failed conversion; returned (not thrown) so the valid path allocates nothing. */
class Bad {
  constructor(readonly problem: string) {}
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

type ScalarType = 'string' | 'integer' | 'number' | 'boolean' | 'date';

/** PostgreSQL text and jsonb cannot hold U+0000: refused here, as a problem of its line, not as a failed COPY. */
const NUL_PROBLEM = new Bad('must not contain the NUL character (\\u0000)');

/** Whether a JSON value holds U+0000 in any string or key (custom objects are stored as jsonb). */
function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(containsNul);
  for (const key in value as Record<string, unknown>) if (key.includes('\u0000') || containsNul((value as Record<string, unknown>)[key])) return true;
  return false;
}

/** What a value of each scalar type must be, in the words of the problems ("must be a number"). */
const EXPECTED: Readonly<Record<ScalarType, string>> = {
  string: 'a string', integer: 'an integer', number: 'a number', boolean: 'true or false', date: 'epoch seconds (an integer)',
};

/** Converts one scalar by type; `text` is true for CSV cells. */
function scalar(type: ScalarType, value: unknown, text: boolean): unknown {
  switch (type) {
    case 'string':
      if (typeof value !== 'string') return new Bad(`must be ${EXPECTED.string}, got ${describe(value)}`);
      return value.includes('\u0000') ? NUL_PROBLEM : value;
    case 'integer':
    case 'date': {
      if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
      // A cell takes the number grammar (`1e3`, `1.0`) as the same JSON number does, when it is a whole number.
      const n = text && typeof value === 'string' ? decimalNumber(value) : undefined;
      return n !== undefined && Number.isSafeInteger(n) ? n : new Bad(`must be ${EXPECTED[type]}, got ${describe(value)}`);
    }
    case 'number': {
      if (typeof value === 'number' && Number.isFinite(value)) return value;
      // decimalNumber refuses a cell beyond a double's range (`1e400`, Infinity to Number), as NDJSON refuses the value.
      const n = text && typeof value === 'string' ? decimalNumber(value) : undefined;
      return n ?? new Bad(`must be ${EXPECTED.number}, got ${describe(value)}`);
    }
    case 'boolean':
      if (typeof value === 'boolean') return value;
      // A cell in any letter case: Python's csv module writes True and False, spreadsheets TRUE
      // and FALSE; spaces around it are read past, as around a number cell (` 42 `).
      if (text && typeof value === 'string' && /^\s*(?:true|false)\s*$/i.test(value)) return value.trim().toLowerCase() === 'true';
      return new Bad(`must be ${EXPECTED.boolean}, got ${describe(value)}`);
  }
}

/** The scalar rule a custom field type checks its values by. */
const customScalar = (type: CustomType): ScalarType => (type === 'currency' ? 'number' : type);

/** What a custom value of `type` must be ("a number"). */
export function customExpected(type: CustomType): string {
  return EXPECTED[customScalar(type)];
}

/**
 * The same rules as `scalar` on JSON values (no text conversion), as a SQL predicate over
 * the jsonb expression `v`, for checks over stored rows (check-stored-custom.ts) that
 * cannot call this code per row. Kept beside `scalar` so the two change together; a test
 * (validate-record.test.ts) holds them to the same answers. CASE, not AND: PostgreSQL
 * does not promise to test the JSON type before the cast.
 */
export function customValueValidSql(type: CustomType, v: string): string {
  switch (customScalar(type)) {
    case 'string':
      // jsonb cannot hold U+0000, so a stored string never has the NUL problem.
      return `jsonb_typeof(${v}) in ('string', 'null')`;
    case 'number':
      // jsonb numbers are finite; one beyond a double's range would be Infinity to JavaScript.
      return `case jsonb_typeof(${v}) when 'null' then true when 'number' then abs((${v})::numeric) <= 1.7976931348623157e308 else false end`;
    case 'integer':
    case 'date':
      return `case jsonb_typeof(${v}) when 'null' then true when 'number' then (${v})::numeric = trunc((${v})::numeric) and abs((${v})::numeric) <= ${Number.MAX_SAFE_INTEGER} else false end`;
    case 'boolean':
      return `jsonb_typeof(${v}) in ('boolean', 'null')`;
  }
}

/** Converter of one field: the column value, or Bad. */
type Convert = (value: unknown, text: boolean) => unknown;

function converter(field: FieldSpec): Convert {
  switch (field.type) {
    case 'uuid':
      return (v) => (typeof v === 'string' && UUID.test(v) ? v.toLowerCase() : new Bad(`must be a UUID, got ${describe(v)}`));
    case 'string': {
      const allowed = field.oneOf ? new Set(field.oneOf) : undefined;
      return (v) => {
        if (typeof v !== 'string') return new Bad(`must be a string, got ${describe(v)}`);
        if (v.includes('\u0000')) return NUL_PROBLEM;
        if (field.required && v.trim() === '') return new Bad('must not be empty');
        if (allowed && !allowed.has(v)) return new Bad(`must be one of ${field.oneOf!.join(', ')}, got ${describe(v)}`);
        // A UTF-16 unit is at most 3 bytes of UTF-8: only a long value needs counting.
        if (field.maxBytes !== undefined && v.length * 3 > field.maxBytes) {
          const bytes = Buffer.byteLength(v, 'utf8');
          if (bytes > field.maxBytes) return new Bad(`is ${bytes} bytes long (UTF-8): an identifier holds at most ${field.maxBytes} bytes`);
        }
        return v;
      };
    }
    case 'integer':
    case 'number':
    case 'boolean':
    case 'date': {
      const type = field.type;
      if (!field.nonNegative && field.max === undefined) return (v, text) => scalar(type, v, text);
      const max = field.max ?? Infinity;
      return (v, text) => {
        const r = scalar(type, v, text);
        if (typeof r !== 'number') return r;
        if (field.nonNegative && r < 0) return new Bad(`must not be negative, got ${r}`);
        return r > max ? new Bad(`must be at most ${max}, got ${r}`) : r;
      };
    }
    case 'stringList':
      return (v) => {
        if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) return new Bad(`must be an array of strings, got ${describe(v)}`);
        if (containsNul(v)) return NUL_PROBLEM;
        const unknown = (v as string[]).filter((name) => !SHAREABLE_NAMES.has(name) && !CUSTOM_SHARE.test(name));
        if (unknown.length) return new Bad(`unknown account field ${unknown.map((u) => JSON.stringify(u)).join(', ')}: use account field names of the bundle (e.g. "name", "accountType", "owner.email", "owner") or "custom.<key>"`);
        return v;
      };
    case 'subtypes':
      return (v) => {
        if (!(Array.isArray(v) && v.every((s) => s && typeof s === 'object' && !Array.isArray(s) && typeof s.code === 'string' && typeof s.displayName === 'string' && Object.keys(s).every((k) => k === 'code' || k === 'displayName')))) {
          return new Bad('must be an array of { code, displayName } with string values');
        }
        if (containsNul(v)) return NUL_PROBLEM;
        // A code listed twice made two subtype rows of one code, and every event of it two
        // links: the report build then failed on its primary key.
        const codes = (v as Array<{ code: string }>).map((s) => s.code);
        const repeated = codes.find((c, i) => codes.indexOf(c) !== i);
        return repeated === undefined ? v : new Bad(`lists the subtype code ${JSON.stringify(repeated)} more than once`);
      };
    case 'custom':
      // Typed per record (the definitions depend on its organization): see customValues.
      return (v) => v;
  }
}

interface CompiledField {
  field: FieldSpec;
  /** Position of the field (and its value in the row). */
  index: number;
  convert: Convert;
}

/** A top-level key of a record: one field, or a nested object of fields. */
type Slot = { kind: 'field'; compiled: CompiledField } | { kind: 'object'; name: string; members: ReadonlyMap<string, CompiledField>; allowed: string };

interface CompiledSpec {
  slots: ReadonlyMap<string, Slot>;
  required: readonly FieldSpec[];
}

const compiledSpecs = new WeakMap<EntitySpec, CompiledSpec>();

function compile(spec: EntitySpec): CompiledSpec {
  let compiled = compiledSpecs.get(spec);
  if (compiled) return compiled;
  const slots = new Map<string, Slot>();
  for (const [index, field] of spec.fields.entries()) {
    const dot = field.path.indexOf('.');
    if (dot < 0) {
      slots.set(field.path, { kind: 'field', compiled: { field, index, convert: converter(field) } });
      continue;
    }
    const name = field.path.slice(0, dot);
    let slot = slots.get(name);
    if (!slot) {
      slot = { kind: 'object', name, members: new Map(), allowed: (spec.objects[name] ?? []).join(', ') };
      slots.set(name, slot);
    }
    if (slot.kind === 'object') (slot.members as Map<string, CompiledField>).set(field.path.slice(dot + 1), { field, index, convert: converter(field) });
  }
  compiled = { slots, required: spec.fields.filter((f) => f.required) };
  compiledSpecs.set(spec, compiled);
  return compiled;
}

/**
 * Whether a CSV header name is a field of the file: a top-level field, a member of a
 * nested object (`owner.email`) or `custom.<key>`. A bare object name (`owner`) counts as
 * known here: its cells are refused per row (`must be an object`), as in NDJSON.
 */
export function isKnownColumn(spec: EntitySpec, name: string): boolean {
  const { slots } = compile(spec);
  const dot = name.indexOf('.');
  if (dot < 0) return slots.has(name);
  const slot = slots.get(name.slice(0, dot));
  if (!slot) return false;
  if (slot.kind === 'object') return slot.members.has(name.slice(dot + 1));
  return slot.compiled.field.type === 'custom' && dot < name.length - 1;
}

/** A record's staging values by field position, and its problems (none: the record is valid). */
export interface ValidatedRecord {
  row: unknown[];
  problems: FieldProblem[];
}

const NO_PROBLEMS: FieldProblem[] = [];

export function validateRecord(spec: EntitySpec, record: Record<string, unknown>, fromCsv: boolean, customTypes: CustomTypes): ValidatedRecord {
  const { slots, required } = compile(spec);
  const out: ValidatedRecord = { row: new Array(spec.fields.length), problems: NO_PROBLEMS };
  for (const key in record) {
    const value = record[key];
    const slot = slots.get(key);
    if (!slot) {
      // An empty CSV header cell names no field; a value in its column is named by that, not by an empty field name.
      if (key === '') problem(out, '-', fromCsv ? 'a value in a column whose header cell is empty' : 'a field with an empty name');
      else problem(out, key, 'unknown field');
    } else if (slot.kind === 'field') {
      put(spec, record, fromCsv, customTypes, out, slot.compiled, value);
    } else if (value !== null && value !== undefined) {
      if (typeof value !== 'object' || Array.isArray(value)) {
        problem(out, key, `must be an object with ${slot.allowed}, got ${describe(value)}`);
        continue;
      }
      for (const sub in value as Record<string, unknown>) {
        const member = slot.members.get(sub);
        if (member) put(spec, record, fromCsv, customTypes, out, member, (value as Record<string, unknown>)[sub]);
        else problem(out, `${key}.${sub}`, 'unknown field');
      }
    }
  }
  for (const field of required) {
    if (record[field.path] === undefined || record[field.path] === null) problem(out, field.path, 'missing required field');
  }
  return out;
}

function problem(out: ValidatedRecord, field: string, text: string): void {
  if (out.problems === NO_PROBLEMS) out.problems = [];
  out.problems.push({ field, problem: text });
}

function put(spec: EntitySpec, record: Record<string, unknown>, fromCsv: boolean, customTypes: CustomTypes, out: ValidatedRecord, c: CompiledField, value: unknown): void {
  // null is "absent" (optional) or "missing" (required, reported by validateRecord).
  if (value === null || value === undefined) return;
  if (c.field.type === 'custom') {
    customValues(spec, record, value, fromCsv, customTypes, out, c.index);
    return;
  }
  const r = c.convert(value, fromCsv);
  if (r instanceof Bad) problem(out, c.field.path, r.problem);
  else out.row[c.index] = r;
}

/**
 * `custom`: values of keys the organization defined for this entity are checked (and, from
 * CSV, converted) by the definition's type; keys without a definition are kept as given
 * (from CSV: as strings), since they are not report columns.
 */
function customValues(
  spec: EntitySpec,
  record: Record<string, unknown>,
  value: unknown,
  text: boolean,
  customTypes: CustomTypes,
  out: ValidatedRecord,
  index: number,
): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problem(out, 'custom', `must be an object, got ${describe(value)}`);
    return;
  }
  if (containsNul(value)) {
    problem(out, 'custom', NUL_PROBLEM.problem);
    return;
  }
  const org = typeof record.org === 'string' ? record.org.toLowerCase() : '';
  const types = spec.customEntity ? customTypes(org, spec.customEntity) : undefined;
  const details = spec.customEntity === 'event' ? EVENT_DETAIL_COLUMNS : undefined;
  if (!types && !details) {
    out.row[index] = value;
    return;
  }
  const typed: Record<string, unknown> = {};
  let ok = true;
  for (const key in value as Record<string, unknown>) {
    const v = (value as Record<string, unknown>)[key];
    const type = types?.get(key);
    if (v !== null && !type && details && Object.hasOwn(details, key) && typeof v !== 'string') {
      problem(out, `custom.${key}`, `must be ${EXPECTED.string}, got ${describe(v)} (shown as the string column ${details[key]})`);
      ok = false;
      continue;
    }
    if (v === null || !type) {
      setOwn(typed, key, v);
      continue;
    }
    const r = scalar(customScalar(type), v, text);
    if (r instanceof Bad) {
      problem(out, `custom.${key}`, `${r.problem} (custom field of type ${type})`);
      ok = false;
    } else setOwn(typed, key, r);
  }
  if (ok) out.row[index] = typed;
}
