/**
 * Search through distinct values: the report columns a catalog lists as `searchByValue`
 * (people, places, types, the partner's own record: values that repeat across many rows)
 * are left out of the row's trigram-indexed `search_text` and searched through their
 * distinct values instead.
 *
 * Why: the trigram index over the accounts report's search text was the largest single
 * step of an import (about 310 s at 2,000,000 rows; PostgreSQL 15 builds a GIN index on
 * one core, and its cost follows the number of distinct trigrams per row, about 350).
 * About half of those trigrams came from these columns, and each of their values repeats
 * on thousands of rows. Indexed as whole values (one `btree_gin` entry per row and
 * column) and tested once per distinct value, they cost a fraction of that
 * (docs/benchmarks.md, fourteenth session).
 *
 * The rows found are the same. A term occurs in a row when it occurs in the row's search
 * text or in one of these columns' values; a value contains the term exactly when it is
 * one of the distinct values that do. `rpt_search_values` holds every distinct non-null
 * value of these columns per organization (built at import from the report rows, so
 * masked values, stored as NULL, are not there either), with no limit on how many: a
 * column with a million distinct values is still complete, only slower to test.
 *
 * A plan whose terms were not resolved (a caller outside the service, or values not
 * stored) is still exact: query.ts then tests those columns with ILIKE on the row.
 */
import { sql, type RawBuilder } from 'kysely';
import { storedName } from './catalog/column.js';
import { isTextual, type Column, type ReportDefinition } from './catalog/types.js';
import { likeContains } from './filter-language.js';
import type { RunQuery } from './dictionary-filters.js';
import type { Plan } from './plan.js';

type Sql = RawBuilder<unknown>;

/** Per search term, the values of each by-value column (stored name) that contain it; null where the term was not resolved. */
export type SearchValues = ReadonlyArray<ReadonlyMap<string, readonly string[]> | null>;

/** A plan with its search terms resolved to values (query.ts reads them). */
export type SearchResolved = { searchValues?: SearchValues };

/** Resolved terms, per organization, data version and term. */
export interface SearchMemo {
  get(key: string): ReadonlyMap<string, readonly string[]> | undefined;
  set(key: string, values: ReadonlyMap<string, readonly string[]>): void;
}

/** The separator of `search_text` (materialize.ts): no value and no term of the index path contains it. */
export const SEARCH_SEPARATOR = '\u001f';

/** The report's by-value search columns: catalog column and stored name, in catalog order. */
export function byValueColumns(report: ReportDefinition): ReadonlyArray<{ column: Column; name: string }> {
  const keys = new Set(report.searchByValue ?? []);
  const out: Array<{ column: Column; name: string }> = [];
  for (const column of report.columns) {
    const name = storedName(column);
    if (keys.has(column.key) && name !== null && isTextual(column.type)) out.push({ column, name });
  }
  const bad = [...keys].filter((k) => !out.some((o) => o.column.key === k));
  // A catalog mistake, caught by the first import or request (and by the catalog tests).
  if (bad.length) throw new Error(`${report.id}: searchByValue lists ${bad.join(', ')}, which are not stored textual columns`);
  return out;
}

/** The stored names of a report table's by-value columns (materialize.ts leaves them out of search_text). */
export function byValueNames(report: ReportDefinition): ReadonlySet<string> {
  let names = NAMES.get(report);
  if (!names) NAMES.set(report, (names = new Set(byValueColumns(report).map((c) => c.name))));
  return names;
}
const NAMES = new WeakMap<ReportDefinition, ReadonlySet<string>>();

/** One statement: for one term, the by-value columns with values containing it, and those values. */
function matchQuery(plan: Pick<Plan, 'orgId' | 'report'>, term: string): Sql {
  return sql`select v.col, array_agg(v.value order by v.value) as values from rpt_search_values v
    where v.org_id = ${plan.orgId} and v.tbl = ${plan.report.table} and v.value ilike ${likeContains(term)} group by v.col`;
}

/**
 * Each search term's values, per by-value column (columns without such values get none,
 * so the row's test is its search text alone); undefined when the plan has nothing to
 * resolve. Terms with the separator are left unresolved (null): query.ts tests every
 * column of the row for them. Remembered per organization, data version and term.
 */
export async function searchValuesOf(plan: Plan, run: RunQuery, memo?: { memo: SearchMemo; key: string }): Promise<SearchValues | undefined> {
  const names = byValueNames(plan.report);
  if (plan.search.length === 0 || names.size === 0) return undefined;
  return Promise.all(
    plan.search.map(async (term): Promise<ReadonlyMap<string, readonly string[]> | null> => {
      if (term.includes(SEARCH_SEPARATOR)) return null;
      const key = memo ? `${memo.key}:${plan.report.table}:${term}` : '';
      let byColumn = memo?.memo.get(key);
      if (!byColumn) {
        const rows = await run<{ col: string; values: string[] }>(matchQuery(plan, term));
        byColumn = new Map(rows.filter((r) => names.has(r.col)).map((r) => [r.col, r.values]));
        memo?.memo.set(key, byColumn);
      }
      return byColumn;
    }),
  );
}

/** The plan with its search terms resolved (searchValuesOf), as the service plans it. */
export async function resolveSearchValues<P extends Plan>(plan: P, run: RunQuery, memo?: { memo: SearchMemo; key: string }): Promise<P & SearchResolved> {
  const searchValues = await searchValuesOf(plan, run, memo);
  return searchValues ? { ...plan, searchValues } : plan;
}
