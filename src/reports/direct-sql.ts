/**
 * The SQL a records request runs when nothing is cached: the page statement and, unless
 * the count is precomputed, the count statement. The service decides with these same
 * functions, and the benchmark runs them straight against the database as the floor that
 * the service's latency is compared with.
 */
import type { RawBuilder } from 'kysely';
import type { Precomputed } from './precomputed.js';
import { batchQuery, countQuery, dictionaryCountQuery, isAllRows, isWholeTable, matchesNothing, recordsQuery, type QueryPlan } from './query.js';

type Sql = RawBuilder<unknown>;

/** The count statement, or the precomputed count itself (a number) when there is one. */
export function countStatement(p: QueryPlan, pre: Precomputed): Sql | number {
  if (matchesNothing(p)) return 0;
  const table = pre.tables.get(p.report.table);
  if (table && isAllRows(p)) return table.rows;
  return (table ? dictionaryCountQuery(p, table.rows) : null) ?? countQuery(p);
}

/** Whether the count is summed from one column's value dictionary (a tiny statement). */
export function isDictionaryCount(p: QueryPlan, pre: Precomputed): boolean {
  const table = pre.tables.get(p.report.table);
  return table !== undefined && dictionaryCountQuery(p, table.rows) !== null;
}

/**
 * The page statement of an uncached request: OFFSET below `keysetFrom`; from there on a
 * whole-table page is a direct `rid` seek (rows are numbered 1..N in the default order).
 * Deeper filtered or sorted pages seek from remembered page boundaries (service.ts).
 */
export function pageStatement(p: QueryPlan, keysetFrom: number): Sql {
  const offset = p.page * p.size;
  return offset > 0 && offset >= keysetFrom && isWholeTable(p) ? batchQuery(p, [offset], p.size) : recordsQuery(p);
}

/** The plan with the accelerations the precomputed figures allow (what the service runs). */
export function accelerate<P extends QueryPlan>(p: P, pre: Precomputed): P {
  const table = pre.tables.get(p.report.table);
  if (!table) return p;
  const dictionary = new Set<string>();
  for (const [name, c] of table.columns) if (c.hasValues) dictionary.add(name);
  return Object.assign(p, { accel: { dictionary } });
}
