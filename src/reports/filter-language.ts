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

/**
 * Terms of one "contains" or "does not contain" filter at most. Each term is a pattern
 * tested on every row (or every dictionary value): 85,000 of them kept the embedded
 * database busy for seconds, every other caller waiting. A "contains" term is also a
 * condition of its own in the SQL, with its own bound parameter, and a statement takes at
 * most 65,535: 70,000 terms in a body under 1 MiB failed in the driver. Either deserves a
 * 400 naming the filter; a hundred terms is far past any real filter. Exact and not-equal
 * lists are one array tested by hash, and are not limited.
 */
export const MAX_CONTAINS_TERMS = 100;

function listFilter(operation: 'exact' | 'notEqual' | 'contains' | 'doesNotContain', body: string): FilterParseResult {
  if (body === '') return { ok: false, message: 'has no value: give at least one value before the operation suffix' };
  const values = body.split(VALUE_DELIMITER);
  if (values.some((v) => v === '')) return { ok: false, message: `has an empty value: values are separated by "${VALUE_DELIMITER}" and none may be empty` };
  if ((operation === 'contains' || operation === 'doesNotContain') && values.length > MAX_CONTAINS_TERMS) {
    return { ok: false, message: `has ${values.length} terms: "${operation === 'contains' ? 'contains' : 'does not contain'}" takes at most ${MAX_CONTAINS_TERMS}` };
  }
  return { ok: true, filter: { operation, values } };
}

/**
 * Whether `value`, written as a filter, is the exact match of itself. Spec 4.4 rule 2
 * promises that a value `/filterdata` offers works as-is as an exact-match filter, and the
 * language has no escape: a value that is empty, holds "-,-" or "<->", or ends in an
 * operation's suffix reads as something else (several values, a range, another
 * operation), so `/filterdata` leaves it out. query.ts `readsAsItselfSql` is its SQL twin.
 */
export function readsAsItself(value: string): boolean {
  const parsed = parseFilter(value);
  return parsed.ok && parsed.filter.operation === 'exact' && parsed.filter.values.length === 1;
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A decimal number written as text (`-1.5`, `2e3`, white space around it ignored), or
 * undefined when the text is not one or is beyond the double range: the grammar of range
 * bounds, of the context's epoch values given as strings (plan.ts) and of a bundle's CSV
 * number cells (validate-record.ts), so the same number is accepted in every place.
 */
export function decimalNumber(text: string): number | undefined {
  const t = text.trim();
  if (!NUMBER.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

function rangeFilter(raw: string): FilterParseResult {
  const parts = raw.split(RANGE_DELIMITER);
  if (parts.length !== 2) return { ok: false, message: `a range is "min${RANGE_DELIMITER}max" with one "${RANGE_DELIMITER}"` };
  const [minText, maxText] = [parts[0]!.trim(), parts[1]!.trim()];
  if (minText === '' && maxText === '') return { ok: false, message: `a range needs a min, a max or both ("min${RANGE_DELIMITER}max")` };
  const min = minText === '' ? null : (decimalNumber(minText) ?? NaN);
  const max = maxText === '' ? null : (decimalNumber(maxText) ?? NaN);
  if (Number.isNaN(min) || Number.isNaN(max)) {
    return { ok: false, message: `range bounds must be numbers (epoch seconds for dates), got "${raw}"` };
  }
  if (min !== null && max !== null && min > max) return { ok: false, message: `range min ${min} is greater than max ${max}` };
  return { ok: true, filter: { operation: 'range', min, max } };
}

/** Escapes LIKE metacharacters so `%`, `_` and `\` in a term are literal (escape character `\`). */
export function likeContains(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
