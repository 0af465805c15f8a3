/**
 * The report pipeline behind the HTTP routes: request -> plan -> query -> render, for
 * every report and operation. Routes hand over the caller and the raw query/body; this
 * module returns what they send. Dependencies (database, clock) are passed in.
 */
import type { Readable } from 'node:stream';
import { sql, type RawBuilder } from 'kysely';
import type { Database } from '../db/database.js';
import type { Caller } from '../server/access/caller.js';
import { ApiError, notFound, type FieldError } from '../server/errors.js';
import { findReport, filterTypeOf, type ReportDefinition, type ReportId } from './catalog/index.js';
import { loadOrgMetadata, type OrgMetadata } from './metadata.js';
import { LRUCache } from 'lru-cache';
import { cached, cacheKey, jsonText, memoryFigureCache, singleFlight, type FigureCache, type JsonText } from './cache.js';
import { buildPlan, customColumns, type ChannelOptions, type Plan, type PlanInput } from './plan.js';
import { batchQuery, boundariesQuery, dictionaryValuesQuery, distinctValuesQuery, isAllRows, isWholeTable, matchesNothing, rangeQuery, ridsQuery, sortKeys, type QueryPlan } from './query.js';
import { accelerate, countStatement, isDictionaryCount, pageStatement } from './direct-sql.js';
import { resolveDictionaryFilters } from './dictionary-filters.js';
import { searchValuesOf } from './search-values.js';
import { columnStore, type ColumnStoreOptions } from './column-store.js';
import { loadPrecomputed, NOTHING_PRECOMPUTED, storedDashboardQuery, type Precomputed } from './precomputed.js';
import { storedName } from './catalog/column.js';
import { dashboardQueries, runDashboard } from './query-dashboard.js';
import { filterValuesQuery, pageQuery, parseReportBody, type Paging } from './request.js';
import { downloadStream } from './download.js';
import { unpinnedWindows, windowPinner, type WindowValidity } from './date-windows.js';
import { lineCopyFor } from './csv-lines.js';
import { serviceStateReader, type ServiceStateReader } from './data-version.js';
import { renderDashboard, type Dashboard } from './render/dashboard.js';
import { columnMetadata, type ColumnMetadata } from './render/columns.js';
import { filterValuesPage, rangeItem, type FilterValuesPage } from './render/filter-values.js';
import { pageEnvelopeJson } from './render/page.js';
import { rowsJson } from './render/rows.js';

export interface ReportServiceDeps {
  database: Database;
  /** Milliseconds since the epoch. */
  clock: () => number;
  /** Counts, filter values and dashboards; default: in memory. */
  cache?: FigureCache;
  /**
   * Pages starting at or after this row offset are read by keyset seeks from remembered
   * page boundaries instead of OFFSET (default 10,000; tests lower it to prove both paths
   * return the same rows).
   */
  keysetFromOffset?: number;
  /**
   * Use the figures precomputed at import (row counts, ranges, value dictionaries,
   * unfiltered dashboards). Default true; tests turn it off to prove both paths agree.
   */
  precomputed?: boolean;
  /**
   * Size of the page cache in rows (default 2,000, 100 pages of 20; 0 turns it off). A
   * cached page is its JSON text alone: 1.5-4 KB a row at 65 columns.
   */
  pageCacheRows?: number;
  /** The versions reader shared with the access stage (default: one of its own). */
  readState?: ServiceStateReader;
  /**
   * Columns of large tenants' accounts held in memory for counts and filter values
   * (column-store.ts). Default on (64 MiB, tenants of 100,000 rows or more); false turns
   * it off, tests lower `minRows` to 0 to prove it answers as SQL does.
   */
  columnStore?: false | Omit<ColumnStoreOptions, 'db'>;
  /**
   * Pin "last N days" windows to stored dates (date-windows.ts). Default true; tests turn
   * it off to prove both give the same answers.
   */
  pinWindows?: boolean;
}

/**
 * Time spent per stage of one request, for the Server-Timing header: planning, and
 * writing the answer's JSON text where that is measurable work (a page's rows: tens of
 * ms for 2,000 rows of 65 columns); the rest of the handler's time is the database's.
 */
export interface StageTiming {
  plan: number;
  render: number;
}

export interface ReportCall {
  timing?: StageTiming;
  caller: Caller;
  reportId: string;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  channel?: ChannelOptions;
  /**
   * The data version the caller already read (the route's ETag): the answer is then
   * computed for exactly the version its tag names, and it is not read twice.
   */
  dataVersion?: string;
  /**
   * Told, for each plan the answer is computed from, which "last N days" windows are in
   * effect and over which clock seconds they stay so (date-windows.ts): the route's ETag
   * names those windows instead of the current second.
   */
  windowsInEffect?: (validity: WindowValidity) => void;
}

export interface EventTypeListing {
  code: string;
  displayName: string;
  group: string;
  subtypes: { code: string; displayName: string }[];
}

export interface ReportService {
  /** Bumped by every import (caches and ETags key on it). */
  dataVersion(): Promise<string>;
  /** The page envelope as its JSON text (what the route sends; the text is all a cached page keeps). */
  /**
   * The problems an operation's planner finds in a request (its query and body), without
   * running it: for a body the JSON schema refused, planned without the refused fields,
   * so that one answer lists every bad field (contract section 1; app.ts).
   */
  problems(operation: Operation, call: ReportCall): Promise<FieldError[]>;
  records(call: ReportCall): Promise<JsonText>;
  filterData(call: ReportCall): Promise<FilterValuesPage>;
  columns(call: ReportCall): Promise<ColumnMetadata[]>;
  download(call: ReportCall): Promise<{ filename: string; stream: Readable }>;
  dashboard(call: ReportCall): Promise<Dashboard>;
  eventTypes(): Promise<EventTypeListing[]>;
  /** The columns of a report for this caller without a request (report-names). */
  standardColumns(report: ReportDefinition, caller: Caller): Promise<ColumnMetadata[]>;
}

/** The report operations, by their service method. */
export type Operation = 'records' | 'filterData' | 'columns' | 'download' | 'dashboard';

/** What an operation adds to the request when it plans (filter values, `{}` accepted). */
type PlanOptions = Pick<PlanInput, 'excludeFilterOn' | 'contextOptional' | 'matchingTypeOptional' | 'earlier'>;

/** A plan with its data version, what is precomputed for its organization and the accelerations that follow. */
type ServicePlan = QueryPlan & {
  version: string;
  pre: Precomputed;
  /**
   * The filters as the request gave them (after planning), before dictionary resolution
   * (dictionary-filters.ts): caches and single flights key on what was asked, so a request
   * that resolves to the same rows as another is still computed, not served its answer.
   */
  requested: Plan['filters'];
};

export function createReportService(deps: ReportServiceDeps): ReportService {
  const { db } = deps.database;

  const report = (id: string, allowed: 'analytics' | 'channel'): ReportDefinition => {
    const def = findReport(id);
    const isChannel = def?.id.startsWith('PARTNER_ORG_') ?? false;
    if (!def || isChannel !== (allowed === 'channel')) throw notFound(`unknown report type "${id}"`);
    return def;
  };

  const cache = deps.cache ?? memoryFigureCache();
  // Identical requests arriving together (a dashboard refreshed by a team, a BI tool's
  // parallel pulls) share one computation of a page, count, filter values or dashboard.
  const flight = singleFlight();

  /** Bumped by every import; part of every cache key. */
  const readState = deps.readState ?? serviceStateReader(deps.database);
  const dataVersion = async (): Promise<string> => (await readState()).dataVersion;

  // Metadata (Maps and Sets) stays in this process; it is cheap to rebuild per instance.
  const metaCache = new LRUCache<string, OrgMetadata>({ max: 1000 });
  const metadata = async (caller: Caller, version: string): Promise<OrgMetadata> => {
    const key = `${caller.orgId}:${version}`;
    const hit = metaCache.get(key);
    if (hit) return hit;
    const meta = await loadOrgMetadata(db, caller.orgId);
    metaCache.set(key, meta);
    return meta;
  };

  // Precomputed figures per (organization, data version): one small read per version.
  const usePrecomputed = deps.precomputed ?? true;
  const preCache = new LRUCache<string, Promise<Precomputed>>({ max: 1000 });
  const precomputed = (orgId: number, version: string): Promise<Precomputed> => {
    if (!usePrecomputed) return Promise.resolve(NOTHING_PRECOMPUTED);
    const key = `${orgId}:${version}`;
    let hit = preCache.get(key);
    if (!hit) {
      hit = loadPrecomputed(db, orgId);
      hit.catch(() => preCache.delete(key));
      preCache.set(key, hit);
    }
    return hit;
  };

  // "Last N days" windows pinned to stored dates, so their plans and cache keys hold
  // from one second to the next (date-windows.ts).
  const pinWindows = deps.pinWindows === false ? unpinnedWindows : windowPinner(db);

  /** The part of a plan that decides which rows match (not page, order or columns). */
  const rowsKey = (p: ServicePlan) => [p.report.id, p.scope, p.requested.map((f) => [f.column.key, f.filter]), p.search];

  // Dictionary filters resolved to value lists, per organization, data version and filter.
  const resolved = new LRUCache<string, readonly string[]>({ max: 5000 });
  // Search terms resolved to the by-value columns' values, the same way (search-values.ts).
  const searched = new LRUCache<string, ReadonlyMap<string, readonly string[]>>({ max: 5000 });

  const run = async <T>(query: RawBuilder<unknown>): Promise<T[]> => (await query.execute(db)).rows as T[];
  // The statements a first-seen page runs go as prepared statements (db/prepared.ts): a
  // filter's dictionary values and a search term's by-value values (`lookup`), and the
  // page itself (`runRows`).
  const lookup = <T>(query: RawBuilder<unknown>): Promise<T[]> => deps.database.rows<T>(query.compile(db), { prepare: true });
  /** A page's rows as arrays in select-list order (render/rows.ts writes them as JSON). */
  const runRows = (query: RawBuilder<unknown>): Promise<unknown[][]> => deps.database.arrays(query.compile(db), { prepare: true });

  async function plan(call: ReportCall, paging: Paging, options: PlanOptions = {}): Promise<ServicePlan> {
    const started = performance.now();
    try {
      return await planUntimed(call, paging, options);
    } finally {
      if (call.timing) call.timing.plan += performance.now() - started;
    }
  }

  /** The request planned and validated (every problem thrown at once), before any query of the report runs. */
  async function checkedPlan(call: ReportCall, paging: Paging, options: PlanOptions): Promise<{ built: Plan; version: string; pre: Precomputed; nowSeconds: number }> {
    const def = report(call.reportId, call.channel ? 'channel' : 'analytics');
    const version = call.dataVersion ?? (await dataVersion());
    const [meta, pre] = await Promise.all([metadata(call.caller, version), precomputed(call.caller.orgId, version)]);
    const nowSeconds = Math.floor(deps.clock() / 1000);
    const input = { report: def, meta, body: parseReportBody(call.body), paging, nowSeconds };
    return { built: buildPlan({ ...input, ...(call.channel ? { channel: call.channel } : {}), ...options }), version, pre, nowSeconds };
  }

  async function planUntimed(call: ReportCall, paging: Paging, options: PlanOptions): Promise<ServicePlan> {
    const { built: checked, version, pre, nowSeconds } = await checkedPlan(call, paging, options);
    const { plan: built, validity } = await pinWindows(checked, version, nowSeconds);
    call.windowsInEffect?.(validity);
    const accelerated = accelerate(Object.assign(built, { version, pre, requested: built.filters }), pre);
    const key = `${call.caller.orgId}:${version}`;
    const [filtered, searchValues] = await Promise.all([
      resolveDictionaryFilters(accelerated, lookup, { memo: resolved, key }),
      searchValuesOf(accelerated, lookup, { memo: searched, key }),
    ]);
    return searchValues ? { ...filtered, searchValues } : filtered;
  }

  const store = deps.columnStore === false ? undefined : columnStore({ db, ...deps.columnStore });

  /**
   * Exact count of the plan's rows: precomputed when it is every row or one dictionary
   * column's filter, else from the held columns when they hold every filter, else SQL.
   */
  async function count(p: ServicePlan): Promise<number> {
    const statement = countStatement(p, p.pre);
    if (typeof statement === 'number') return statement;
    if (store && !isDictionaryCount(p, p.pre)) {
      const n = await store.count(p);
      if (n !== undefined) return n;
    }
    return Number((await run<{ n: number }>(statement))[0]?.n ?? 0);
  }

  // Page boundaries per (query, order, size): a deep page seeks from the end of the page
  // before it. Computing them is one pass over the matching rows, the same work as one
  // OFFSET scan; every later page of that query then costs about as much as page 0.
  const keysetFrom = deps.keysetFromOffset ?? 10_000;
  const boundaryCache = new LRUCache<string, unknown[][]>({ max: 64 });

  // Rendered pages per (organization, data version, request): a repeated page, or a page
  // seen before while the data is unchanged, costs no query and no rendering. Only the
  // page's JSON text is kept (the row objects go once it is written: they took about
  // three times the text's memory), bounded by rows held.
  // 2,000 rows: 500 first-seen pages of 20 (10,000 rows) held 19.5 MB of text, a third of
  // the server's live heap after the benchmark, and with 4,000 the download after a full
  // run still peaked at 306 MiB (docs/benchmarks.md, ninth session).
  const pageCacheRows = deps.pageCacheRows ?? 2_000;
  const pageCache = pageCacheRows > 0 ? new LRUCache<string, { text: JsonText; rows: number }>({ maxSize: pageCacheRows, sizeCalculation: (page) => Math.max(1, page.rows) }) : undefined;

  async function pageRows(p: ServicePlan): Promise<unknown[][]> {
    const offset = p.page * p.size;
    // In the default order (rid), a filtered or searched page the store can select is
    // picked from its bitset and read by rid: a "contains" on the name, whose SQL page
    // reads every trigram match before the first row, then costs a few lookups. (A filter
    // that matches nothing is SQL's constant `false`: nothing to load.)
    if (store && p.sort.length === 0 && !matchesNothing(p)) {
      const rids = await store.pageRids(p, offset, p.size);
      if (rids) return rids.length ? runRows(ridsQuery(p, rids)) : [];
    }
    // Shallow pages: OFFSET. Rows of a whole report table are numbered 1..N in the default
    // order: any page is a direct seek.
    if (offset === 0 || offset < keysetFrom || isWholeTable(p)) return runRows(pageStatement(p, keysetFrom));
    const key = cacheKey('bounds', p.orgId, p.version, [rowsKey(p), p.sort.map((s) => [s.column.key, s.direction]), p.size]);
    let bounds = boundaryCache.get(key);
    if (!bounds) {
      const keyCount = sortKeys(p).length;
      const rows = await run<Record<string, unknown>>(boundariesQuery(p, p.size));
      bounds = rows.map((r) => Array.from({ length: keyCount }, (_, i): unknown => r[`k${i}`] ?? null));
      boundaryCache.set(key, bounds);
    }
    const after = bounds[p.page - 1];
    // The batch's sort-key values follow the output columns; the rows' JSON reads only those.
    return after ? runRows(batchQuery(p, after, p.size)) : [];
  }

  // `page`, `size` and `sort` do not apply to the columns or the dashboard, but are
  // validated as on /records, as on every report operation: a mistyped or stale one is
  // named, not silently ignored on some operations and refused on others.
  const unpaged = (call: ReportCall) => {
    const { paging, errors } = pageQuery(call.query);
    return { paging: { page: 0, size: 1, sort: paging.sort }, errors };
  };
  /** How each operation plans its request: the paging it reads and what it adds to the body's rules. */
  const PLANNING: Record<Operation, (call: ReportCall) => { paging: Paging; options: PlanOptions }> = {
    records: (call) => {
      const { paging, errors } = pageQuery(call.query);
      return { paging, options: { earlier: errors } };
    },
    // `sort` is validated as on /records (contract section 2); the values keep their
    // documented ascending order (their queries read no sort).
    filterData: (call) => {
      const { paging, field, errors } = filterValuesQuery(call.query);
      return { paging, options: { ...(field ? { excludeFilterOn: field } : {}), contextOptional: true, matchingTypeOptional: true, earlier: errors } };
    },
    columns: (call) => {
      const { paging, errors } = unpaged(call);
      return { paging, options: { contextOptional: true, matchingTypeOptional: true, earlier: errors } };
    },
    download: (call) => {
      const { paging, errors } = pageQuery(call.query);
      return { paging: { ...paging, page: 0 }, options: { earlier: errors } };
    },
    dashboard: (call) => {
      const { paging, errors } = unpaged(call);
      return { paging, options: { earlier: errors } };
    },
  };

  function planFor(operation: Operation, call: ReportCall): Promise<ServicePlan> {
    const { paging, options } = PLANNING[operation](call);
    return plan(call, paging, options);
  }

  return {
    dataVersion,

    async problems(operation, call) {
      const { paging, options } = PLANNING[operation](call);
      try {
        await checkedPlan(call, paging, options);
        return [];
      } catch (err) {
        if (err instanceof ApiError && err.allErrors) return err.allErrors;
        throw err;
      }
    },

    async records(call) {
      const p = await planFor('records', call);
      const pageKey = cacheKey('page', p.orgId, p.version, [rowsKey(p), p.sort.map((s) => [s.column.key, s.direction]), p.page, p.size, p.output.map((o) => o.key), p.explicitColumns, p.sorted]);
      // The key holds every input of the envelope (the count's rows key and version, and
      // whether the caller asked for a sort, which the default order does not show).
      const hit = pageCache?.get(pageKey);
      if (hit) return hit.text;
      return flight(pageKey, async () => {
        const [rows, total] = await Promise.all([pageRows(p), cached(cache, cacheKey('count', p.orgId, p.version, rowsKey(p)), () => count(p), flight)]);
        const rendering = performance.now();
        const text = jsonText(pageEnvelopeJson(rowsJson(p, rows), rows.length, total, p.page, p.size, p.sorted));
        if (call.timing) call.timing.render += performance.now() - rendering;
        pageCache?.set(pageKey, { text, rows: rows.length });
        return text;
      });
    },

    async filterData(call) {
      const { paging: pg, filterSearch } = filterValuesQuery(call.query);
      const p = await planFor('filterData', call);
      const column = p.filterField!; // the planner refused a filterField that is no column
      // (Named `filter-values`, not `values` as before the whole envelope: a shared Redis may
      // still hold pages of the old shape under the old name.)
      const key = cacheKey('filter-values', p.orgId, p.version, [rowsKey(p), column.key, filterSearch ?? '', pg.page, pg.size, p.sorted]);
      // The envelope of every branch: this page, and whether a sort was asked for.
      const valuesPage = (values: string[], total: number) => filterValuesPage(values, total, pg.page, pg.size, p.sorted);
      const range = (min: number | null, max: number | null) => rangeItem(column, min, max, pg.page, pg.size, p.sorted);
      return cached(cache, key, async () => {
        const table = p.pre.tables.get(p.report.table);
        const name = storedName(column);
        const summary = name ? table?.columns.get(name) : undefined;
        if (summary && isAllRows(p)) {
          // Every row of the organization: the bounds and values stored at import.
          if (filterTypeOf(column.type) !== 'STRING') return range(summary.min, summary.max);
          if (summary.hasValues) {
            const q = dictionaryValuesQuery(p, name!, filterSearch || undefined, pg.page, pg.size);
            const [rows, counted] = await Promise.all([run<{ v: string }>(q.rows), run<{ n: number }>(q.count)]);
            return valuesPage(rows.map((r) => r.v), Number(counted[0]?.n ?? 0));
          }
        }
        if (filterTypeOf(column.type) !== 'STRING') {
          const held = await store?.range(p, column);
          if (held) return range(held.min, held.max);
          const [bounds] = await run<{ min: number | null; max: number | null }>(rangeQuery(p, column));
          return range(bounds?.min ?? null, bounds?.max ?? null);
        }
        const held = await store?.values(p, column, filterSearch || undefined);
        if (held) return valuesPage(held.slice(pg.page * pg.size, (pg.page + 1) * pg.size), held.length);
        const rows = await run<{ n: number; v: string | null }>(distinctValuesQuery(p, column, filterSearch || undefined, pg.page, pg.size));
        const values = rows.flatMap((r) => (r.v === null ? [] : [r.v]));
        return valuesPage(values, Number(rows[0]?.n ?? 0));
      }, flight);
    },

    async columns(call) {
      const p = await planFor('columns', call);
      return columnMetadata(p.columns);
    },

    async download(call) {
      const p = await planFor('download', call);
      const date = new Date(deps.clock()).toISOString().slice(0, 10);
      const lines = lineCopyFor(db, p, p.pre.csvFormats);
      const current = async () => (await dataVersion()) === p.version;
      return { filename: `${p.report.id}-${date}.csv`, stream: downloadStream(deps.database, p, { lines, current }) };
    },

    async dashboard(call) {
      const p = await planFor('dashboard', call);
      return cached(cache, cacheKey('dashboard', p.orgId, p.version, rowsKey(p)), async () => {
        const stored = isAllRows(p) && p.pre.tables.has(p.report.table) ? storedDashboardQuery(p.report.id, p.orgId) : undefined;
        const row = stored ? (await run<{ totals: Record<string, unknown>; by_partner: Array<Record<string, unknown>> }>(stored))[0] : undefined;
        if (row) return renderDashboard(p.report.id as ReportId, row.totals, row.by_partner, undefined);
        const held = await store?.dashboard(p);
        if (held) return renderDashboard(p.report.id as ReportId, held.totals, held.byPartner, undefined);
        const figures = await runDashboard(db, dashboardQueries(p));
        return renderDashboard(p.report.id as ReportId, figures.totals, figures.byPartner, figures.byEventType);
      }, flight);
    },

    async eventTypes() {
      const rows = await run<{ code: string; display_name: string; group_name: string; subtypes: unknown }>(sql`select code, display_name, group_name, subtypes from event_types order by position, code`);
      return rows.map((r) => ({
        code: r.code,
        displayName: r.display_name,
        group: r.group_name,
        subtypes: (Array.isArray(r.subtypes) ? r.subtypes : []).map((s: { code: string; displayName: string }) => ({ code: s.code, displayName: s.displayName })),
      }));
    },

    async standardColumns(def, caller) {
      const meta = await metadata(caller, await dataVersion());
      return columnMetadata([...def.columns, ...customColumns(def, meta)]);
    },
  };
}

