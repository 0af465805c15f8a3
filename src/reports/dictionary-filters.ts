/**
 * "Contains" and "does not contain" on a column with a value dictionary (precomputed.ts),
 * resolved before the statements are built: the dictionary's values are tested once, by
 * PostgreSQL itself (its ILIKE, so the case rules are exactly those of the plain
 * filter), and the filter becomes a test of the row's value against that list.
 *
 * The same rows: a row's non-null value is one of the dictionary's values, and it
 * contains a term exactly when that value does. What changes is what the planner knows:
 * a literal list instead of a subquery it cannot see into, and two shapes it need not
 * run at all. A "does not contain" that no value matches keeps every row (NULLs stay),
 * so it is dropped, and the plan may then be answered by the figures stored at import
 * (a count, filter values, the unfiltered dashboard); a "contains" that no value matches
 * keeps no row (query.ts turns an empty list into `false`, and the count is 0).
 */
import { sql, type RawBuilder } from 'kysely';
import { isTextual } from './catalog/types.js';
import { storedName } from './catalog/column.js';
import { likeContains } from './filter-language.js';
import type { FilterPlan } from './plan.js';
import type { QueryPlan } from './query.js';

type Sql = RawBuilder<unknown>;

/** Runs a statement and returns its rows (the service's pool, or the benchmark's). */
export type RunQuery = <T>(query: Sql) => Promise<T[]>;

/** Resolved value lists, per organization, data version and filter (a few short lists). */
export interface ResolutionMemo {
  get(key: string): readonly string[] | undefined;
  set(key: string, values: readonly string[]): void;
}

/** The dictionary values a filter selects (contains) or rejects (does not contain). */
export function dictionaryMatchQuery(plan: Pick<QueryPlan, 'orgId' | 'report'>, name: string, f: FilterPlan): Sql | null {
  const spec = f.filter;
  const base = sql`select coalesce(array_agg(d.value order by d.pos), '{}') as v from rpt_value_counts d where d.org_id = ${plan.orgId} and d.tbl = ${plan.report.table} and d.col = ${name}`;
  if (spec.operation === 'contains') return sql`${base} and ${sql.join(spec.values.map((t) => sql`d.value ilike ${likeContains(t)}`), sql` and `)}`;
  if (spec.operation === 'doesNotContain') return sql`${base} and d.value ilike any(${spec.values.map(likeContains)}::text[])`;
  return null;
}

/** The stored name of a filter's column when it has a dictionary and the filter can be resolved on it. */
function resolvable(plan: QueryPlan, f: FilterPlan): string | null {
  if (!plan.accel || f.column.json || !isTextual(f.column.type)) return null;
  if (f.filter.operation !== 'contains' && f.filter.operation !== 'doesNotContain') return null;
  const name = storedName(f.column);
  return name !== null && plan.accel.dictionary.has(name) ? name : null;
}

/**
 * The plan with its dictionary "contains" and "does not contain" filters replaced by
 * value lists ("exact" for contains, "not equal" for does not contain; a does-not-contain
 * that rejects no value is left out). Plans without such filters come back unchanged.
 * `memoKey` (organization and data version) enables the memo.
 */
export async function resolveDictionaryFilters<P extends QueryPlan>(plan: P, run: RunQuery, memo?: { memo: ResolutionMemo; key: string }): Promise<P> {
  if (!plan.accel || !plan.filters.some((f) => resolvable(plan, f) !== null)) return plan;
  const filters = await Promise.all(
    plan.filters.map(async (f): Promise<FilterPlan | null> => {
      const name = resolvable(plan, f);
      const query = name ? dictionaryMatchQuery(plan, name, f) : null;
      if (!name || !query) return f;
      const key = memo ? `${memo.key}:${plan.report.table}:${name}:${JSON.stringify(f.filter)}` : '';
      let values = memo?.memo.get(key);
      if (!values) {
        values = (await run<{ v: string[] }>(query))[0]?.v ?? [];
        memo?.memo.set(key, values);
      }
      if (f.filter.operation === 'contains') return { column: f.column, filter: { operation: 'exact', values: [...values] } };
      return values.length === 0 ? null : { column: f.column, filter: { operation: 'notEqual', values: [...values] } };
    }),
  );
  return { ...plan, filters: filters.filter((f): f is FilterPlan => f !== null) };
}
