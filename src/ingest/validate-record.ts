/**
 * Validation of one bundle record against its file's spec (bundle-spec.ts): unknown
 * fields, missing required fields, wrong types, values outside their enumeration, custom
 * values typed by the organization's custom field definitions. CSV cells (always text)
 * are converted by the field's type here. Returns the staging row or every problem.
 */
import { SHAREABLE_NAMES } from '../reports/catalog/account-fields.js';
import type { EntitySpec, FieldSpec } from './bundle-spec.js';

export interface FieldProblem {
  field: string;
  problem: string;
}

export type CustomType = 'string' | 'number' | 'currency' | 'date' | 'boolean';

/** Custom field types of one organization and entity, by key. */
export type CustomTypes = (org: string, entity: string) => ReadonlyMap<string, CustomType> | undefined;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INTEGER_TEXT = /^[+-]?\d+$/;
const NUMBER_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

type Converted = { ok: true; value: unknown } | { ok: false; problem: string };
/** Custom values can have several problems, each with its own field path. */
type ConvertedField = Converted | { ok: false; problems: FieldProblem[] };

/** Converts one scalar by type; `text` is true for CSV cells. */
function scalar(type: 'string' | 'integer' | 'number' | 'boolean' | 'date', value: unknown, text: boolean): Converted {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? { ok: true, value } : { ok: false, problem: `must be a string, got ${describe(value)}` };
    case 'integer':
    case 'date': {
      const what = type === 'date' ? 'epoch seconds (an integer)' : 'an integer';
      if (typeof value === 'number' && Number.isSafeInteger(value)) return { ok: true, value };
      if (text && typeof value === 'string' && INTEGER_TEXT.test(value.trim()) && Number.isSafeInteger(Number(value))) return { ok: true, value: Number(value) };
      return { ok: false, problem: `must be ${what}, got ${describe(value)}` };
    }
    case 'number':
      if (typeof value === 'number' && Number.isFinite(value)) return { ok: true, value };
      if (text && typeof value === 'string' && NUMBER_TEXT.test(value.trim())) return { ok: true, value: Number(value) };
      return { ok: false, problem: `must be a number, got ${describe(value)}` };
    case 'boolean':
      if (typeof value === 'boolean') return { ok: true, value };
      if (text && (value === 'true' || value === 'false')) return { ok: true, value: value === 'true' };
      return { ok: false, problem: `must be true or false, got ${describe(value)}` };
  }
}

function customScalarType(t: CustomType): 'string' | 'number' | 'date' | 'boolean' {
  return t === 'currency' ? 'number' : t;
}

export function validateRecord(
  spec: EntitySpec,
  record: Record<string, unknown>,
  fromCsv: boolean,
  customTypes: CustomTypes,
): { row: Record<string, unknown>; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const row: Record<string, unknown> = {};
  const topLevel = new Set(spec.fields.map((fs) => fs.path.split('.')[0]!));

  for (const [key, value] of Object.entries(record)) {
    if (!topLevel.has(key)) {
      problems.push({ field: key, problem: 'unknown field' });
      continue;
    }
    const allowed = spec.objects[key];
    if (allowed && value !== null && value !== undefined) {
      if (typeof value !== 'object' || Array.isArray(value)) problems.push({ field: key, problem: `must be an object with ${allowed.join(', ')}, got ${describe(value)}` });
      else for (const sub of Object.keys(value)) if (!allowed.includes(sub)) problems.push({ field: `${key}.${sub}`, problem: 'unknown field' });
    }
  }

  for (const field of spec.fields) {
    const value = read(record, field.path);
    if (value === undefined || value === null) {
      if (field.required) problems.push({ field: field.path, problem: 'missing required field' });
      continue;
    }
    const converted = convert(field, value, fromCsv, record, spec, customTypes);
    if (converted.ok) row[field.column] = converted.value;
    else if ('problems' in converted) problems.push(...converted.problems);
    else problems.push({ field: field.path, problem: converted.problem });
  }
  return { row, problems };
}

function read(record: Record<string, unknown>, path: string): unknown {
  const dot = path.indexOf('.');
  if (dot < 0) return record[path];
  const parent = record[path.slice(0, dot)];
  return parent && typeof parent === 'object' && !Array.isArray(parent) ? (parent as Record<string, unknown>)[path.slice(dot + 1)] : undefined;
}

function convert(field: FieldSpec, value: unknown, text: boolean, record: Record<string, unknown>, spec: EntitySpec, customTypes: CustomTypes): ConvertedField {
  switch (field.type) {
    case 'uuid':
      if (typeof value !== 'string' || !UUID.test(value)) return { ok: false, problem: `must be a UUID, got ${describe(value)}` };
      return { ok: true, value: value.toLowerCase() };
    case 'string': {
      const r = scalar('string', value, text);
      if (!r.ok) return r;
      if (field.required && (value as string).trim() === '') return { ok: false, problem: 'must not be empty' };
      if (field.oneOf && !field.oneOf.includes(value as string)) return { ok: false, problem: `must be one of ${field.oneOf.join(', ')}, got ${describe(value)}` };
      return r;
    }
    case 'integer':
    case 'number':
    case 'boolean':
    case 'date': {
      const r = scalar(field.type, value, text);
      if (r.ok && field.nonNegative && (r.value as number) < 0) return { ok: false, problem: `must not be negative, got ${String(r.value)}` };
      return r;
    }
    case 'stringList': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return { ok: false, problem: `must be an array of strings, got ${describe(value)}` };
      const unknown = (value as string[]).filter((name) => !SHAREABLE_NAMES.has(name) && !/^custom\.[^.]+$/.test(name));
      if (unknown.length) return { ok: false, problem: `unknown account field ${unknown.map((u) => JSON.stringify(u)).join(', ')}: use account field names of the bundle (e.g. "name", "accountType", "owner.email", "owner") or "custom.<key>"` };
      return { ok: true, value };
    }
    case 'subtypes': {
      const ok = Array.isArray(value) && value.every((s) => s && typeof s === 'object' && typeof (s as { code?: unknown }).code === 'string' && typeof (s as { displayName?: unknown }).displayName === 'string' && Object.keys(s).every((k) => k === 'code' || k === 'displayName'));
      return ok ? { ok: true, value } : { ok: false, problem: 'must be an array of { code, displayName } with string values' };
    }
    case 'custom': {
      if (typeof value !== 'object' || Array.isArray(value)) return { ok: false, problem: `must be an object, got ${describe(value)}` };
      const org = typeof record.org === 'string' ? record.org.toLowerCase() : '';
      const types = spec.customEntity ? customTypes(org, spec.customEntity) : undefined;
      const out: Record<string, unknown> = {};
      const problems: FieldProblem[] = [];
      for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
        const type = types?.get(key);
        if (v === null) {
          out[key] = null;
          continue;
        }
        if (!type) {
          // Keys without a definition are kept as given: they do not become columns.
          out[key] = v;
          continue;
        }
        const r = scalar(customScalarType(type), v, text);
        if (!r.ok) problems.push({ field: `custom.${key}`, problem: `${r.problem} (custom field of type ${type})` });
        else out[key] = r.value;
      }
      return problems.length ? { ok: false, problems } : { ok: true, value: out };
    }
  }
}
