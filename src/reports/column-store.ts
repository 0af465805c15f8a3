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
/** Rows per loading statement: 2 MB of float8 at most (4 MB of hex text on the wire). */
const LOAD_CHUNK = 262_144;

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

  /**
   * One column in `rid` order, read in chunks of LOAD_CHUNK rows (each one statement that
   * packs the chunk into bytes, big-endian), so no statement result and no hex text of
   * it is ever larger than a few MB in this process. Null when the rows of a chunk are not
   * exactly its rids, or a number column holds a NaN (SQL orders NaN above every number).
   */
  async function loadColumn(plan: StorePlan, name: string, kind: 'codes' | 'numbers', type: Column['type']): Promise<Held | null> {
    const rows = rowsOf(plan)!;
    const c = sql.ref(`r.${name}`);
    const width = kind === 'codes' ? 2 : 8;
    const packed = kind === 'codes'
      ? sql`int2send(coalesce(d.pos, 0)::int2)`
      : sql`float8send(coalesce((${c})::double precision, 'NaN'::double precision))`;
    // The dictionary's position per row (booleans' dictionary holds 'true' / 'false').
    const from = kind === 'codes'
      ? sql`${sql.table(COPY)} r left join rpt_value_counts d on d.org_id = r.org_id and d.tbl = ${SOURCE} and d.col = ${name} and d.value = ${type === 'boolean' ? sql`(${c})::text` : c}`
      : sql`${sql.table(COPY)} r`;
    const nans = kind === 'codes' ? sql`0` : sql`count(*) filter (where (${c})::double precision = 'NaN'::double precision)`;
    const out = new ArrayBuffer(rows * width);
    const bytes = new Uint8Array(out);
    for (let first = 1; first <= rows; first += LOAD_CHUNK) {
      const last = Math.min(rows, first + LOAD_CHUNK - 1);
      const row = (await sql<{ b: Uint8Array | null; n: number; nans: number }>`
        select string_agg(${packed}, ''::bytea order by r.rid) as b, count(*) as n, ${nans} as nans
        from ${from} where r.org_id = ${plan.orgId} and r.rid between ${first} and ${last}`.execute(db)).rows[0];
      if (!row?.b || Number(row.n) !== last - first + 1 || row.b.byteLength !== (last - first + 1) * width || Number(row.nans) > 0) return null;
      bytes.set(row.b, (first - 1) * width);
    }
    // n rows between 1 and N in every chunk, and N rows in all (the precomputed count): rids are 1..N.
    const count = (await sql<{ n: number }>`select count(*) as n from ${sql.table(COPY)} r where r.org_id = ${plan.orgId}`.execute(db)).rows[0];
    if (Number(count?.n) !== rows) return null;
    const swapped = Buffer.from(out);
    if (width === 2) {
      swapped.swap16();
      return { kind: 'codes', data: new Uint16Array(out) };
    }
    swapped.swap64();
    const values = new Float64Array(out);
    // Whole numbers that fit (dates, counts) are held as Int32: half the memory, and the
    // range test compares integers. INT_NULL stands for NULL (NaN here).
    let ints = true;
    for (let i = 0; i < values.length && ints; i++) {
      const v = values[i]!;
      ints = Number.isNaN(v) || (Number.isInteger(v) && v > INT_NULL && v <= 2147483647);
    }
    if (!ints) return { kind: 'numbers', data: values };
    const data = new Int32Array(values.length);
    for (let i = 0; i < values.length; i++) data[i] = Number.isNaN(values[i]!) ? INT_NULL : values[i]!;
    return { kind: 'numbers', data };
  }

  // One mask for every request: it is filled and read within one synchronous stretch
  // (after every column is loaded), so requests never see each other's.
  let scratch = new Uint8Array(0);
  const maskOf = (rows: number) => (scratch.length === rows ? scratch : scratch.subarray(0, rows));

  /**
   * The plan's filters as tests over loaded columns, plus the column `extra` loaded too;
   * null when a filter or a column is beyond the store. `select` then marks the rows that
   * pass (1) in the shared mask, one pass per filter, and returns how many pass (`all`
   * when there is no filter).
   */
  async function prepare(plan: StorePlan, extra?: { name: string; kind: 'codes' | 'numbers'; type: Column['type'] }): Promise<{ select: () => number | 'all'; extra: Held | null; dicts: Dictionaries } | null> {
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
    const columns = await Promise.all([...needs, ...(extra ? [extra] : [])].map((n) => column(plan, n.name, n.kind, n.type)));
    if (columns.some((c) => c === null || c.data.length !== rows)) return null;
    return {
      dicts,
      extra: extra ? columns[columns.length - 1]! : null,
      select: () => {
        if (tests.length === 0) return 'all';
        if (scratch.length < rows) scratch = new Uint8Array(rows);
        const mask = maskOf(rows);
        let passing = 0;
        tests.forEach((test, k) => {
          passing = applyTest(test, columns[k]!, mask, k === 0);
        });
        return passing;
      },
    };
  }

  return {
    async count(plan) {
      const prepared = await prepare(plan);
      if (!prepared) return undefined;
      const passing = prepared.select();
      return passing === 'all' ? rowsOf(plan)! : passing;
    },

    async values(plan, target, filterSearch) {
      const h = holdable(plan, target);
      if (!h || h.kind !== 'codes' || !isTextualOrBoolean(target)) return undefined;
      // filterSearch: the dictionary values that hold it, by PostgreSQL's ILIKE (its case rules).
      const [prepared, found] = await Promise.all([
        prepare(plan, { ...h, type: target.type }),
        filterSearch ? sql<{ v: string[] }>`select coalesce(array_agg(value), '{}') as v from rpt_value_counts where org_id = ${plan.orgId} and tbl = ${SOURCE} and col = ${h.name} and value ilike ${likeContains(filterSearch)}`.execute(db) : undefined,
      ]);
      const values = prepared?.dicts.values.get(h.name);
      if (!prepared || prepared.extra?.kind !== 'codes' || !values) return undefined;
      const codes = prepared.extra.data;
      const seen = new Uint8Array(values.length);
      const passing = prepared.select();
      if (passing === 'all') for (let i = 0; i < codes.length; i++) seen[codes[i]!] = 1;
      else {
        const mask = maskOf(codes.length);
        for (let i = 0; i < codes.length; i++) {
          const c = codes[i]!;
          seen[c] = seen[c]! | mask[i]!;
        }
      }
      const keep = found ? new Set(found.rows[0]?.v ?? []) : undefined;
      const out: string[] = [];
      for (let pos = 1; pos < values.length; pos++) if (seen[pos] === 1 && (!keep || keep.has(values[pos]!))) out.push(values[pos]!);
      return out;
    },

    async range(plan, target) {
      const h = holdable(plan, target);
      if (!h || h.kind !== 'numbers') return undefined;
      const prepared = await prepare(plan, { ...h, type: target.type });
      if (!prepared || prepared.extra?.kind !== 'numbers') return undefined;
      const data = prepared.extra.data;
      const passing = prepared.select();
      const mask = passing === 'all' ? null : maskOf(data.length);
      return data instanceof Int32Array ? rangeOfInts(data, mask) : rangeOfFloats(data, mask);
    },
  };
}

const isTextualOrBoolean = (c: Column) => isTextual(c.type) || c.type === 'boolean';

/** Min and max of the non-NULL values of the rows in `mask` (every row when null); NULLs when none. */
function rangeOfInts(data: Int32Array, mask: Uint8Array | null): { min: number | null; max: number | null } {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < data.length; i++) {
    const v = data[i]!;
    if ((mask !== null && mask[i] === 0) || v === INT_NULL) continue;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return min === Infinity ? { min: null, max: null } : { min, max };
}

function rangeOfFloats(data: Float64Array, mask: Uint8Array | null): { min: number | null; max: number | null } {
  let min = Infinity;
  let max = -Infinity;
  let any = false;
  for (let i = 0; i < data.length; i++) {
    const v = data[i]!;
    if ((mask !== null && mask[i] === 0) || Number.isNaN(v)) continue;
    any = true;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return any ? { min, max } : { min: null, max: null };
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
 * Applies one test to the mask (sets it for the first test, else clears the rows that
 * fail) and returns how many rows pass so far. One plain loop per kind of column, without
 * branches on the data: `&` of comparisons (a branch per row, mispredicted half the time
 * on a broad range, made the same count four times slower).
 */
function applyTest(test: Test, held: Held, mask: Uint8Array, first: boolean): number {
  if (test.kind === 'codes') return applyCodes(test.listed, held.data as Uint16Array, mask, first);
  // Int32: its NULL (INT_NULL) lies below every lower bound used here. Float64: NULL is
  // NaN, which fails both comparisons.
  if (held.data instanceof Int32Array) return applyInts(Math.max(test.lo, INT_NULL + 1), test.hi, held.data, mask, first);
  return applyFloats(test.lo, test.hi, held.data as Float64Array, mask, first);
}

// One function per array type, so that each loop's element access stays monomorphic, and
// one loop for the first test and one for the others, so the loop body has no branch.

function applyCodes(listed: Uint8Array, codes: Uint16Array, mask: Uint8Array, first: boolean): number {
  let passing = 0;
  const n = mask.length;
  if (first) {
    for (let i = 0; i < n; i++) {
      const m = listed[codes[i]!]!;
      mask[i] = m;
      passing += m;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const m = mask[i]! & listed[codes[i]!]!;
      mask[i] = m;
      passing += m;
    }
  }
  return passing;
}

function applyInts(lo: number, hi: number, data: Int32Array, mask: Uint8Array, first: boolean): number {
  let passing = 0;
  const n = mask.length;
  if (first) {
    for (let i = 0; i < n; i++) {
      const v = data[i]!;
      const m = +(v >= lo) & +(v <= hi);
      mask[i] = m;
      passing += m;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const v = data[i]!;
      const m = mask[i]! & +(v >= lo) & +(v <= hi);
      mask[i] = m;
      passing += m;
    }
  }
  return passing;
}

function applyFloats(lo: number, hi: number, data: Float64Array, mask: Uint8Array, first: boolean): number {
  let passing = 0;
  const n = mask.length;
  if (first) {
    for (let i = 0; i < n; i++) {
      const v = data[i]!;
      const m = +(v >= lo) & +(v <= hi);
      mask[i] = m;
      passing += m;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const v = data[i]!;
      const m = mask[i]! & +(v >= lo) & +(v <= hi);
      mask[i] = m;
      passing += m;
    }
  }
  return passing;
}
