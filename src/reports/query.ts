/**
 * Query stage: Plan -> SQL (Kysely `sql` templates). The only place report SQL is
 * written. Identifiers and expressions come from the catalog; every request value is a
 * bound parameter (custom and partner keys too).
 *
 * NULL rules, LIKE escaping and the text order of contract sections 2 and 3 live here
 * once, for every report and every operation.
 */
import { sql, type RawBuilder } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Column } from './catalog/types.js';
import { isTextual } from './catalog/types.js';
import { likeContains } from './filter-language.js';
import { narrowCopyFor } from './narrow-copies.js';
import { storedName } from './catalog/column.js';
import { sqlTypeOf, type FilterPlan, type Plan, type Scope } from './plan.js';
import { byValueNames, SEARCH_SEPARATOR, type SearchResolved } from './search-values.js';

type Sql = RawBuilder<unknown>;

/**
 * What the query stage may use beyond the report table, per organization (precomputed at
 * import, src/reports/precomputed.ts): the stored columns with a complete value
 * dictionary in `rpt_value_counts`. Absent: plain SQL over the report table only.
 */
export interface Accel {
  /** Stored column names (of the plan's report table) with a value dictionary. */
  dictionary: ReadonlySet<string>;
}

/** A plan with the accelerations the service found for its organization. */
export type QueryPlan = Plan & SearchResolved & { accel?: Accel };

const accelOf = (plan: Pick<Plan, 'report'>): Accel | undefined => (plan as QueryPlan).accel;

/** The stored column name of `column` when it has a dictionary, else null. */
function dictionaryColumn(plan: Pick<Plan, 'report'>, column: Column): string | null {
  const accel = accelOf(plan);
  if (!accel || column.json) return null;
  const m = /^r\.([a-z_][a-z0-9_]*)$/.exec(column.sql);
  return m && accel.dictionary.has(m[1]!) ? m[1]! : null;
}

/** Values of a dictionary column that satisfy `test` on `d.value` (never NULL). */
function dictionaryValues(plan: Pick<Plan, 'report' | 'orgId'>, name: string, test: Sql): Sql {
  return sql`(select d.value from rpt_value_counts d where d.org_id = ${plan.orgId} and d.tbl = ${plan.report.table} and d.col = ${name} and ${test})`;
}

const TRUE: Sql = sql`true`;

function and(parts: Sql[]): Sql {
  return parts.length === 0 ? TRUE : parts.length === 1 ? parts[0]! : sql`(${sql.join(parts, sql` and `)})`;
}

function or(parts: Sql[]): Sql {
  return parts.length === 0 ? sql`false` : parts.length === 1 ? parts[0]! : sql`(${sql.join(parts, sql` or `)})`;
}

/** The column's value over the report relation `r`. */
export function columnExpr(column: Column): Sql {
  if (column.json) {
    const text = sql`(r.${sql.raw(column.json.column)} ->> ${column.json.key})`;
    const type = sqlTypeOf(column.type);
    return type === 'text' ? text : sql`${text}::${sql.raw(type)}`;
  }
  return sql.raw(column.sql);
}

// ---- relation and scope ---------------------------------------------------------------

const SUMMARY_COUNTERS = `
  count(*) filter (where l.event_type_code = 'ACTION_LIST' and l.event_subtype_code = 'CREATED') as action_lists_created_count,
  count(*) filter (where l.event_type_code = 'ACTION_LIST' and l.event_subtype_code = 'DOWNLOADED') as action_list_downloads_count,
  count(*) filter (where l.event_type_code = 'WORKFLOW' and l.event_subtype_code = 'INITIATED') as workflows_initiated_count,
  count(*) filter (where l.event_type_code = 'WORKFLOW' and l.event_subtype_code = 'INTRO_COMPLETED') as workflow_intros_completed_count,
  count(*) as total_attribution_events,
  count(distinct l.partner_org_id) as total_partners`;

/** The stored column each context date window applies to. */
export const WINDOW_COLUMNS = { eventDate: 'event_date', oppCreatedDate: 'opp_created_date' } as const;
export const WINDOW_KEYS = Object.keys(WINDOW_COLUMNS) as ReadonlyArray<keyof typeof WINDOW_COLUMNS>;

/**
 * The table whose rows the scope conditions filter: the report's own, except for the
 * pipeline summary, whose context scopes the links it counts (relation below).
 */
export function scopedTable(plan: Pick<Plan, 'report'>): string {
  return plan.report.shape === 'summary' ? 'rpt_attribution_facts' : plan.report.table;
}

/** Scope predicates over alias `a` (tenant first, then what context/channel select). */
export function scopeConditions(orgId: number, scope: Scope, a: string): Sql[] {
  const col = (name: string) => sql.raw(`${a}.${name}`);
  const out: Sql[] = [sql`${col('org_id')} = ${orgId}`];
  if (scope.partnerOrgIds) out.push(sql`${col('partner_org_id')} = any(${[...scope.partnerOrgIds]}::int[])`);
  if (scope.eventTypeCodes) out.push(sql`${col('event_type_code')} = any(${[...scope.eventTypeCodes]}::text[])`);
  for (const key of WINDOW_KEYS) {
    const window = scope[key];
    const name = WINDOW_COLUMNS[key];
    if (!window) continue;
    if (window.min !== null) out.push(sql`${col(name)} >= ${window.min}`);
    if (window.max !== null) out.push(sql`${col(name)} <= ${window.max}`);
  }
  if (scope.mutualOnly) out.push(sql`${col('mutual')}`);
  if (scope.sameLocation) out.push(sql`${col('same_location')}`);
  return out;
}

/**
 * `from ... r` and the conditions that define the report's rows. For the pipeline
 * summary the context scopes the links that are counted (inside the aggregate), so an
 * opportunity without a counted event does not appear. The links are read from
 * `rpt_attribution_facts` (migration 0004): the same rows as `rpt_attribution_links`
 * with only the columns the scope and the counters use, stored in event-date order.
 */
export function relation(plan: Pick<Plan, 'report' | 'orgId' | 'scope'>): { from: Sql; where: Sql[] } {
  const table = sql.table(plan.report.table);
  if (plan.report.shape === 'summary') {
    const linkScope = and(scopeConditions(plan.orgId, plan.scope, 'l'));
    const from = sql`(select o.*, ${sql.raw(['action_lists_created_count', 'action_list_downloads_count', 'workflows_initiated_count', 'workflow_intros_completed_count', 'total_attribution_events', 'total_partners'].map((c) => `c.${c}`).join(', '))}
    from (select l.opp_rid, ${sql.raw(SUMMARY_COUNTERS)} from ${sql.raw(scopedTable(plan))} l where ${linkScope} group by l.opp_rid) c
    join rpt_new_opportunities o on o.org_id = ${plan.orgId} and o.rid = c.opp_rid) r`;
    return { from, where: [] };
  }
  return { from: sql`${table} r`, where: scopeConditions(plan.orgId, plan.scope, 'r') };
}

// ---- filters and search ---------------------------------------------------------------

/**
 * One filter of the language as a boolean SQL expression (contract section 3). With a
 * value dictionary, contains / does-not-contain test the column's distinct values once
 * and the rows by equality (the same rows: a value contains a term or it does not).
 */
export function filterCondition(f: FilterPlan, plan?: Pick<Plan, 'report' | 'orgId'>): Sql {
  const e = columnExpr(f.column);
  const spec = f.filter;
  const dict = plan && isTextual(f.column.type) ? dictionaryColumn(plan, f.column) : null;
  if (plan && dict && spec.operation === 'contains') {
    return sql`${e} in ${dictionaryValues(plan, dict, and(spec.values.map((t) => sql`d.value ilike ${likeContains(t)}`)))}`;
  }
  if (plan && dict && spec.operation === 'doesNotContain') {
    return sql`(${e} is null or ${e} not in ${dictionaryValues(plan, dict, sql`d.value ilike any(${spec.values.map(likeContains)}::text[])`)})`;
  }
  switch (spec.operation) {
    case 'exact':
      // An empty list comes from a dictionary "contains" that no value matches
      // (dictionary-filters.ts): a constant the planner folds, so nothing is read.
      if (spec.values.length === 0) return sql`false`;
      return f.column.type === 'boolean'
        ? sql`${e} = any(${spec.values.map((v) => v === 'true')}::boolean[])`
        : sql`${e} = any(${spec.values}::text[])`;
    case 'notEqual':
      return f.column.type === 'boolean'
        ? sql`(${e} is null or not (${e} = any(${spec.values.map((v) => v === 'true')}::boolean[])))`
        : sql`(${e} is null or not (${e} = any(${spec.values}::text[])))`;
    case 'contains':
      return and(spec.values.map((t) => sql`${e} ilike ${likeContains(t)}`));
    case 'doesNotContain':
      return sql`(${e} is null or not (${e} ilike any(${spec.values.map(likeContains)}::text[])))`;
    case 'range': {
      const type = sql.raw(sqlTypeOf(f.column.type));
      const parts: Sql[] = [];
      if (spec.min !== null) parts.push(sql`${e} >= ${spec.min}::${type}`);
      if (spec.max !== null) parts.push(sql`${e} <= ${spec.max}::${type}`);
      return and(parts);
    }
  }
}

/**
 * Each term must occur in at least one textual column (terms ANDed, columns ORed). The
 * report tables keep those columns joined and lower-cased in `search_text`, so a term is
 * one LIKE of the lower-cased pattern on it: the same test as ORing ILIKE over the
 * columns (PostgreSQL's ILIKE on UTF-8 text is LIKE on lower() of both sides, so this
 * only skips lowering every row's text per request). The report's by-value columns are
 * not in `search_text` (search-values.ts): a term resolved to their values tests the row's
 * value against that list (the accounts report's search index holds those columns too,
 * so each test is an index lookup), and an unresolved term tests them with ILIKE. A term
 * containing the separator tests every column with ILIKE.
 */
export function searchCondition(plan: Pick<Plan, 'report' | 'search' | 'searchColumns'> & SearchResolved): Sql {
  const byValue = byValueNames(plan.report);
  return and(plan.search.map((t, i) => {
    const pattern = likeContains(t);
    if (t.includes(SEARCH_SEPARATOR)) return or(plan.searchColumns.map((c) => sql`${columnExpr(c)} ilike ${pattern}`));
    const resolved = plan.searchValues?.[i];
    const arms = [sql`r.search_text like lower(${pattern})`];
    for (const c of plan.searchColumns) {
      const name = storedName(c);
      if (name === null || !byValue.has(name)) continue;
      const values = resolved?.get(name);
      if (!resolved) arms.push(sql`${columnExpr(c)} ilike ${pattern}`);
      else if (values?.length) arms.push(sql`${columnExpr(c)} = any(${values}::text[])`);
    }
    return or(arms);
  }));
}

export function whereClause(plan: Plan, extra: Sql[] = []): Sql {
  const { where } = relation(plan);
  const probe = narrowProbe(plan);
  const parts = [...where, ...(probe ? [probe] : plan.filters.map((f) => filterCondition(f, plan)))];
  if (plan.search.length) parts.push(searchCondition(plan));
  return and([...parts, ...extra]);
}

/**
 * The count of a plan whose only conditions are filters on one dictionary column (and
 * the organization): summed from the dictionary's row counts, with the column's NULL rows
 * (row count minus the dictionary's total) counted when the filter keeps NULLs. Null when
 * the plan is not of that shape.
 */
export function dictionaryCountQuery(plan: Plan, rowCount: number): Sql | null {
  if (plan.report.shape !== 'table' || plan.search.length || plan.filters.length === 0 || !isOrgOnly(plan)) return null;
  const column = plan.filters[0]!.column;
  if (!isTextual(column.type) || plan.filters.some((f) => f.column !== column)) return null;
  const name = dictionaryColumn(plan, column);
  if (!name) return null;
  const conditions = plan.filters.map((f) => filterCondition({ column: { ...f.column, sql: 'd.v' }, filter: f.filter }));
  return sql`select coalesce(sum(d.n), 0) as n from (
      select value as v, n from rpt_value_counts where org_id = ${plan.orgId} and tbl = ${plan.report.table} and col = ${name}
      union all
      select null, ${rowCount}::bigint - coalesce(sum(n), 0) from rpt_value_counts where org_id = ${plan.orgId} and tbl = ${plan.report.table} and col = ${name}
    ) d where ${and(conditions)}`;
}

/** Whether a filter keeps no row (an "exact" with no value: a resolved dictionary "contains" that no value matched). */
export function matchesNothing(plan: Pick<Plan, 'filters'>): boolean {
  return plan.filters.some((f) => f.filter.operation === 'exact' && f.filter.values.length === 0);
}

/** Whether the plan's scope is the organization alone (no context, channel or partner scope). */
export function isOrgOnly(plan: Pick<Plan, 'scope'>): boolean {
  const s = plan.scope;
  return !s.partnerOrgIds && !s.eventTypeCodes && !s.eventDate && !s.oppCreatedDate && !s.mutualOnly && !s.sameLocation;
}

// ---- order ----------------------------------------------------------------------------

export interface SortKey {
  expr: Sql;
  direction: 'asc' | 'desc';
  /** Never NULL (the row id): the seek needs no NULL branch, so it stays an index range scan. */
  notNull?: boolean;
}

/** Contract section 2's text order as an ORDER BY list: the lower-cased value, then the value, both by code point. */
export const textOrder = (e: Sql): Sql => sql`lower(${e}) collate "C", ${e} collate "C"`;

/**
 * The full order: requested columns (text by lower-cased value then value, both by code
 * point), NULLs last in either direction, then the unique tie-breaker `rid`.
 */
export function sortKeys(plan: Plan): SortKey[] {
  const keys: SortKey[] = [];
  for (const { column, direction } of plan.sort) {
    const e = columnExpr(column);
    if (isTextual(column.type)) {
      keys.push({ expr: sql`lower(${e}) collate "C"`, direction });
      keys.push({ expr: sql`${e} collate "C"`, direction });
    } else keys.push({ expr: e, direction });
  }
  keys.push({ expr: sql`r.rid`, direction: 'asc', notNull: true });
  return keys;
}

export function orderBy(keys: SortKey[]): Sql {
  return sql.join(keys.map((k) => sql`${k.expr} ${sql.raw(k.direction)} nulls last`));
}

/** Rows strictly after the row whose sort-key values are `values` in the order `keys` (keyset seek). */
export function afterCondition(keys: SortKey[], values: readonly unknown[]): Sql {
  const alternatives: Sql[] = [];
  for (let i = 0; i < keys.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) continue; // nothing sorts after NULL within its key
    const equal = keys.slice(0, i).map((k, j) => (values[j] === null ? sql`${k.expr} is null` : sql`${k.expr} = ${values[j]}`));
    const k = keys[i]!;
    const op = sql.raw(k.direction === 'asc' ? '>' : '<');
    const after = k.notNull ? sql`${k.expr} ${op} ${v}` : sql`(${k.expr} ${op} ${v} or ${k.expr} is null)`;
    alternatives.push(and([...equal, after]));
  }
  return or(alternatives);
}

// ---- statements -----------------------------------------------------------------------

/**
 * Output select lists by the expressions they select. Kysely's fragments are immutable,
 * so one list serves every statement of the same output shape: a page of the accounts
 * report built 65 column fragments (each frozen) per request before (docs/benchmarks.md,
 * fifteenth session). Bounded: a stream of distinct explicit column lists cannot grow it.
 */
const selectLists = new LRUCache<string, Sql>({ max: 1000 });

/** Output select list, aliased positionally (`c0`, `c1`, ...) so no key is ever an identifier. */
function selectList(plan: Plan): Sql {
  const selected = plan.output.filter((o) => o.column.source !== 'partner').map((o) => o.column);
  const matched = plan.report.id === 'PARTNER_ORG_MATCHED_ACCOUNTS';
  const id = JSON.stringify([matched, selected.map((c) => (c.json ? [c.json.column, c.json.key, c.type] : c.sql))]);
  let list = selectLists.get(id);
  if (!list) {
    const items = selected.map((c, i) => sql`${columnExpr(c)} as ${sql.raw(`c${i}`)}`);
    if (matched) items.push(sql`r.partner_fields as partner_fields`);
    list = items.length ? sql.join(items) : sql`r.rid`;
    selectLists.set(id, list);
  }
  return list;
}

export function recordsQuery(plan: Plan): Sql {
  const { from } = relation(plan);
  return sql`select ${selectList(plan)} from ${from} where ${whereClause(plan)} order by ${orderBy(sortKeys(plan))} limit ${plan.size} offset ${plan.page * plan.size}`;
}

/**
 * The rows with the given rids, in `rid` order: a page whose rows the column store
 * selected (column-store.ts pageRids), read by the primary key.
 */
export function ridsQuery(plan: Plan, rids: readonly number[]): Sql {
  const { from, where } = relation(plan);
  return sql`select ${selectList(plan)} from ${from} where ${and([...where, sql`r.rid = any(${rids}::bigint[])`])} order by r.rid`;
}

/**
 * The rids of the plan's rows packed as big-endian int4 in one bytea, and their number
 * (column-store.ts probes: a condition the held columns cannot test). Read from the
 * narrow copy when it holds the conditions, as a count would be.
 */
export function matchingRidsQuery(plan: Plan): Sql {
  const { from, where } = readFrom(plan);
  return sql`select string_agg(int4send(r.rid::int4), ''::bytea) as b, count(*) as n from ${from} where ${where}`;
}

export function countQuery(plan: Plan): Sql {
  const unfiltered = plan.filters.length === 0 && plan.search.length === 0;
  // Pipeline summary without filters or search: one row per opportunity with a counted
  // link, and every link's opp_rid is a row of rpt_new_opportunities of its organization
  // (materialize.ts builds the links from that table), so the join adds no condition.
  if (plan.report.shape === 'summary' && unfiltered) {
    return sql`select count(distinct l.opp_rid) as n from rpt_attribution_facts l where ${and(scopeConditions(plan.orgId, plan.scope, 'l'))}`;
  }
  const { from, where } = readFrom(plan);
  return sql`select count(*) as n from ${from} where ${where}`;
}

/** One keyset batch for streaming: output columns plus the sort-key values (`k0`...). */
export function batchQuery(plan: Plan, after: readonly unknown[] | null, limit: number): Sql {
  const { from } = relation(plan);
  const keys = sortKeys(plan);
  const keyList = sql.join(keys.map((k, i) => sql`${k.expr} as ${sql.raw(`k${i}`)}`));
  const extra = after ? [afterCondition(keys, after)] : [];
  return sql`select ${selectList(plan)}, ${keyList} from ${from} where ${whereClause(plan, extra)} order by ${orderBy(keys)} limit ${limit}`;
}

/**
 * Page boundaries for keyset seeks: the sort-key values of every `size`-th matching row
 * (the last row of each page), in order. One pass over the matching rows, after which
 * any page is a seek from the previous boundary instead of an OFFSET scan. `last` adds the
 * last matching row (the end of the final CSV batch); `asText` returns the keys as text.
 */
export function boundariesQuery(plan: Plan, size: number, options: { last?: boolean; asText?: boolean } = {}): Sql {
  const { from } = relation(plan);
  const keys = sortKeys(plan);
  const keyList = sql.join(keys.map((k, i) => sql`${k.expr} as ${sql.raw(`k${i}`)}`));
  const outer = sql.join(keys.map((_, i) => sql.raw(options.asText ? `t.k${i}::text as k${i}` : `t.k${i}`)));
  if (!options.last) {
    return sql`select ${outer} from (select ${keyList}, row_number() over (order by ${orderBy(keys)}) as rn from ${from} where ${whereClause(plan)}) t where t.rn % ${size} = 0 order by t.rn`;
  }
  return sql`select ${outer} from (select ${keyList}, row_number() over w as rn, lead(true, 1, false) over w as more from ${from} where ${whereClause(plan)} window w as (order by ${orderBy(keys)})) t where t.rn % ${size} = 0 or not t.more order by t.rn`;
}

/** Whether the report's rows are exactly its organization's rows (rid = position + 1 in the default order). */
export function isWholeTable(plan: Plan): boolean {
  return isAllRows(plan) && plan.sort.length === 0;
}

/** Whether the plan selects every row of its organization in a report table (any order). */
export function isAllRows(plan: Plan): boolean {
  return plan.report.shape === 'table' && plan.filters.length === 0 && plan.search.length === 0 && isOrgOnly(plan);
}

/**
 * `from ... r` and the full condition (with `extra`) of a query that reads `columns`: the
 * report's narrow copy (src/reports/narrow-copies.ts) when it holds every condition and
 * those columns, else the report rows. Alias `r` either way, so the catalog's column
 * expressions apply unchanged.
 */
function readFrom(plan: Plan, columns: readonly Column[] = [], extra: Sql[] = []): { from: Sql; where: Sql } {
  const copy = narrowCopyFor(plan, columns);
  if (!copy) return { from: relation(plan).from, where: whereClause(plan, extra) };
  return { from: sql`${sql.table(copy.table)} r`, where: copyConditions(plan, extra) };
}

/** The plan's scope and filters over a narrow copy aliased `r` (with `extra`). */
function copyConditions(plan: Plan, extra: Sql[] = []): Sql {
  return and([...scopeConditions(plan.orgId, plan.scope, 'r'), ...plan.filters.map((f) => filterCondition(f, plan)), ...extra]);
}

/**
 * The filters as one semi-join on the report's narrow copy, when one of them is a
 * "contains" that the copy's trigram index answers (narrow-copies.ts `trigram`) and the
 * copy holds them all: `r.rid in (select r.rid from <copy> r where ...)`, the inner `r`
 * being the copy (SQL resolves a name to the nearest scope), so the catalog's column
 * expressions apply unchanged. The same rows (the copy is the report rows projected), but
 * a page or boundary walk in some order no longer reads report rows one by one until
 * enough pass: at 2,000,000 rows a name no account has walked every row (5.4 s), and now
 * reads the index's few matches (1 ms); with many matches the planner still walks the
 * order and probes the copy. Only for plans with accelerations (an import that built the
 * index); a name with a value dictionary is tested on the dictionary instead.
 */
function narrowProbe(plan: Plan): Sql | null {
  const copy = accelOf(plan) ? narrowCopyFor(plan) : undefined;
  if (!copy) return null;
  const indexed = (f: FilterPlan) => f.filter.operation === 'contains' && copy.trigram.has(storedName(f.column) ?? '') && dictionaryColumn(plan, f.column) === null;
  if (!plan.filters.some(indexed)) return null;
  return sql`r.rid in (select r.rid from ${sql.table(copy.table)} r where ${copyConditions(plan)})`;
}

/**
 * One page of the distinct non-null values of a string (or boolean) column, ascending like
 * a text sort, and how many there are, in one pass over the rows: the values are gathered
 * once (a CTE named twice is computed once), then counted and paged. Always one row at
 * least: `n` the count, `v` null when the page holds no value.
 */
export function distinctValuesQuery(plan: Plan, column: Column, filterSearch: string | undefined, page: number, size: number): Sql {
  const e = column.type === 'boolean' ? sql`(${columnExpr(column)})::text` : columnExpr(column);
  // Only values a filter can name as themselves: spec 4.4 promises that every value offered
  // here works as an exact-match filter value (readsAsItself).
  const extra: Sql[] = [sql`${e} is not null`, readsAsItselfSql(e)];
  if (filterSearch) extra.push(sql`${e} ilike ${likeContains(filterSearch)}`);
  const { from, where } = readFrom(plan, [column], extra);
  return sql`with d as (select distinct ${e} as v from ${from} where ${where})
    select c.n, p.v from (select count(*) as n from d) c
    left join lateral (select v from d order by ${textOrder(sql`v`)} limit ${size} offset ${page * size}) p on true`;
}

export function rangeQuery(plan: Plan, column: Column): Sql {
  const { from, where } = readFrom(plan, [column]);
  const e = columnExpr(column);
  return sql`select min(${e}) as min, max(${e}) as max from ${from} where ${where}`;
}

/**
 * Rows of the filtered report as a derived table `m` (for dashboards). With `narrow`, the
 * caller reads only columns of the report's narrow copy, which is then used when every
 * condition falls on it (the same rows, a tenth of the bytes).
 */
export function filteredRelation(plan: Plan, options: { narrow?: boolean } = {}): Sql {
  const { from, where } = options.narrow ? readFrom(plan) : { from: relation(plan).from, where: whereClause(plan) };
  return sql`(select r.* from ${from} where ${where}) m`;
}

// ---- CSV lines ------------------------------------------------------------------------

/**
 * A number as JavaScript's `String(n)` writes it. PostgreSQL's float8 output (shortest
 * round-trip digits, like JavaScript) is identical between 1e-4 and 1e15; outside that
 * band PostgreSQL uses an exponent where JavaScript does not (or pads the exponent), so
 * those rare values are rewritten from the digits and exponent of PostgreSQL's form.
 */
function jsNumberText(value: Sql): Sql {
  const x = sql`(${value})::double precision`;
  // PostgreSQL's form of |x| there: "d.ddde+XX" or "d.ddde-XX". No subqueries: every part
  // is an expression, evaluated only on this rare branch.
  const text = sql`abs(${x})::text`;
  const digits = sql`replace(split_part(${text}, 'e', 1), '.', '')`;
  const k = sql`length(${digits})`;
  const n = sql`(coalesce(nullif(split_part(${text}, 'e', 2), ''), '0')::int + 1)`;
  const rare = sql`case when ${x} < 0 then '-' else '' end || case
      when ${n} between ${k} and 21 then ${digits} || repeat('0', ${n} - ${k})
      when ${n} > 0 and ${n} <= 21 then left(${digits}, ${n}) || '.' || substr(${digits}, ${n} + 1)
      when ${n} > -6 and ${n} <= 0 then '0.' || repeat('0', -${n}) || ${digits}
      else left(${digits}, 1) || case when ${k} > 1 then '.' || substr(${digits}, 2) else '' end || 'e' || case when ${n} - 1 >= 0 then '+' else '-' end || abs(${n} - 1)::text
    end`;
  return sql`case when ${x} is null then '' when ${x} = float8 '0' then '0' when abs(${x}) >= float8 '1e-4' and abs(${x}) < float8 '1e15' then (${x})::text when ${x} in ('NaN', 'Infinity', '-Infinity') then (${x})::text else ${rare} end`;
}

/**
 * One CSV cell (contract section 5, same output as render/csv.ts `csvCell` + RFC 4180
 * quoting): NULL empty, booleans true/false, numbers as JavaScript writes them, text with
 * a `'` before a leading = + - @ tab or CR and quoted when it holds a quote, comma, CR or LF.
 */
export function csvCellExpr(column: Column): Sql {
  const e = columnExpr(column);
  if (column.type === 'boolean') return sql`case when ${e} then 'true' when not ${e} then 'false' else '' end`;
  if (isNumericColumn(column)) return jsNumberText(e);
  // The guard adds a leading `'`, which never needs quotes: quoting depends on the value alone.
  const guarded = sql`case when ${e} ~ '^[-=+@\\t\\r]' then '''' || ${e} else ${e} end`;
  return sql`case when ${e} is null then '' when ${e} !~ '^[-=+@\\t\\r]|[",\\r\\n]' then ${e} when ${e} ~ '[",\\r\\n]' then '"' || replace(${guarded}, '"', '""') || '"' else ${guarded} end`;
}

export const isNumericColumn = (c: Column) => c.type === 'number' || c.type === 'currency' || c.type === 'date';

/** Whether a text starts with = + - @ tab or CR (the contract's CSV formula guard), by its first character's code. */
export const startsLikeFormula = (e: Sql): Sql => sql`ascii(${e}) in (61, 43, 45, 64, 9, 13)`;

/**
 * The CSV line of a row. Most rows hold no quote, comma, CR or LF in any text value: one
 * regular-expression test over the row's text values picks the line of cheap cells (only
 * the formula guard, by the first character's code: = + - @ tab CR); the other rows get
 * the fully quoted cells of `csvCellExpr`. Both give the same text for a clean row.
 */
export function csvLine(plan: Plan): Sql {
  const columns = plan.output.map((o) => o.column);
  if (columns.length === 0) return sql`''`;
  // One empty cell is written `""`, not an empty line (render/csv.ts `csvLineOf`).
  if (columns.length === 1) return sql`coalesce(nullif(${csvCellExpr(columns[0]!)}, ''), '""')`;
  const full = sql.join(columns.map(csvCellExpr), sql` || ',' || `);
  const textual = columns.filter((c) => c.type !== 'boolean' && !isNumericColumn(c));
  if (textual.length === 0) return full;
  const cheap = sql.join(
    columns.map((c) => {
      if (c.type === 'boolean' || isNumericColumn(c)) return csvCellExpr(c);
      const e = columnExpr(c);
      return sql`case when ${startsLikeFormula(e)} then '''' || ${e} else coalesce(${e}, '') end`;
    }),
    sql` || ',' || `,
  );
  const texts = sql`concat(${sql.join(textual.map(columnExpr))})`;
  return sql`case when ${texts} ~ '[",\\r\\n]' then ${full} else ${cheap} end`;
}

/**
 * Where a batch of the plan's rows reads its CSV lines, and under which condition
 * (`extra` added): the stored lines of `linesTable` (csv-lines.ts) when given, else lines
 * formatted from the report rows. Every row of the organization in the default order
 * reads the stored lines alone (aliased `r`, whose `org_id` and `rid` are the report
 * row's); other plans join them to the report rows their conditions and order read.
 */
export function lineSource(plan: Plan, linesTable: string | undefined, extra: Sql[]): { line: Sql; from: Sql; where: Sql } {
  if (!linesTable) return { line: csvLine(plan), from: relation(plan).from, where: whereClause(plan, extra) };
  const lines = sql.table(linesTable);
  if (isWholeTable(plan)) return { line: sql`r.line`, from: sql`${lines} r`, where: whereClause(plan, extra) };
  // The report rows, not a narrow copy: their indexes serve the order's keyset ranges.
  return { line: sql`l.line`, from: sql`${relation(plan).from} join ${lines} l on l.org_id = r.org_id and l.rid = r.rid`, where: whereClause(plan, extra) };
}

/** One keyset batch of ready CSV lines (`line`) with the sort-key values (`k0`...), formatted or stored (`linesTable`). */
export function csvBatchQuery(plan: Plan, after: readonly unknown[] | null, limit: number, linesTable?: string): Sql {
  const keys = sortKeys(plan);
  const keyList = sql.join(keys.map((k, i) => sql`${k.expr} as ${sql.raw(`k${i}`)}`));
  const { line, from, where } = lineSource(plan, linesTable, after ? [afterCondition(keys, after)] : []);
  return sql`select ${line} as line, ${keyList} from ${from} where ${where} order by ${orderBy(keys)} limit ${limit}`;
}

/**
 * Filter values of a dictionary column over every row of the organization: the stored
 * distinct values a filter can name (see distinctValuesQuery), in their stored text order
 * (`pos`), and how many there are. A dictionary holds at most a few thousand values, so
 * counting them is cheap.
 */
export function dictionaryValuesQuery(plan: Plan, name: string, filterSearch: string | undefined, page: number, size: number): { rows: Sql; count: Sql } {
  const search = filterSearch ? sql` and d.value ilike ${likeContains(filterSearch)}` : sql``;
  const base = sql`from rpt_value_counts d where d.org_id = ${plan.orgId} and d.tbl = ${plan.report.table} and d.col = ${name} and ${readsAsItselfSql(sql`d.value`)}${search}`;
  return {
    rows: sql`select d.value as v ${base} order by d.pos limit ${size} offset ${page * size}`,
    count: sql`select count(*) as n ${base}`,
  };
}

/**
 * SQL twin of filter-language.ts `readsAsItself` (the same strings, tested on both engines):
 * not empty, no value delimiter, no range delimiter, no operation suffix at the end.
 *
 * Written as NOT LIKE (none of the five patterns holds `%`, `_` or `\`), not as
 * `strpos(...) = 0` and `right(...) not in (...)`: the same strings, but PostgreSQL
 * estimates a LIKE from the column's statistics (from the pattern on an expression
 * without them: 0.96-0.99 of the rows for each of these five), while it gives a function
 * compared with a constant 0.005 of the rows. The two strpos tests made every value look
 * 40,000 times rarer than it is: at scale 20 the summary's 16,520 opportunities were
 * estimated as 1 row, so its filter values (distinctValuesQuery over
 * relation()'s join) were planned as a nested loop that read the aggregate of the counted
 * links once per opportunity, 43 million rows through its join filter: 11.4 s under
 * EXPLAIN ANALYZE, 1.0-6.4 s a request through the server, up to the 30 s statement
 * timeout as other samples of ANALYZE planned it. Estimated from the statistics, the same
 * statement is a hash join: 57 ms (docs/benchmarks.md, twenty-seventh session).
 */
export function readsAsItselfSql(e: Sql): Sql {
  return sql`(${e} <> '' and ${e} not like '%-,-%' and ${e} not like '%<->%' and ${e} not like '%-!-' and ${e} not like '%-?-' and ${e} not like '%-^-')`;
}
