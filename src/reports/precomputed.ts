/**
 * Figures precomputed at import (tables of migration 0003), built by materialize.ts in
 * the import transaction and read by the service:
 *
 * - row count per (report table, organization), min/max per number and date column;
 * - value dictionaries of low-cardinality text and boolean columns (every distinct
 *   non-null value with its row count, numbered in the contract's text order);
 * - every distinct value of the by-value search columns (search-values.ts);
 * - the unfiltered dashboards of the reports without a context.
 *
 * Which columns get a dictionary is decided from the planner's statistics (an estimate
 * only decides speed: a dictionary, when present, is always complete and exact).
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { ANALYTICS_REPORTS, CHANNEL_REPORTS, isTextual, type ReportDefinition, type ReportId } from './catalog/index.js';
import type { Column } from './catalog/types.js';
import { storedName } from './catalog/column.js';
import { loadOrgMetadata } from './metadata.js';
import { buildPlan } from './plan.js';
import { byValueNames } from './search-values.js';
import { dashboardQueries, runDashboard } from './query-dashboard.js';
import { textOrder } from './query.js';

type Sql = RawBuilder<unknown>;

/**
 * Columns with at most this many distinct values (estimated) get a value dictionary, in
 * the tables listed. Building one costs a hash aggregate per column over the table
 * (about 0.2 s per column per 200,000 rows measured), so it is kept to the report whose
 * tenants reach millions of rows and whose filters people use most.
 */
const DICTIONARY_MAX_DISTINCT = 1_000;
const DICTIONARY_TABLES: ReadonlySet<string> = new Set(['rpt_global_accounts']);
/** The longest value (UTF-8 bytes) a dictionary holds; a column with a longer one gets none. */
const DICTIONARY_MAX_VALUE_BYTES = 2_000;
/** Report tables buildPrecomputed analyzes after their rows are written (the import need not analyze them again). */
export const ANALYZED_REPORT_TABLES: readonly string[] = [...DICTIONARY_TABLES];

const isRange = (c: Column) => c.type === 'number' || c.type === 'currency' || c.type === 'date';

/** Reports whose unfiltered dashboard is stored (the opportunities one costs more to build than it saves). */
const STORED_DASHBOARDS: readonly ReportId[] = ['GLOBAL_VERTICAL_ACCOUNTS'];

// ---- build (import) -------------------------------------------------------------------

/** Rebuilds every precomputed figure from the report tables (inside the import transaction). */
export async function buildPrecomputed(db: Kysely<any>): Promise<void> {
  for (const t of ['rpt_summaries', 'rpt_value_counts', 'rpt_search_values', 'rpt_dashboards']) await sql.raw(`delete from ${t}`).execute(db);
  const seen = new Set<string>();
  for (const report of [...ANALYTICS_REPORTS, ...CHANNEL_REPORTS]) {
    // Summary reports aggregate per request: only plain report tables are summarized.
    if (report.shape !== 'table' || seen.has(report.table)) continue;
    seen.add(report.table);
    await summarizeTable(db, report);
  }
  await storeDashboards(db);
}

async function summarizeTable(db: Kysely<any>, report: ReportDefinition): Promise<void> {
  const table = report.table;
  const stored = new Set(((await sql`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = ${table}`.execute(db)).rows as Array<{ name: string }>).map((r) => r.name));
  const columns = new Map<string, Column>();
  for (const c of report.columns) {
    const name = storedName(c);
    if (name && stored.has(name) && !columns.has(name)) columns.set(name, c);
  }
  // Fresh statistics for the dictionary choice below (they help the requests too, before
  // the analyze that follows the import's commit, which then skips this table).
  if (DICTIONARY_TABLES.has(table)) await sql.raw(`analyze ${table}`).execute(db);
  // Row counts and ranges: one pass, grouped by organization.
  const ranges = [...columns].filter(([, c]) => isRange(c)).map(([n]) => n);
  const aggregates = ranges.map((n) => `min(${n})::double precision as "min_${n}", max(${n})::double precision as "max_${n}"`);
  const totals = (await sql.raw(`select org_id, count(*) as n${aggregates.map((a) => `, ${a}`).join('')} from ${table} group by org_id`).execute(db)).rows as Array<Record<string, unknown>>;
  if (totals.length === 0) return;

  // Dictionary columns: low cardinality by the planner's estimate.
  let dictionary: Array<{ name: string; expr: string }> = [];
  if (DICTIONARY_TABLES.has(table)) {
    const stats = (await sql`select s.attname as name, s.n_distinct as nd, c.reltuples as rows
      from pg_stats s join pg_class c on c.relname = s.tablename and c.relkind = 'r'
      where s.schemaname = current_schema() and s.tablename = ${table}`.execute(db)).rows as Array<{ name: string; nd: number; rows: number }>;
    const estimate = new Map(stats.map((s) => [s.name, Number(s.nd) >= 0 ? Number(s.nd) : -Number(s.nd) * Number(s.rows)]));
    dictionary = [...columns]
      .filter(([n, c]) => (isTextual(c.type) || c.type === 'boolean') && (estimate.get(n) ?? Infinity) <= DICTIONARY_MAX_DISTINCT)
      .map(([n, c]) => ({ name: n, expr: c.type === 'boolean' ? `(${n})::text` : n }));
  }

  // Every distinct value of the dictionary columns and of the by-value search columns
  // (search-values.ts; complete whatever their number), from one grouping-sets pass.
  const searched = [...byValueNames(report)].filter((n) => columns.has(n));
  const grouped = [...dictionary, ...searched.filter((n) => !dictionary.some((d) => d.name === n)).map((n) => ({ name: n, expr: n }))];
  if (grouped.length) {
    const list = grouped.map((d) => d.expr);
    const which = (pick: (d: { name: string; expr: string }) => string) =>
      `case ${grouped.map((d) => `when grouping(${d.expr}) = 0 then ${pick(d)}`).join(' ')} end`;
    await sql
      .raw(
        `create temp table tmp_value_counts as
  select g.org_id, g.col, g.value, g.n
  from (select org_id, ${which((d) => `'${d.name}'`)} as col, ${which((d) => `${d.expr}::text`)} as value, count(*) as n
        from ${table} group by grouping sets (${list.map((e) => `(org_id, ${e})`).join(', ')})) g
  where g.value is not null`,
      )
      .execute(db);
    // rpt_value_counts indexes each value whole (btree entries hold about 2,700 bytes at
    // most): a column holding a longer value gets no dictionary, for every organization.
    // Only speed changes (materialize.ts createReportIndex says the same of the report
    // indexes); 2,000 bytes leaves room for the entry's other keys whatever compression does.
    const long = new Set(((await sql`select distinct col from tmp_value_counts where octet_length(value) > ${DICTIONARY_MAX_VALUE_BYTES}`.execute(db)).rows as Array<{ col: string }>).map((r) => r.col));
    dictionary = dictionary.filter((d) => !long.has(d.name));
    await sql`insert into rpt_value_counts (tbl, org_id, col, pos, value, n)
  select ${table}, org_id, col, row_number() over (partition by org_id, col order by ${textOrder(sql`value`)})::int, value, n
  from tmp_value_counts where col = any(${dictionary.map((d) => d.name)}::text[])`.execute(db);
    await sql`insert into rpt_search_values (tbl, org_id, col, value) select ${table}, org_id, col, value from tmp_value_counts where col = any(${searched}::text[])`.execute(db);
    await sql`drop table tmp_value_counts`.execute(db);
  }
  const dictNames = new Set(dictionary.map((d) => d.name));
  const counts = dictionary.length
    ? ((await sql.raw(`select org_id, col, count(*) as n from rpt_value_counts where tbl = '${table}' group by org_id, col`).execute(db)).rows as Array<{ org_id: number; col: string; n: number }>)
    : [];
  const distinct = new Map(counts.map((c) => [`${c.org_id}:${c.col}`, Number(c.n)]));
  const rows: Array<Record<string, unknown>> = [];
  for (const t of totals) {
    const orgId = Number(t.org_id);
    const rowCount = Number(t.n);
    rows.push({ tbl: table, org_id: orgId, col: '', row_count: rowCount, has_values: false, distinct_values: null, min_value: null, max_value: null });
    for (const n of ranges) rows.push({ tbl: table, org_id: orgId, col: n, row_count: rowCount, has_values: false, distinct_values: null, min_value: t[`min_${n}`] ?? null, max_value: t[`max_${n}`] ?? null });
    for (const n of dictNames) rows.push({ tbl: table, org_id: orgId, col: n, row_count: rowCount, has_values: true, distinct_values: distinct.get(`${orgId}:${n}`) ?? 0, min_value: null, max_value: null });
  }
  for (let i = 0; i < rows.length; i += 500) await db.insertInto('rpt_summaries').values(rows.slice(i, i + 500)).execute();
}

async function storeDashboards(db: Kysely<any>): Promise<void> {
  for (const id of STORED_DASHBOARDS) {
    const report = [...ANALYTICS_REPORTS].find((r) => r.id === id)!;
    const orgs = (await sql.raw(`select distinct org_id from ${report.table}`).execute(db)).rows as Array<{ org_id: number }>;
    for (const { org_id: orgId } of orgs) {
      const meta = await loadOrgMetadata(db, orgId);
      const plan = buildPlan({ report, meta, body: { filters: {}, search: '', columns: undefined, context: undefined }, paging: { page: 0, size: 1, sort: [] }, nowSeconds: 0 });
      const { totals, byPartner } = await runDashboard(db, dashboardQueries(plan));
      await sql`insert into rpt_dashboards (report, org_id, totals, by_partner) values (${id}, ${orgId}, ${JSON.stringify(totals)}, ${JSON.stringify(byPartner)})`.execute(db);
    }
  }
}

// ---- read (requests) ------------------------------------------------------------------

export interface ColumnSummary {
  hasValues: boolean;
  distinctValues: number | null;
  min: number | null;
  max: number | null;
}

/** What is precomputed for one organization: per report table, its row count and columns. */
export interface Precomputed {
  tables: Map<string, { rows: number; columns: Map<string, ColumnSummary> }>;
  /** Fingerprints of the stored CSV lines' SQL, by report table (csv-lines.ts). */
  csvFormats: Map<string, string>;
}

export const NOTHING_PRECOMPUTED: Precomputed = { tables: new Map(), csvFormats: new Map() };

export async function loadPrecomputed(db: Kysely<any>, orgId: number): Promise<Precomputed> {
  const found = (await sql<{ t: string | null; f: string | null }>`select to_regclass('rpt_summaries')::text as t, to_regclass('rpt_csv_formats')::text as f`.execute(db)).rows[0];
  if (!found?.t) return NOTHING_PRECOMPUTED;
  const rows = (await sql<{ tbl: string; col: string; row_count: number; has_values: boolean; distinct_values: number | null; min_value: number | null; max_value: number | null }>`
    select tbl, col, row_count, has_values, distinct_values, min_value, max_value from rpt_summaries where org_id = ${orgId}`.execute(db)).rows;
  const tables: Precomputed['tables'] = new Map();
  for (const r of rows) {
    let t = tables.get(r.tbl);
    if (!t) tables.set(r.tbl, (t = { rows: Number(r.row_count), columns: new Map() }));
    if (r.col !== '') t.columns.set(r.col, { hasValues: r.has_values, distinctValues: r.distinct_values === null ? null : Number(r.distinct_values), min: r.min_value, max: r.max_value });
  }
  const formats = found.f ? (await sql<{ tbl: string; format: string }>`select tbl, format from rpt_csv_formats where org_id = ${orgId}`.execute(db)).rows : [];
  return { tables, csvFormats: new Map(formats.map((f) => [f.tbl, f.format])) };
}

/** The stored unfiltered dashboard rows, or undefined. */
export function storedDashboardQuery(reportId: string, orgId: number): Sql | undefined {
  if (!STORED_DASHBOARDS.includes(reportId as ReportId)) return undefined;
  return sql`select totals, by_partner from rpt_dashboards where org_id = ${orgId} and report = ${reportId}`;
}
