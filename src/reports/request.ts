/**
 * Request stage: query string and body -> plain names and values. No catalog, no SQL, no
 * database; every syntax error is collected and thrown at once as one 400.
 */
import { validationError, type FieldError } from '../server/errors.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 2000;

export type Direction = 'asc' | 'desc';

export interface SortTerm {
  key: string;
  direction: Direction;
  /** The last of several parts that named no direction (`sort=city,up`): it may have been meant as one. */
  orDirection?: true;
}

export interface Paging {
  page: number;
  /** Clamped to MAX_PAGE_SIZE (contract section 2). */
  size: number;
  sort: SortTerm[];
}

/** The ReportRequest body (spec 4.2) after schema validation. */
export interface ReportBody {
  filters: Record<string, string>;
  search: string;
  columns: string[] | undefined;
  context: RawContext | undefined;
}

/** Context as sent (spec 4.3); validated against the caller in plan.ts. */
export interface RawContext {
  partnerPublicIds?: unknown;
  eventTypeCodes?: unknown;
  dateRangeDays?: unknown;
  eventDateStart?: unknown;
  eventDateEnd?: unknown;
  oppCreatedDateDays?: unknown;
  oppCreatedDateStart?: unknown;
  oppCreatedDateEnd?: unknown;
}

const NON_NEGATIVE_INTEGER = /^\d+$/;

/**
 * A non-negative integer parameter of at least `min`. With `clampAt`, any larger integer,
 * however many digits it has, is that maximum (contract section 2: `size` above 2000 is
 * 2000, not an error because it is past 2^53). Without it, an integer past 2^53 is read
 * as the nearest double: the caller bounds it (parsePaging: page * size).
 */
function integerParam(value: unknown, name: string, fallback: number, min: number, errors: FieldError[], clampAt?: number): number {
  if (value === undefined) return fallback;
  const text = Array.isArray(value) ? undefined : String(value);
  if (clampAt !== undefined && text !== undefined && NON_NEGATIVE_INTEGER.test(text) && Number(text) > clampAt) return clampAt;
  if (text === undefined || !NON_NEGATIVE_INTEGER.test(text) || Number(text) < min) {
    errors.push({ field: name, message: `must be an integer >= ${min}${Array.isArray(value) ? ' (given more than once)' : `, got ${JSON.stringify(value)}`}` });
    return fallback;
  }
  return Number(text);
}

/**
 * `sort=property,asc|desc`, repeatable. As in Spring Data, one parameter may name several
 * properties before its direction (`sort=a,b,desc`); the direction defaults to asc.
 * Names are taken as written, as Spring Data takes them: `sort=%20city` names no column and
 * `sort=city,%20desc` no direction (both 400), rather than being guessed at.
 */
export function parseSort(value: unknown, errors: FieldError[]): SortTerm[] {
  if (value === undefined) return [];
  const params = Array.isArray(value) ? value : [value];
  const terms: SortTerm[] = [];
  for (const param of params) {
    const parts = String(param).split(',');
    let direction: Direction = 'asc';
    let named = false;
    const last = parts[parts.length - 1]!.toLowerCase();
    if (parts.length > 1 && (last === 'asc' || last === 'desc')) {
      direction = last;
      named = true;
      parts.pop();
    }
    if (parts.length === 0 || parts.some((p) => p === '')) {
      errors.push({ field: 'sort', message: `"${String(param)}" is not "property,asc" or "property,desc"` });
      continue;
    }
    parts.forEach((key, i) => terms.push(!named && i > 0 && i === parts.length - 1 ? { key, direction, orDirection: true } : { key, direction }));
  }
  return terms;
}

/** A page request's query (records, download): its paging, and its problems (reported with the plan's). */
export function pageQuery(query: Record<string, unknown>): { paging: Paging; errors: FieldError[] } {
  const errors: FieldError[] = [];
  return { paging: parsePaging(query, errors), errors };
}

/** /filterdata's query: paging, `filterField` (required) and `filterSearch`, and their problems. */
export function filterValuesQuery(query: Record<string, unknown>): { paging: Paging; field?: string; filterSearch?: string; errors: FieldError[] } {
  const { paging, errors } = pageQuery(query);
  const field = query.filterField;
  const named = typeof field === 'string' && field !== '';
  if (Array.isArray(field)) errors.push({ field: 'filterField', message: 'must be given once: the column to list values of' });
  else if (!named) errors.push({ field: 'filterField', message: 'is required: the column to list values of' });
  const filterSearch = query.filterSearch;
  if (filterSearch !== undefined && typeof filterSearch !== 'string') errors.push({ field: 'filterSearch', message: 'must be given once, as a string' });
  return { paging, errors, ...(named ? { field } : {}), ...(typeof filterSearch === 'string' ? { filterSearch } : {}) };
}

/**
 * The query's problems alone, for an answer that stops before planning (a body the JSON
 * schema refuses): they are listed with the schema's (contract section 1).
 */
export const pageQueryProblems = (query: Record<string, unknown>): FieldError[] => pageQuery(query).errors;
export const filterValuesQueryProblems = (query: Record<string, unknown>): FieldError[] => filterValuesQuery(query).errors;

export function parsePaging(query: Record<string, unknown>, errors: FieldError[]): Paging {
  const page = integerParam(query.page, 'page', 0, 0, errors);
  const size = integerParam(query.size, 'size', DEFAULT_PAGE_SIZE, 1, errors, MAX_PAGE_SIZE);
  const sort = parseSort(query.sort, errors);
  // The envelope's `pageable.offset` (page * size) must stay an exact JSON integer; a page
  // past the exact integers itself (`99999999999999999999`) is told the same, as written.
  if (page * size > Number.MAX_SAFE_INTEGER) errors.push({ field: 'page', message: `must be at most ${Math.floor(Number.MAX_SAFE_INTEGER / size)} with size ${size}, got ${String(query.page)}` });
  return { page, size, sort };
}

/** Body fields after TypeBox validated their JSON types and rejected unknown fields. */
export function parseReportBody(body: Record<string, unknown>): ReportBody {
  return {
    filters: (body.filters as Record<string, string> | undefined) ?? {},
    search: typeof body.search === 'string' ? body.search : '',
    columns: body.columns as string[] | undefined,
    context: body.context as RawContext | undefined,
  };
}

export function throwIfErrors(errors: FieldError[]): void {
  if (errors.length) throw validationError(errors);
}

/**
 * Search terms at most. Each term is a condition of its own, with one or more bound
 * parameters (a statement takes at most 65,535), and a lookup of its values: 70,000 terms
 * in a body under 1 MiB failed in the driver after seconds, where the request deserves a
 * 400 naming `search`. Every term must occur in the row, so a hundred is far past any
 * real search.
 */
export const MAX_SEARCH_TERMS = 100;

/** Search terms: white-space separated, each must match (contract section 4). */
export function searchTerms(search: string): string[] {
  return search.trim().split(/\s+/u).filter(Boolean);
}
