/**
 * Request stage: the filter language of spec 4.4 / contract section 3, parsed into plain
 * data. Pure: no catalog, no SQL. Which operations a column allows is decided in plan.ts.
 *
 *   "a-,-b"        exact (any value)          "a-,-b-!-"   not equal (none of the values)
 *   "a-,-b-?-"     contains (every term)      "a-,-b-^-"   does not contain (no term)
 *   "10<->20"      range, inclusive; an empty side is open ("10<->", "<->20")
 */
import type { FilterOperation } from './catalog/types.js';

export const VALUE_DELIMITER = '-,-';
export const RANGE_DELIMITER = '<->';

export type ParsedFilter =
  | { operation: 'exact' | 'notEqual' | 'contains' | 'doesNotContain'; values: string[] }
  | { operation: 'range'; min: number | null; max: number | null };

export type FilterParseResult = { ok: true; filter: ParsedFilter } | { ok: false; message: string };

const SUFFIXES: ReadonlyArray<readonly [string, FilterOperation]> = [
  ['-!-', 'notEqual'],
  ['-?-', 'contains'],
  ['-^-', 'doesNotContain'],
];

/** The operation a filter string selects, by its syntax alone. */
export function operationOf(raw: string): FilterOperation {
  for (const [suffix, operation] of SUFFIXES) if (raw.endsWith(suffix)) return operation;
  return raw.includes(RANGE_DELIMITER) ? 'range' : 'exact';
}

export function parseFilter(raw: string): FilterParseResult {
  for (const [suffix, operation] of SUFFIXES) {
    if (raw.endsWith(suffix)) return listFilter(operation as 'notEqual' | 'contains' | 'doesNotContain', raw.slice(0, -suffix.length));
  }
  if (raw.includes(RANGE_DELIMITER)) return rangeFilter(raw);
  return listFilter('exact', raw);
}

function listFilter(operation: 'exact' | 'notEqual' | 'contains' | 'doesNotContain', body: string): FilterParseResult {
  if (body === '') return { ok: false, message: 'has no value: give at least one value before the operation suffix' };
  const values = body.split(VALUE_DELIMITER);
  if (values.some((v) => v === '')) return { ok: false, message: `has an empty value: values are separated by "${VALUE_DELIMITER}" and none may be empty` };
  return { ok: true, filter: { operation, values } };
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function rangeFilter(raw: string): FilterParseResult {
  const parts = raw.split(RANGE_DELIMITER);
  if (parts.length !== 2) return { ok: false, message: `a range is "min${RANGE_DELIMITER}max" with one "${RANGE_DELIMITER}"` };
  const [minText, maxText] = [parts[0]!.trim(), parts[1]!.trim()];
  if (minText === '' && maxText === '') return { ok: false, message: `a range needs a min, a max or both ("min${RANGE_DELIMITER}max")` };
  const min = minText === '' ? null : NUMBER.test(minText) ? Number(minText) : NaN;
  const max = maxText === '' ? null : NUMBER.test(maxText) ? Number(maxText) : NaN;
  if (Number.isNaN(min) || Number.isNaN(max) || !Number.isFinite(min ?? 0) || !Number.isFinite(max ?? 0)) {
    return { ok: false, message: `range bounds must be numbers (epoch seconds for dates), got "${raw}"` };
  }
  if (min !== null && max !== null && min > max) return { ok: false, message: `range min ${min} is greater than max ${max}` };
  return { ok: true, filter: { operation: 'range', min, max } };
}

/** Escapes LIKE metacharacters so `%`, `_` and `\` in a term are literal (escape character `\`). */
export function likeContains(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
