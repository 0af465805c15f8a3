/**
 * Columns of the accounts' narrow copy (`rpt_account_facts`) held in this process as
 * typed arrays, one entry per row in `rid` order, for the figures that read every row of
 * a large tenant: the exact count of a filtered page, and filter values and ranges under
 * filters. On 2,000,000 rows PostgreSQL reads the 650 MB copy for each such figure (1-6 s
 * at ten clients on two cores); the same test over two typed arrays takes a few
 * milliseconds. This is the columnar engine the issue's measurements pointed to, kept to
 * what it can answer exactly:
 *
 * - text and boolean columns with a value dictionary (precomputed.ts) are held as the
 *   value's position in the dictionary (0 for NULL), so "exact" and "not equal" are a
 *   table lookup per row ("contains" arrives already resolved to value lists,
 *   dictionary-filters.ts);
 * - number, currency and date columns are held as their stored values (double precision
 *   and bigint in SQL; as Int32 when every value fits, else Float64), and a range compares
 *   them with the same bounds the SQL binds, so the answer is the SQL's exactly;
 * - sums are left to PostgreSQL (a floating-point sum depends on the order of addition,
 *   so a dashboard's amounts could differ in the last digit).
 *
 * Nothing else changes: pages are still read by SQL, and a plan with a search, a context
 * scope, a custom column, a column the copy lacks or a tenant below `minRows` is answered
 * by SQL as before. Loaded columns are kept per (organization, data version) within a
 * byte budget (least recently used first out), so an import retires them; a column is
 * loaded by one statement that packs it into bytes in `rid` order, and only when the
 * copy's rids are exactly 1..N (checked on every load).
 */
import { sql, type Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { storedName } from './catalog/column.js';
import { isTextual, type Column } from './catalog/types.js';
import { likeContains } from './filter-language.js';
import { isOrgOnly, type QueryPlan } from './query.js';
import { ACCOUNT_FACT_COLUMNS } from './narrow-copies.js';
import type { FilterPlan } from './plan.js';
import type { Precomputed } from './precomputed.js';

/** The report table whose copy the store reads, and that copy. */
const SOURCE = 'rpt_global_accounts';
const COPY = 'rpt_account_facts';
const COPY_COLUMNS: ReadonlySet<string> = new Set(ACCOUNT_FACT_COLUMNS);
/** NULL in an Int32 column (a value equal to it makes the column Float64). */
const INT_NULL = -2147483648;

type Codes = { kind: 'codes'; data: Uint16Array };
type Numbers = { kind: 'numbers'; data: Int32Array | Float64Array };
type Held = Codes | Numbers;

/** One organization's dictionaries: values by position (index 0 unused: NULL). */
interface Dictionaries {
  values: Map<string, string[]>;
  position: Map<string, Map<string, number>>;
}

export interface ColumnStoreOptions {
  db: Kysely<any>;
  /** Bytes of column data kept (default 64 MiB). */
  maxBytes?: number;
  /** Tenants with fewer rows are answered by SQL (default 100,000; tests use 0). */
  minRows?: number;
}

/** A plan as the service holds it: with its data version and precomputed figures. */
export type StorePlan = QueryPlan & { version: string; pre: Precomputed };

export interface ColumnStore {
  /** The exact count of the plan's rows, or undefined when the store cannot answer it. */
  count(plan: StorePlan): Promise<number | undefined>;
  /** Distinct non-null values of a dictionary column over the plan's rows, in text order (all of them). */
  values(plan: StorePlan, column: Column, filterSearch: string | undefined): Promise<string[] | undefined>;
  /** Min and max of a number, currency or date column over the plan's rows. */
  range(plan: StorePlan, column: Column): Promise<{ min: number | null; max: number | null } | undefined>;
}

export function columnStore(options: ColumnStoreOptions): ColumnStore {
  const { db } = options;
  const minRows = options.minRows ?? 100_000;
  const held = new LRUCache<string, Held>({ maxSize: options.maxBytes ?? 64 * 1024 * 1024, sizeCalculation: (h) => Math.max(1, h.data.byteLength) });
  const loading = new Map<string, Promise<Held | null>>();
  const dictionaries = new LRUCache<string, Promise<Dictionaries>>({ max: 100 });
  /** Columns that could not be held for a version (rids not 1..N, a NaN): SQL answers them. */
  const refused = new LRUCache<string, true>({ max: 1000 });

  const rowsOf = (plan: StorePlan): number | undefined => plan.pre.tables.get(SOURCE)?.rows;

  /** What the store holds a column as, or null when it cannot hold it for this plan. */
  function holdable(plan: StorePlan, column: Column): { name: string; kind: 'codes' | 'numbers' } | null {
    const name = storedName(column);
    if (name === null || !COPY_COLUMNS.has(name)) return null;
    if (column.type === 'number' || column.type === 'currency' || column.type === 'date') return { name, kind: 'numbers' };
    return plan.accel?.dictionary.has(name) ? { name, kind: 'codes' } : null;
  }

  function eligible(plan: StorePlan): boolean {
    const rows = rowsOf(plan);
    return plan.report.table === SOURCE && plan.report.shape === 'table' && plan.search.length === 0 && isOrgOnly(plan) && rows !== undefined && rows >= minRows && rows > 0;
  }

  function loadDictionaries(plan: StorePlan): Promise<Dictionaries> {
    const key = `${plan.orgId}:${plan.version}`;
    let hit = dictionaries.get(key);
    if (!hit) {
      hit = (async () => {
        const rows = (await sql<{ col: string; pos: number; value: string }>`select col, pos, value from rpt_value_counts where org_id = ${plan.orgId} and tbl = ${SOURCE} order by col, pos`.execute(db)).rows;
        const values = new Map<string, string[]>();
        const position = new Map<string, Map<string, number>>();
        for (const r of rows) {
          if (!values.has(r.col)) {
            values.set(r.col, ['']);
            position.set(r.col, new Map());
          }
          values.get(r.col)![r.pos] = r.value;
          position.get(r.col)!.set(r.value, r.pos);
        }
        return { values, position };
      })();
      hit.catch(() => dictionaries.delete(key));
      dictionaries.set(key, hit);
    }
    return hit;
  }

  async function column(plan: StorePlan, name: string, kind: 'codes' | 'numbers', type: Column['type']): Promise<Held | null> {
    const key = `${plan.orgId}:${plan.version}:${name}`;
    const hit = held.get(key);
    if (hit) return hit;
    if (refused.has(key)) return null;
    let pending = loading.get(key);
    if (!pending) {
      pending = loadColumn(plan, name, kind, type)
        .then((h) => {
          if (h) held.set(key, h);
          else refused.set(key, true);
          return h;
        })
        .finally(() => loading.delete(key));
      loading.set(key, pending);
    }
    return pending;
  }

  async function loadColumn(plan: StorePlan, name: string, kind: 'codes' | 'numbers', type: Column['type']): Promise<Held | null> {
    const rows = rowsOf(plan)!;
    const c = sql.ref(`r.${name}`);
    const checks = sql`count(*) as n, min(r.rid) as lo, max(r.rid) as hi`;
    if (kind === 'codes') {
      // The dictionary's position per row (booleans' dictionary holds 'true' / 'false').
      const value = type === 'boolean' ? sql`(${c})::text` : c;
      const row = (await sql<{ b: Uint8Array | null; n: number; lo: number; hi: number }>`
        select string_agg(int2send(coalesce(d.pos, 0)::int2), ''::bytea order by r.rid) as b, ${checks}
        from ${sql.table(COPY)} r left join rpt_value_counts d on d.org_id = r.org_id and d.tbl = ${SOURCE} and d.col = ${name} and d.value = ${value}
        where r.org_id = ${plan.orgId}`.execute(db)).rows[0];
      if (!row?.b || !ridsAreDense(row, rows)) return null;
      return { kind: 'codes', data: new Uint16Array(bigEndian(row.b, 2)) };
    }
    // Int32 when every value is an integer in range (dates, counts), else Float64. A
    // NaN would compare differently in SQL (greater than every number): not held.
    const stats = (await sql<{ ints: boolean; nans: number }>`
      select coalesce(bool_and(${c}::double precision = trunc(${c}::double precision) and ${c}::double precision > ${INT_NULL} and ${c}::double precision <= 2147483647), true) as ints,
        count(*) filter (where ${c}::double precision = 'NaN'::double precision) as nans
      from ${sql.table(COPY)} r where r.org_id = ${plan.orgId}`.execute(db)).rows[0];
    if (!stats || Number(stats.nans) > 0) return null;
    const ints = stats.ints;
    const packed = ints ? sql`int4send(coalesce((${c})::int4, ${INT_NULL}::int4))` : sql`float8send(coalesce((${c})::double precision, 'NaN'::double precision))`;
    const row = (await sql<{ b: Uint8Array | null; n: number; lo: number; hi: number }>`
      select string_agg(${packed}, ''::bytea order by r.rid) as b, ${checks} from ${sql.table(COPY)} r where r.org_id = ${plan.orgId}`.execute(db)).rows[0];
    if (!row?.b || !ridsAreDense(row, rows)) return null;
    return { kind: 'numbers', data: ints ? new Int32Array(bigEndian(row.b, 4)) : new Float64Array(bigEndian(row.b, 8)) };
  }

  /**
   * Which rows pass every filter (1 = passes), or `true` for all rows, or null when a
   * filter is beyond the store. Each filter is one pass over its column.
   */
  async function select(plan: StorePlan): Promise<Uint8Array | true | null> {
    if (!eligible(plan)) return null;
    const rows = rowsOf(plan)!;
    const dicts = await loadDictionaries(plan);
    const tests: Test[] = [];
    const needs: Array<{ name: string; kind: 'codes' | 'numbers'; type: Column['type'] }> = [];
    for (const f of plan.filters) {
      const h = holdable(plan, f.column);
      const test = h ? rowTest(f, h.kind, dicts.position.get(h.name)) : null;
      if (!h || !test) return null;
      tests.push(test);
      needs.push({ ...h, type: f.column.type });
    }
    if (tests.length === 0) return true;
    const columns = await Promise.all(needs.map((n) => column(plan, n.name, n.kind, n.type)));
    if (columns.some((c) => c === null || c.data.length !== rows)) return null;
    const mask = new Uint8Array(rows);
    tests.forEach((test, k) => applyTest(test, columns[k]!, mask, k === 0));
    return mask;
  }

  return {
    async count(plan) {
      const mask = await select(plan);
      if (mask === null) return undefined;
      if (mask === true) return rowsOf(plan)!;
      let n = 0;
      for (let i = 0; i < mask.length; i++) n += mask[i]!;
      return n;
    },

    async values(plan, target, filterSearch) {
      const h = holdable(plan, target);
      if (!h || h.kind !== 'codes' || !isTextualOrBoolean(target)) return undefined;
      const mask = await select(plan);
      if (mask === null) return undefined;
      const [dicts, held] = await Promise.all([loadDictionaries(plan), column(plan, h.name, 'codes', target.type)]);
      const values = dicts.values.get(h.name);
      if (!held || held.kind !== 'codes' || !values || held.data.length !== rowsOf(plan)) return undefined;
      const seen = new Uint8Array(values.length);
      const codes = held.data;
      if (mask === true) for (let i = 0; i < codes.length; i++) seen[codes[i]!] = 1;
      else for (let i = 0; i < codes.length; i++) if (mask[i] === 1) seen[codes[i]!] = 1;
      // filterSearch: the dictionary values that hold it, by PostgreSQL's ILIKE (its case rules).
      let keep: Set<string> | undefined;
      if (filterSearch) {
        const found = (await sql<{ v: string[] }>`select coalesce(array_agg(value), '{}') as v from rpt_value_counts where org_id = ${plan.orgId} and tbl = ${SOURCE} and col = ${h.name} and value ilike ${likeContains(filterSearch)}`.execute(db)).rows[0];
        keep = new Set(found?.v ?? []);
      }
      const out: string[] = [];
      for (let pos = 1; pos < values.length; pos++) if (seen[pos] === 1 && (!keep || keep.has(values[pos]!))) out.push(values[pos]!);
      return out;
    },

    async range(plan, target) {
      const h = holdable(plan, target);
      if (!h || h.kind !== 'numbers') return undefined;
      const mask = await select(plan);
      if (mask === null) return undefined;
      const held = await column(plan, h.name, 'numbers', target.type);
      if (!held || held.kind !== 'numbers' || held.data.length !== rowsOf(plan)) return undefined;
      const data = held.data;
      const isNull = data instanceof Int32Array ? (v: number) => v === INT_NULL : (v: number) => Number.isNaN(v);
      let min = Infinity;
      let max = -Infinity;
      let any = false;
      for (let i = 0; i < data.length; i++) {
        if (mask !== true && mask[i] !== 1) continue;
        const v = data[i]!;
        if (isNull(v)) continue;
        any = true;
        if (v < min) min = v;
        if (v > max) max = v;
      }
      return any ? { min, max } : { min: null, max: null };
    },
  };
}

const isTextualOrBoolean = (c: Column) => isTextual(c.type) || c.type === 'boolean';

/** Whether the copy's rows of the organization are numbered exactly 1..rows (index = rid - 1). */
function ridsAreDense(row: { n: number; lo: number; hi: number }, rows: number): boolean {
  return Number(row.n) === rows && Number(row.lo) === 1 && Number(row.hi) === rows;
}

/** Big-endian packed values (`int2send` and friends) as a fresh, aligned buffer in this machine's order. */
function bigEndian(bytes: Uint8Array, width: 2 | 4 | 8): ArrayBuffer {
  const out = new ArrayBuffer(bytes.byteLength);
  const view = Buffer.from(out);
  view.set(bytes);
  if (width === 2) view.swap16();
  else if (width === 4) view.swap32();
  else view.swap64();
  return out;
}

/** A filter as the store tests it: a lookup table of dictionary positions, or bounds. */
type Test = { kind: 'codes'; listed: Uint8Array } | { kind: 'range'; lo: number; hi: number };

/**
 * A filter as a test of its held column, mirroring query.ts filterCondition: "exact" is
 * `value = any(list)` (NULL fails), "not equal" `value is null or not (value = any(list))`,
 * a range `value >= min and value <= max` (NULL fails). Null when the filter is not one
 * of these (an unresolved "contains", say).
 */
function rowTest(f: FilterPlan, kind: 'codes' | 'numbers', position: Map<string, number> | undefined): Test | null {
  const spec = f.filter;
  if (kind === 'codes') {
    if (!position || (spec.operation !== 'exact' && spec.operation !== 'notEqual')) return null;
    const listed = new Uint8Array(position.size + 1);
    for (const v of spec.values) {
      const pos = position.get(v);
      if (pos !== undefined) listed[pos] = 1;
    }
    // NULL (position 0): fails "exact", passes "not equal".
    if (spec.operation === 'notEqual') for (let pos = 0; pos < listed.length; pos++) listed[pos] = listed[pos] === 1 ? 0 : 1;
    return { kind: 'codes', listed };
  }
  if (spec.operation !== 'range') return null;
  return { kind: 'range', lo: spec.min ?? -Infinity, hi: spec.max ?? Infinity };
}

/**
 * Applies one test to the mask: sets it (first test) or clears the rows that fail. One
 * plain loop per kind of column, so each stays monomorphic (a closure per row cost
 * several times as much).
 */
function applyTest(test: Test, held: Held, mask: Uint8Array, first: boolean): void {
  const n = mask.length;
  if (test.kind === 'codes') {
    const codes = held.data as Uint16Array;
    const listed = test.listed;
    if (first) for (let i = 0; i < n; i++) mask[i] = listed[codes[i]!]!;
    else for (let i = 0; i < n; i++) mask[i] = mask[i]! & listed[codes[i]!]!;
    return;
  }
  const { lo, hi } = test;
  if (held.data instanceof Int32Array) {
    const data = held.data;
    for (let i = 0; i < n; i++) {
      if (!first && mask[i] === 0) continue;
      const v = data[i]!;
      mask[i] = v !== INT_NULL && v >= lo && v <= hi ? 1 : 0;
    }
    return;
  }
  // Float64: NaN (NULL) fails both comparisons.
  const data = held.data;
  for (let i = 0; i < n; i++) {
    if (!first && mask[i] === 0) continue;
    const v = data[i]!;
    mask[i] = v >= lo && v <= hi ? 1 : 0;
  }
}
