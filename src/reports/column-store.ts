/**
 * Columns of the accounts' narrow copy (`rpt_account_facts`) held in this process as
 * typed arrays, one entry per row in `rid` order, for the figures that read every row of
 * a large tenant: the exact count of a filtered page, filter values and ranges under
 * filters, and the filtered accounts dashboard. On 2,000,000 rows PostgreSQL reads the 650 MB copy for each such figure (1-6 s
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
 * - sums only of whole amounts held as Int32 (column-dashboard.ts): a floating-point sum
 *   of fractions depends on the order of addition, so it is left to PostgreSQL;
 * - what the held columns cannot test (a search, a name fragment, a column the copy
 *   lacks, a custom column) is selected once by SQL and kept as a bitset (`probe`);
 * - a page in the default order (`rid`) is picked from the selection's bitset and read
 *   by rid (`pageRids`); sorted pages stay with SQL.
 *
 * A context scope or a tenant below `minRows` is answered by SQL as before. Loaded
 * columns are kept per (organization, data version) within a byte budget (least recently
 * used first out), so an import retires them; columns asked for together are loaded
 * together, by statements that return each row's rid and packed values, and only when the
 * copy's rids are exactly 1..N (checked on every load).
 */
import { sql, type Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { storedName } from './catalog/column.js';
import { isTextual, type Column } from './catalog/types.js';
import { dictionaryMatchQuery } from './dictionary-filters.js';
import { isOrgOnly, matchingRidsQuery, type QueryPlan } from './query.js';
import { ACCOUNT_FACT_COLUMNS } from './narrow-copies.js';
import type { FilterPlan } from './plan.js';
import type { Precomputed } from './precomputed.js';
import { accountsDashboard } from './column-dashboard.js';
import { singleFlight } from './cache.js';
import { storedDashboardQuery } from './precomputed.js';
import { loadTextRuns, textBits, textBytes, textRows, type TextRuns } from './column-text.js';
import { popcount } from './bitset.js';
import { readsAsItself } from './filter-language.js';
import { intBits, intColumn } from './int-range.js';

/** The report table whose copy the store reads, and that copy. */
const SOURCE = 'rpt_global_accounts';
const COPY = 'rpt_account_facts';
const COPY_COLUMNS: ReadonlySet<string> = new Set(ACCOUNT_FACT_COLUMNS);
/** NULL in an Int32 column (a value equal to it makes the column Float64). */
const INT_NULL = -2147483648;
/** Bitsets kept (250 KB each at 2,000,000 rows). */
const BITSETS = 16;
/** Bitsets of conditions selected by SQL kept (a search term, a name fragment): 250 KB each at 2,000,000 rows. */
const PROBES = 16;
/** Bytes of records per loading statement (twice that as hex text on the wire). */
const LOAD_BYTES = 512 * 1024;
/** Rows per loading statement: 2 MB of float8 at most (4 MB of hex text on the wire). */
const LOAD_CHUNK = 262_144;

/** Dictionary positions: one byte when the dictionary has at most 255 values, else two. */
type Codes = { kind: 'codes'; data: Uint8Array | Uint16Array };
type Numbers = { kind: 'numbers'; data: Int32Array | Float64Array };
/** Small per-row states computed by SQL (a boolean as 0 NULL / 1 false / 2 true; account runs). */
type Flags = { kind: 'flags'; data: Uint8Array };
type Held = Codes | Numbers | Flags | TextRuns;
type Kind = Held['kind'] | 'runs';
/** How a filter column is held: the kinds a test can read. */
type TestKind = 'codes' | 'numbers' | 'text';
const heldRows = (h: Held): number => (h.kind === 'text' ? textRows(h) : h.data.length);
// Every held array owns its buffer (the sinks below allocate one each), so the buffer's
// size is what it costs: for a SIMD column (int-range.ts) its memory, scratch words included.
const heldBytes = (h: Held): number => (h.kind === 'text' ? textBytes(h) : h.data.buffer.byteLength);

/** One organization's dictionaries: values by position (index 0 unused: NULL). */
interface Dictionaries {
  values: Map<string, string[]>;
  position: Map<string, Map<string, number>>;
  /** Per position, the rank of the value's lower case in text order (equal lower cases share one). */
  lowerRank: Map<string, number[]>;
}

export interface ColumnStoreOptions {
  db: Kysely<any>;
  /** Bytes of column data kept (default 64 MiB). */
  maxBytes?: number;
  /** Tenants with fewer rows are answered by SQL (default 100,000; tests use 0). */
  minRows?: number;
  /**
   * Whether a request that needs a column not yet held waits for it to load (default
   * true). The first such request of a data version waits for the load (4-7 s for a
   * filtered dashboard's seven columns at 2,000,000 rows, loaded in one batch); every
   * later one is answered from memory. With false it is answered by SQL
   * while the load runs, but under load the loads then queued behind the scans they were
   * to replace and never finished within a benchmark run (docs/benchmarks.md).
   */
  waitForLoads?: boolean;
  /**
   * Whether the account's name is held as runs (column-text.ts) for "contains": about
   * 45 MB at 2,000,000 rows. Default: when `maxBytes` is at least 128 MiB; otherwise
   * such a filter is selected by SQL once (a probe) and kept as a bitset.
   */
  textRuns?: boolean;
  /** Rows per loading statement (default 262,144; tests use a few, so that runs and checks cross chunks). */
  loadChunk?: number;
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
  /**
   * The rids of rows `offset` .. `offset + size - 1` of the plan's rows in `rid` order
   * (the report's default order), or undefined when the store cannot select its rows or
   * the plan has no filter and no search (SQL seeks those directly).
   */
  pageRids(plan: StorePlan, offset: number, size: number): Promise<number[] | undefined>;
  /** The accounts dashboard's figures (query-dashboard.ts keys) over the plan's rows. */
  dashboard(plan: StorePlan): Promise<{ totals: Record<string, unknown>; byPartner: Array<Record<string, unknown>> } | undefined>;
  /** Settles when the background loads of a new data version (see `rememberHeld`) started so far have. */
  warmed(): Promise<void>;
}

/** A held column's key: which column, as what (`name:kind`), for which organization and data version. */
const columnId = (name: string, kind: string) => `${name}:${kind}`;
const heldKey = (orgId: number, version: string, id: string) => `${orgId}:${version}:${id}`;

/** Whether data version `a` is later than `b` (versions are counters; anything else: different). */
function laterVersion(a: string, b: string): boolean {
  return /^\d+$/.test(a) && /^\d+$/.test(b) ? BigInt(a) > BigInt(b) : a !== b;
}

export function columnStore(options: ColumnStoreOptions): ColumnStore {
  const { db } = options;
  const minRows = options.minRows ?? 100_000;
  const wait = options.waitForLoads ?? true;
  const chunk = options.loadChunk ?? LOAD_CHUNK;
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const textRuns = options.textRuns ?? maxBytes >= 128 * 1024 * 1024;
  const held = new LRUCache<string, Held>({ maxSize: maxBytes, sizeCalculation: (h) => Math.max(1, heldBytes(h)) });
  // One computation per key at a time: column loads, the partner check and probes.
  const flight = singleFlight();
  const dictionaries = new LRUCache<string, Promise<Dictionaries>>({ max: 100 });
  /** Columns that could not be held for a version (rids not 1..N, a NaN): SQL answers them. */
  const refused = new LRUCache<string, true>({ max: 1000 });

  const rowsOf = (plan: StorePlan): number | undefined => plan.pre.tables.get(SOURCE)?.rows;

  /** What the store holds a column as, or null when it cannot hold it for this plan. */
  function holdable(plan: StorePlan, column: Column): { name: string; kind: TestKind } | null {
    const name = storedName(column);
    if (name === null || !COPY_COLUMNS.has(name)) return null;
    if (column.type === 'number' || column.type === 'currency' || column.type === 'date') return { name, kind: 'numbers' };
    if (plan.accel?.dictionary.has(name)) return { name, kind: 'codes' };
    // The copy's text without a dictionary (the account's name): runs, for "contains".
    return textRuns && isTextual(column.type) ? { name, kind: 'text' } : null;
  }

  function eligible(plan: StorePlan): boolean {
    const rows = rowsOf(plan);
    return plan.report.table === SOURCE && plan.report.shape === 'table' && isOrgOnly(plan) && rows !== undefined && rows >= minRows && rows > 0;
  }

  function loadDictionaries(plan: StorePlan): Promise<Dictionaries> {
    const key = `${plan.orgId}:${plan.version}`;
    let hit = dictionaries.get(key);
    if (!hit) {
      hit = (async () => {
        // lrank: PostgreSQL's own lower() decides which values sort together.
        const rows = (await sql<{ col: string; pos: number; value: string; lrank: number }>`
          select col, pos, value, dense_rank() over (partition by col order by lower(value) collate "C") as lrank
          from rpt_value_counts where org_id = ${plan.orgId} and tbl = ${SOURCE} order by col, pos`.execute(db)).rows;
        const values = new Map<string, string[]>();
        const position = new Map<string, Map<string, number>>();
        const lowerRank = new Map<string, number[]>();
        for (const r of rows) {
          if (!values.has(r.col)) {
            values.set(r.col, ['']);
            position.set(r.col, new Map());
            lowerRank.set(r.col, [0]);
          }
          values.get(r.col)![r.pos] = r.value;
          position.get(r.col)!.set(r.value, r.pos);
          lowerRank.get(r.col)![r.pos] = Number(r.lrank);
        }
        return { values, position, lowerRank };
      })();
      hit.catch(() => dictionaries.delete(key));
      dictionaries.set(key, hit);
    }
    return hit;
  }

  /**
   * Per organization, the columns loaded for its latest data version: the ones its callers
   * use. When the first load of a later version completes, the columns of the version before
   * are loaded again for it in the background, so that after an import only the first
   * request of the new version waits for a load (1-7 s at 2,000,000 rows: the bench's
   * `firstMs`), not the first request of every column in use. Started after that request's
   * own load, so it does not wait for them, and within the same budget: the old version's
   * columns are dropped first. A restart starts empty.
   */
  type Spec = { name: string; kind: Kind; type: Column['type'] };
  const inUse = new Map<number, { version: string; columns: Map<string, Spec> }>();
  let warming: Promise<unknown> = Promise.resolve();

  function rememberHeld(plan: StorePlan, spec: Spec): void {
    const id = columnId(spec.name, spec.kind);
    const current = inUse.get(plan.orgId);
    if (current?.version === plan.version) {
      current.columns.set(id, spec);
      return;
    }
    // A late load of an older version (a request that read the version before an import) changes nothing.
    if (current && !laterVersion(plan.version, current.version)) return;
    inUse.set(plan.orgId, { version: plan.version, columns: new Map([[id, spec]]) });
    // Reloaded: only those still held, which together fit the budget (every column loaded
    // over a version's life may not, and loading them all would evict each other). The
    // version before is let go now, not when the budget pushes it out: no request that read
    // the new version can use it, and its arrays would otherwise stay beside the reloads (a
    // request still running on the old version loads what it needs again).
    const previous: Spec[] = [];
    for (const [k, c] of current?.columns ?? []) {
      const old = heldKey(plan.orgId, current!.version, k);
      if (k !== id && held.has(old)) previous.push(c);
      held.delete(old);
    }
    if (previous.length === 0) return;
    const started = new Promise<unknown>((resolve) =>
      // The next turn: columns asked for in one turn are read together (loadColumn).
      // Never rejects: nobody awaits a warm-up but tests, and a failed load is retried by the next request that needs it.
      setImmediate(() => resolve(Promise.all(previous.map((c) => column(plan, c.name, c.kind, c.type, true).catch(() => null))))),
    );
    warming = Promise.all([warming, started]);
  }

  async function column(plan: StorePlan, name: string, kind: Kind, type: Column['type'], background = false): Promise<Held | null> {
    const key = heldKey(plan.orgId, plan.version, columnId(name, kind));
    const hit = held.get(key);
    if (hit) return hit;
    if (refused.has(key)) return null;
    const pending = flight(`load:${key}`, () =>
      (kind === 'text' ? loadTextRuns(db, plan.orgId, COPY, name, rowsOf(plan)!, chunk) : loadColumn(plan, name, kind, type))
        .then((h) => {
          if (h) held.set(key, h);
          else refused.set(key, true);
          if (h) rememberHeld(plan, { name, kind, type });
          return h;
        })
        // A failed load (a lost connection, say) is not remembered: the next request retries.
        .catch(() => null));
    return wait || background ? pending : Promise.resolve(null);
  }

  /** `runs`: crm_account_id as account runs (flags), found from a 64-bit hash of each row's id (see `runsSink`). */
  type Batched = 'codes' | 'numbers' | 'flags' | 'runs';
  type Queued = { name: string; kind: Batched; type: Column['type']; done: (h: Held | null) => void; fail: (e: unknown) => void };
  const batches = new Map<string, Queued[]>();
  /**
   * Columns asked for in the same turn of the event loop (a filtered dashboard's, a
   * request's several filters) for one (organization, version) are read together: one
   * statement per chunk packs each of them, so the copy is read once for all of them
   * rather than once each (docs/benchmarks.md, tenth session).
   */
  function loadColumn(plan: StorePlan, name: string, kind: Batched, type: Column['type']): Promise<Held | null> {
    const key = `${plan.orgId}:${plan.version}`;
    let batch = batches.get(key);
    if (!batch) {
      const queued: Queued[] = [];
      batch = queued;
      batches.set(key, queued);
      setImmediate(() => {
        batches.delete(key);
        loadColumns(plan, queued).then(
          (loaded) => queued.forEach((q, k) => q.done(loaded[k]!)),
          (e: unknown) => queued.forEach((q) => q.fail(e)),
        );
      });
    }
    return new Promise((done, fail) => batch.push({ name, kind, type, done, fail }));
  }

  /**
   * Columns in `rid` order, read in chunks of `chunk` rows (each one statement that packs
   * the chunk of every column into bytes, big-endian), so no statement result and no hex
   * text of it is ever larger than a few MB per column in this process. A column is null
   * when the rows of a chunk are not exactly its rids, or a number column holds a NaN (SQL
   * orders NaN above every number).
   */
  async function loadColumns(plan: StorePlan, specs: ReadonlyArray<{ name: string; kind: Batched; type: Column['type'] }>): Promise<Array<Held | null>> {
    const rows = rowsOf(plan)!;
    const parts = await Promise.all(specs.map(async ({ name, kind, type }, k) => {
      const c = sql.ref(`r.${name}`);
      const d = sql.ref(`d${k}.pos`);
      // Whole numbers (bigint columns: dates, counts) whose stored range fits are held as
      // Int32, packed so by the database: half the memory of Float64, integer comparisons.
      const summary = plan.pre.tables.get(SOURCE)?.columns.get(name);
      const dataType = kind === 'numbers' ? await columnType(name) : '';
      const ints = dataType === 'integer' || (dataType === 'bigint' && summary !== undefined && (summary.min === null || (summary.min > INT_NULL && summary.max !== null && summary.max <= 2147483647)));
      // Per kind: the bytes the database packs for a row, and what decodes them.
      const { width, packed, sink } =
        kind === 'runs'
          // 0 for NULL, else 1 and the id's 64-bit hash.
          ? { width: 9, packed: sql`(case when ${c} is null then '\\x000000000000000000'::bytea else '\\x01'::bytea || int8send(hashtextextended(${c}, 0)) end)`, sink: runsSink(rows) }
          : kind === 'flags'
            // A boolean as 0 (NULL) / 1 (false) / 2 (true).
            ? { width: 2, packed: sql`int2send((case when ${c} then 2 when not ${c} then 1 else 0 end)::int2)`, sink: flagsSink(rows) }
            : kind === 'codes'
              ? { width: 2, packed: sql`int2send(coalesce(${d}, 0)::int2)`, sink: codesSink(rows, (summary?.distinctValues ?? Infinity) <= 255) }
              : ints
                ? { width: 4, packed: sql`int4send(coalesce((${c})::int4, ${INT_NULL}::int4))`, sink: intsSink(rows) }
                : { width: 8, packed: sql`float8send(coalesce((${c})::double precision, 'NaN'::double precision))`, sink: floatsSink(rows) };
      // The dictionary's position per row (booleans' dictionary holds 'true' / 'false').
      const join = kind === 'codes'
        ? sql` left join rpt_value_counts ${sql.raw(`d${k}`)} on ${sql.ref(`d${k}.org_id`)} = r.org_id and ${sql.ref(`d${k}.tbl`)} = ${SOURCE} and ${sql.ref(`d${k}.col`)} = ${name} and ${sql.ref(`d${k}.value`)} = ${type === 'boolean' ? sql`(${c})::text` : c}`
        : sql``;
      // A NaN would compare differently in SQL (above every number); a value outside the
      // stored range would mean the summary is stale: either way SQL answers.
      const odd = kind !== 'numbers' ? sql`0` : ints
        ? sql`count(*) filter (where ${c} <= ${INT_NULL} or ${c} > 2147483647)`
        : sql`count(*) filter (where (${c})::double precision = 'NaN'::double precision)`;
      return { width, packed, join, odd, sink, ok: true };
    }));
    // One record per row, its rid then each column's bytes, aggregated in no order: an
    // ordered aggregate sorted the chunk once per column (5 columns: 690 ms a chunk; this
    // 320 ms), and the rid places each record.
    const record = 4 + parts.reduce((n, p) => n + p.width, 0);
    // Rows per statement: at most LOAD_BYTES of records (a batch of the dashboard's seven
    // columns is 35 bytes a row; a chunk of 262,144 such rows arrived as 18 MB of hex
    // text, and two of them at once raised the server's resident memory for good).
    const step = Math.max(1, Math.min(chunk, Math.floor(LOAD_BYTES / record)));
    const readChunk = async (first: number): Promise<boolean> => {
      const last = Math.min(rows, first + step - 1);
      const row = (await sql<Record<string, unknown>>`
        select count(*) as n, string_agg(int4send(r.rid::int4) || ${sql.join(parts.map((p) => p.packed), sql` || `)}, ''::bytea) as b, ${sql.join(parts.map((p, k) => sql`${p.odd} as ${sql.raw(`o${k}`)}`))}
        from ${sql.table(COPY)} r${sql.join(parts.map((p) => p.join), sql``)} where r.org_id = ${plan.orgId} and r.rid between ${first} and ${last}`.execute(db)).rows[0];
      const b = row?.b as Uint8Array | null | undefined;
      const n = last - first + 1;
      if (!row || !b || Number(row.n) !== n || b.byteLength !== n * record) return false;
      parts.forEach((p, k) => {
        if (Number(row[`o${k}`]) > 0) p.ok = false;
      });
      // rids are unique (the primary key), so n records with rids in [first, last] are
      // exactly the chunk. Decoded straight into the held arrays (one synchronous pass, so
      // the two chunks in flight never interleave).
      const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
      for (const p of parts) p.sink.begin(first - 1, n);
      for (let at = 0; at < b.byteLength; at += record) {
        const i = view.getInt32(at) - 1;
        if (i < first - 1 || i >= last) return false;
        let from = at + 4;
        for (const p of parts) {
          p.sink.put(i, view, from);
          from += p.width;
        }
      }
      for (const p of parts) p.sink.end();
      return true;
    };
    // Two chunks at a time: one statement keeps one core of PostgreSQL busy, and the
    // machines this runs on have two or more.
    for (let first = 1; first <= rows; first += 2 * step) {
      const done = await Promise.all([readChunk(first), first + step <= rows ? readChunk(first + step) : true]);
      if (done.includes(false)) return specs.map(() => null);
    }
    if ((await copyRows(plan)) !== rows) return specs.map(() => null);
    const accounts = specs.some((s) => s.kind === 'runs') ? await accountCount(plan) : -1;
    return parts.map((p) => (p.ok ? p.sink.result(accounts) : null));
  }

  /**
   * The organization's rows in the copy. With every chunk's rows exactly its rids, N rows
   * in all means the rids are exactly 1..N. Read once per (organization, version).
   */
  const copyCounts = new LRUCache<string, Promise<number>>({ max: 100 });
  function copyRows(plan: StorePlan): Promise<number> {
    const key = `${plan.orgId}:${plan.version}`;
    let known = copyCounts.get(key);
    if (!known) {
      known = sql<{ n: number }>`select count(*) as n from ${sql.table(COPY)} r where r.org_id = ${plan.orgId}`.execute(db).then((r) => Number(r.rows[0]?.n ?? -1));
      known.catch(() => copyCounts.delete(key));
      copyCounts.set(key, known);
    }
    return known;
  }

  const types = new Map<string, Promise<string>>();
  function columnType(name: string): Promise<string> {
    let known = types.get(name);
    if (!known) {
      known = sql<{ t: string }>`select data_type as t from information_schema.columns where table_schema = current_schema() and table_name = ${COPY} and column_name = ${name}`
        .execute(db)
        .then((r) => r.rows[0]?.t ?? '');
      known.catch(() => types.delete(name));
      types.set(name, known);
    }
    return known;
  }

  /**
   * The organization's distinct non-NULL accounts in the copy: the stored unfiltered
   * dashboard's `overlapping_accounts` (the same count, built at import from the same
   * rows), else a hash aggregate (about 0.8 s at 2,000,000 rows, where count(distinct ...)
   * sorted for 4 s).
   */
  async function accountCount(plan: StorePlan): Promise<number> {
    const stored = storedDashboardQuery('GLOBAL_VERTICAL_ACCOUNTS', plan.orgId);
    const totals = stored ? (await stored.execute(db)).rows[0] as { totals: { overlapping_accounts?: unknown } | null } | undefined : undefined;
    const known = totals?.totals?.overlapping_accounts;
    if (typeof known === 'number') return known;
    const counted = (await sql<{ n: number }>`select count(*) as n from (select r.crm_account_id from ${sql.table(COPY)} r where r.org_id = ${plan.orgId} and r.crm_account_id is not null group by 1) a`.execute(db)).rows[0];
    return Number(counted?.n ?? -1);
  }

  /**
   * Whether each partner's public id names exactly one `partner_org_id` and the reverse,
   * NULL together: then distinct public ids count the dashboard's distinct partners, and
   * the store need not hold the ids (8 MB at 2,000,000 rows). Per organization and version.
   */
  const bijective = new LRUCache<string, boolean>({ max: 100 });
  function partnersByPublicId(plan: StorePlan): Promise<boolean> {
    const key = `${plan.orgId}:${plan.version}`;
    const settled = bijective.get(key);
    if (settled !== undefined) return Promise.resolve(settled);
    // The distinct pairs (a hash aggregate: 0.8 s at 2,000,000 rows, where three
    // count(distinct ...) took 3.4 s), checked here.
    const known = flight(`partners:${key}`, () =>
      sql<{ i: number | null; p: string | null }>`
        select r.partner_org_id as i, r.partner_org_public_id as p from ${sql.table(COPY)} r where r.org_id = ${plan.orgId} group by 1, 2`
        .execute(db)
        .then(({ rows }) => {
          const ids = new Set<number | null>();
          const publicIds = new Set<string | null>();
          let answer = true;
          for (const r of rows) {
            if ((r.i === null) !== (r.p === null) || ids.has(r.i) || publicIds.has(r.p)) answer = false;
            ids.add(r.i);
            publicIds.add(r.p);
          }
          bijective.set(key, answer);
          return answer;
        })
        .catch(() => false));
    return wait ? known : Promise.resolve(false);
  }

  /**
   * Terms lower-cased by PostgreSQL (its lower(), the collation ILIKE uses), as UTF-8;
   * null when a term holds NUL (text cannot: SQL answers, with its error).
   */
  const lowered = new LRUCache<string, Buffer>({ max: 1000 });
  async function lowerCase(terms: readonly string[]): Promise<Buffer[] | null> {
    if (terms.some((t) => t.includes('\u0000'))) return null;
    const missing = terms.filter((t) => !lowered.has(t));
    if (missing.length) {
      const rows = (await sql<{ t: string; l: string }>`select t, lower(t) as l from unnest(${missing}::text[]) as u(t)`.execute(db)).rows;
      for (const r of rows) lowered.set(r.t, Buffer.from(r.l, 'utf8'));
    }
    const out = terms.map((t) => lowered.get(t));
    return out.every((b): b is Buffer => b !== undefined) ? out : null;
  }

  // Each test's rows as a bitset (one bit per row: 250 KB at 2,000,000 rows), kept per
  // (organization, data version, column, test): a request that changes one filter of
  // several (the usual refinement) tests one column, and ANDs the others' bitsets.
  // Their buffers are reused once evicted, so a request with one new test (the range
  // scenario of the benchmark: about 200 a second) allocates nothing for it. A buffer is
  // evicted only when BITSETS newer tests were used since, so never one that the request
  // evicting it reads (see `keep` below).
  const spare = new Map<number, Uint32Array[]>();
  // Which dictionary values a selection holds, per (selection, column): filter values of
  // the same rows (any page, any filterSearch) cost no pass.
  const present = new LRUCache<string, Uint8Array>({ max: 1000 });
  const bitsets = new LRUCache<string, { bits: Uint32Array; passing: number }>({
    max: BITSETS,
    dispose: (value) => {
      const list = spare.get(value.bits.length) ?? [];
      if (list.length < 4) list.push(value.bits);
      spare.set(value.bits.length, list);
    },
  });
  const bitsetOf = (words: number): Uint32Array => spare.get(words)?.pop() ?? new Uint32Array(words);
  // The AND of several bitsets, filled and read within one synchronous stretch (after
  // every column is loaded), so requests never see each other's.
  // The selection it holds: a page and its count (two calls of `select`, one request) AND once.
  let scratch = new Uint32Array(0);
  let scratchSelection = '';
  let scratchPassing = 0;

  /**
   * The rows of a one-condition plan (one filter, or the search) as a bitset, selected by
   * PostgreSQL (query.ts matchingRidsQuery: the narrow copy and its trigram index when
   * they hold the condition) and kept per (organization, version, condition): the first
   * request with a search term or a name fragment pays one SQL pass, every later one
   * that combines it with other filters, pages or figures pays none. Null when a rid
   * falls outside 1..rows (the row count is stale), or the statement fails.
   */
  const probed = new LRUCache<string, { bits: Uint32Array; passing: number }>({ max: PROBES });
  function probe(key: string, sub: StorePlan, rows: number): Promise<{ bits: Uint32Array; passing: number } | null> {
    const hit = probed.get(key);
    if (hit) return Promise.resolve(hit);
    return flight(`probe:${key}`, async () => {
      const row = (await matchingRidsQuery(sub).execute(db)).rows[0] as { b: Uint8Array | null; n: number } | undefined;
      const n = Number(row?.n ?? -1);
      const b = row?.b ?? new Uint8Array(0);
      if (n < 0 || b.byteLength !== n * 4) return null;
      const bits = new Uint32Array((rows + 31) >>> 5);
      const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
      for (let k = 0; k < n; k++) {
        const i = view.getInt32(k * 4) - 1;
        if (i < 0 || i >= rows) return null;
        bits[i >>> 5]! |= 1 << (i & 31);
      }
      const found = { bits, passing: n };
      probed.set(key, found);
      return found;
    }).catch(() => null);
  }

  /**
   * The plan's filters as tests over loaded columns, plus the column `extra` loaded too;
   * null when a filter or a column is beyond the store. `select` then returns the rows
   * that pass as a bitset and their number (`all` when there is no filter).
   */
  async function prepare(plan: StorePlan, extra?: { name: string; kind: TestKind; type: Column['type'] }): Promise<{ select: () => { bits: Uint32Array; passing: number } | 'all'; selection: string; extra: Held | null; dicts: Dictionaries } | null> {
    if (!eligible(plan)) return null;
    const rows = rowsOf(plan)!;
    const dicts = await loadDictionaries(plan);
    const tests: Array<{ test: Test; key: string }> = [];
    const needs: Array<{ name: string; kind: TestKind; type: Column['type'] }> = [];
    // What the held columns cannot test (a search, a "contains" on the name, a column
    // outside the copy) is selected once by SQL, and its rows kept as a bitset.
    const probes: Array<{ key: string; plan: StorePlan }> = [];
    for (const f of plan.filters) {
      const h = holdable(plan, f.column);
      const lowered = h?.kind === 'text' && 'values' in f.filter ? await lowerCase(f.filter.values) : undefined;
      const test = h ? rowTest(f, h.kind, dicts.position.get(h.name), lowered) : null;
      if (!h || !test) {
        probes.push({ key: `${plan.orgId}:${plan.version}:probe:${JSON.stringify([f.column.key, f.filter])}`, plan: { ...plan, filters: [f], search: [] } });
        continue;
      }
      tests.push({ test, key: `${plan.orgId}:${plan.version}:${h.name}:${signature(test)}` });
      needs.push({ ...h, type: f.column.type });
    }
    if (plan.search.length) probes.push({ key: `${plan.orgId}:${plan.version}:search:${JSON.stringify(plan.search)}`, plan: { ...plan, filters: [], search: plan.search } });
    const [columns, probed] = await Promise.all([
      Promise.all([...needs, ...(extra ? [extra] : [])].map((n) => column(plan, n.name, n.kind, n.type))),
      Promise.all(probes.map((p) => probe(p.key, p.plan, rows))),
    ]);
    if (columns.some((c) => c === null || heldRows(c) !== rows) || probed.some((p) => p === null)) return null;
    // The rows selected, as the set of their tests (the same set selects the same rows).
    const selection = `${plan.orgId}:${plan.version}|${[...tests.map((t) => t.key), ...probes.map((p) => p.key)].sort().join('|')}`;
    return {
      dicts,
      selection,
      extra: extra ? columns[columns.length - 1]! : null,
      select: () => {
        if (tests.length === 0 && probed.length === 0) return 'all';
        // More tests than bitsets kept: computed apart, so that none evicts (and lends its
        // buffer to) another test of the same request.
        const keep = tests.length <= BITSETS;
        const parts = tests.map(({ test, key }, k) => {
          if (!keep) return applyTest(test, columns[k]!, new Uint32Array((rows + 31) >>> 5));
          let hit = bitsets.get(key);
          if (!hit) {
            hit = applyTest(test, columns[k]!, bitsetOf((rows + 31) >>> 5));
            bitsets.set(key, hit);
          }
          return hit;
        });
        for (const p of probed) parts.push(p!);
        if (parts.length === 1) return parts[0]!;
        const words = parts[0]!.bits.length;
        if (scratch.length < words) {
          scratch = new Uint32Array(words);
          scratchSelection = '';
        }
        const bits = scratch.length === words ? scratch : scratch.subarray(0, words);
        if (scratchSelection !== selection) {
          scratchPassing = intersect(parts.map((p) => p.bits), bits);
          scratchSelection = selection;
        }
        return { bits, passing: scratchPassing };
      },
    };
  }

  return {
    async warmed() {
      // Loads started while waiting are waited for too.
      for (let seen: Promise<unknown> | undefined; seen !== warming; ) await (seen = warming);
    },

    async count(plan) {
      const prepared = await prepare(plan);
      if (!prepared) return undefined;
      const selected = prepared.select();
      return selected === 'all' ? rowsOf(plan)! : selected.passing;
    },

    async pageRids(plan, offset, size) {
      if (plan.filters.length === 0 && plan.search.length === 0) return undefined;
      const prepared = await prepare(plan);
      if (!prepared) return undefined;
      const selected = prepared.select();
      return selected === 'all' ? undefined : nthSetBits(selected.bits, offset, size).map((i) => i + 1);
    },

    async values(plan, target, filterSearch) {
      const h = holdable(plan, target);
      if (!h || h.kind !== 'codes' || !isTextualOrBoolean(target)) return undefined;
      // filterSearch: the dictionary values that hold it, by PostgreSQL's ILIKE (its case rules).
      const [prepared, found] = await Promise.all([
        prepare(plan, { ...h, type: target.type }),
        filterSearch ? dictionaryMatchQuery(plan, h.name, { column: target, filter: { operation: 'contains', values: [filterSearch] } })!.execute(db) : undefined,
      ]);
      const values = prepared?.dicts.values.get(h.name);
      if (!prepared || prepared.extra?.kind !== 'codes' || !values) return undefined;
      const memoKey = `${prepared.selection}>${h.name}`;
      let seen = present.get(memoKey);
      if (!seen) {
        const codes = prepared.extra.data;
        seen = new Uint8Array(values.length);
        const selected = prepared.select();
        if (selected === 'all') for (let i = 0; i < codes.length; i++) seen[codes[i]!] = 1;
        else {
          const bits = selected.bits;
          for (let i = 0; i < codes.length; i++) {
            const c = codes[i]!;
            seen[c] = seen[c]! | ((bits[i >>> 5]! >>> (i & 31)) & 1);
          }
        }
        present.set(memoKey, seen);
      }
      const keep = found ? new Set((found.rows[0] as { v: string[] } | undefined)?.v ?? []) : undefined;
      const out: string[] = [];
      for (let pos = 1; pos < values.length; pos++) if (seen[pos] === 1 && readsAsItself(values[pos]!) && (!keep || keep.has(values[pos]!))) out.push(values[pos]!);
      return out;
    },

    async dashboard(plan) {
      if (plan.report.id !== 'GLOBAL_VERTICAL_ACCOUNTS' || !eligible(plan)) return undefined;
      const dicts = await loadDictionaries(plan);
      const publicIds = dicts.values.get('partner_org_public_id');
      const names = dicts.values.get('partner_org_name');
      const nameLowerRank = dicts.lowerRank.get('partner_org_name');
      if (!publicIds || !names || !nameLowerRank) return undefined;
      // The filters' columns and the dashboard's are asked for in the same turn: one batch.
      const [prepared, oneToOne, runs, customer, partnerPublicId, partnerName, pipeline, acv] = await Promise.all([
        prepare(plan),
        partnersByPublicId(plan),
        column(plan, 'crm_account_id', 'runs', 'string'),
        column(plan, 'is_customer', 'flags', 'boolean'),
        column(plan, 'partner_org_public_id', 'codes', 'uuid'),
        column(plan, 'partner_org_name', 'codes', 'string'),
        column(plan, 'open_pipeline_amount', 'numbers', 'currency'),
        column(plan, 'account_acv', 'numbers', 'currency'),
      ]);
      if (!prepared || runs?.kind !== 'flags' || customer?.kind !== 'flags' || partnerPublicId?.kind !== 'codes' || partnerName?.kind !== 'codes') return undefined;
      // Sums must come out as PostgreSQL's: whole amounts held as Int32 (a double sum of
      // fractions depends on the order of addition).
      if (!oneToOne || !(pipeline?.data instanceof Int32Array) || !(acv?.data instanceof Int32Array)) return undefined;
      const selected = prepared.select();
      const figures = accountsDashboard(
        { rows: rowsOf(plan)!, bits: selected === 'all' ? null : selected.bits, runs: runs.data, customer: customer.data, partnerPublicId: partnerPublicId.data, partnerName: partnerName.data, pipeline: pipeline.data, acv: acv.data },
        { publicIds, names, nameLowerRank },
      );
      return figures ?? undefined;
    },

    async range(plan, target) {
      const h = holdable(plan, target);
      if (!h || h.kind !== 'numbers') return undefined;
      const prepared = await prepare(plan, { ...h, type: target.type });
      if (!prepared || prepared.extra?.kind !== 'numbers') return undefined;
      const data = prepared.extra.data;
      const selected = prepared.select();
      const mask = selected === 'all' ? null : selected.bits;
      return data instanceof Int32Array ? rangeOfInts(data, mask) : rangeOfFloats(data, mask);
    },
  };
}

/**
 * Where a loaded column's bytes go (big-endian, as the database packed them), decoded per
 * row into the array the store holds, so a load allocates nothing the size of the column
 * beyond it. `begin` / `end` bracket one chunk's rows; `result` is null when a value
 * cannot be held as the SQL would compare it.
 */
interface Sink {
  begin(first: number, n: number): void;
  put(i: number, view: DataView, at: number): void;
  end(): void;
  result(accounts: number): Held | null;
}

const noChunk = { begin() {}, end() {} };

/** Dictionary positions: one byte when the dictionary has at most 255 values, else two (a larger position refuses the column). */
function codesSink(rows: number, narrow: boolean): Sink {
  const data = narrow ? new Uint8Array(rows) : new Uint16Array(rows);
  let ok = true;
  return {
    ...noChunk,
    put(i, view, at) {
      const v = view.getUint16(at);
      if (narrow && v > 255) ok = false;
      data[i] = v;
    },
    result: () => (ok ? { kind: 'codes', data } : null),
  };
}

/** Small states packed as int2 (a boolean as 0 NULL / 1 false / 2 true). */
function flagsSink(rows: number): Sink {
  const data = new Uint8Array(rows);
  return { ...noChunk, put: (i, view, at) => void (data[i] = view.getUint16(at)), result: () => ({ kind: 'flags', data }) };
}

function intsSink(rows: number): Sink {
  const data = intColumn(rows);
  return { ...noChunk, put: (i, view, at) => void (data[i] = view.getInt32(at)), result: () => ({ kind: 'numbers', data }) };
}

/**
 * float8 values (NULL as NaN): held as Int32 while every value is whole and fits (the
 * usual currency amounts: half the memory, and sums of them exact in any order), else
 * as Float64 from the first value that is not.
 */
function floatsSink(rows: number): Sink {
  let ints: Int32Array | null = intColumn(rows);
  let floats: Float64Array | null = null;
  return {
    ...noChunk,
    put(i, view, at) {
      const v = view.getFloat64(at);
      if (ints) {
        if (Number.isNaN(v)) return void (ints[i] = INT_NULL);
        if (Number.isInteger(v) && v > INT_NULL && v <= 2147483647) return void (ints[i] = v);
        // Rows not loaded yet are overwritten when their chunk arrives.
        floats = new Float64Array(rows);
        for (let j = 0; j < rows; j++) floats[j] = ints[j] === INT_NULL ? NaN : ints[j]!;
        ints = null;
      }
      floats![i] = v;
    },
    result: () => ({ kind: 'numbers', data: ints ?? floats! }),
  };
}

/**
 * `crm_account_id` as account runs: 0 where it is NULL, 1 on the first row of a run of one
 * account, 2 on the rows after it, from 9 bytes a row (0 for NULL, else 1 and the id's
 * 64-bit hash), compared with the row before. Rows of a chunk are compared within it; a
 * chunk's first row with the last row of the chunk before once both are in. Held only when
 * the run starts number exactly the distinct accounts (`accounts`): then every account is
 * one run (its rows adjacent in `rid` order, as the report's default order puts them) and
 * counting runs counts accounts. A hash collision between neighbouring accounts would
 * merge their runs and leave fewer starts than accounts, so it is refused too; it could
 * only go unseen if some account were also split in two, which the default order
 * (account name, then id) rules out.
 */
export function runsSink(rows: number): Sink {
  const out = new Uint8Array(rows);
  // 9 bytes of the first and last row of each chunk, by the chunk's first row.
  const edges = new Map<number, { first: Uint8Array; last: Uint8Array; end: number }>();
  let chunk = new Uint8Array(0);
  let start = 0;
  let n = 0;
  const same = (a: Uint8Array, x: number, b: Uint8Array, y: number): boolean => {
    if (a[x] === 0 || b[y] === 0) return false;
    for (let j = 1; j < 9; j++) if (a[x + j] !== b[y + j]) return false;
    return true;
  };
  return {
    begin(first, rowsInChunk) {
      start = first;
      n = rowsInChunk;
      if (chunk.length < n * 9) chunk = new Uint8Array(n * 9);
    },
    put(i, view, at) {
      const to = (i - start) * 9;
      for (let j = 0; j < 9; j++) chunk[to + j] = view.getUint8(at + j);
    },
    end() {
      for (let k = 0; k < n; k++) out[start + k] = chunk[k * 9] === 0 ? 0 : k > 0 && same(chunk, k * 9, chunk, (k - 1) * 9) ? 2 : 1;
      edges.set(start, { first: chunk.slice(0, 9), last: chunk.slice((n - 1) * 9, n * 9), end: start + n });
    },
    result(accounts) {
      const byEnd = new Map([...edges.values()].map((e) => [e.end, e]));
      for (const [first, e] of edges) {
        if (first === 0) continue;
        const before = byEnd.get(first);
        if (!before) return null;
        if (same(e.first, 0, before.last, 0)) out[first] = 2;
      }
      let starts = 0;
      for (let i = 0; i < rows; i++) if (out[i] === 1) starts++;
      return starts === accounts ? { kind: 'flags', data: out } : null;
    },
  };
}

const isTextualOrBoolean = (c: Column) => isTextual(c.type) || c.type === 'boolean';

/** Min and max of the non-NULL values of the rows set in the bitset `mask` (every row when null); NULLs when none. */
function rangeOfInts(data: Int32Array, mask: Uint32Array | null): { min: number | null; max: number | null } {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < data.length; i++) {
    const v = data[i]!;
    if ((mask !== null && ((mask[i >>> 5]! >>> (i & 31)) & 1) === 0) || v === INT_NULL) continue;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return min === Infinity ? { min: null, max: null } : { min, max };
}

function rangeOfFloats(data: Float64Array, mask: Uint32Array | null): { min: number | null; max: number | null } {
  let min = Infinity;
  let max = -Infinity;
  let any = false;
  for (let i = 0; i < data.length; i++) {
    const v = data[i]!;
    if ((mask !== null && ((mask[i >>> 5]! >>> (i & 31)) & 1) === 0) || Number.isNaN(v)) continue;
    any = true;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return any ? { min, max } : { min: null, max: null };
}

/** A filter as the store tests it: a lookup table of dictionary positions, bounds, or lower-cased terms. */
type Test = { kind: 'codes'; listed: Uint8Array } | { kind: 'range'; lo: number; hi: number } | { kind: 'text'; operation: 'contains' | 'doesNotContain'; terms: Buffer[] };

/**
 * A filter as a test of its held column, mirroring query.ts filterCondition: "exact" is
 * `value = any(list)` (NULL fails), "not equal" `value is null or not (value = any(list))`,
 * a range `value >= min and value <= max` (NULL fails). Null when the filter is not one
 * of these (an unresolved "contains", say).
 */
function rowTest(f: FilterPlan, kind: TestKind, position: Map<string, number> | undefined, lowered: Buffer[] | null | undefined): Test | null {
  const spec = f.filter;
  if (kind === 'text') {
    if (!lowered || (spec.operation !== 'contains' && spec.operation !== 'doesNotContain')) return null;
    return { kind: 'text', operation: spec.operation, terms: lowered };
  }
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

/** A test's identity for the bitset cache: the positions it accepts, or its bounds. */
function signature(test: Test): string {
  if (test.kind === 'range') return `r${test.lo}:${test.hi}`;
  if (test.kind === 'text') return `t${test.operation}:${JSON.stringify(test.terms.map((t) => t.toString('utf8')))}`;
  const accepted: number[] = [];
  test.listed.forEach((v, pos) => {
    if (v === 1) accepted.push(pos);
  });
  return `c${accepted.join(',')}`;
}

/**
 * The rows that pass one test as a bitset (bit i of word i >> 5 for row i) and how many
 * pass. One plain loop per kind of column, so each stays monomorphic, without branches
 * on the data (a branch per row, mispredicted half the time on a broad range, made the
 * same count four times slower).
 */
function applyTest(test: Test, held: Held, bits: Uint32Array): { bits: Uint32Array; passing: number } {
  let passing: number;
  if (test.kind === 'text') passing = held.kind === 'text' ? textBits(held, test.operation, test.terms, bits) : 0;
  else if (test.kind === 'codes') passing = held.data instanceof Uint8Array ? codeBits8(test.listed, held.data, bits) : codeBits(test.listed, held.data as Uint16Array, bits);
  // Int32: its NULL (INT_NULL) lies below every lower bound used here. Float64: NULL is
  // NaN, which fails both comparisons.
  else if (held.data instanceof Int32Array) {
    // Whole numbers: the bounds as the whole numbers they admit, NULL (INT_NULL) below them.
    const lo = Math.max(Math.ceil(test.lo), INT_NULL + 1);
    const hi = Math.min(Math.floor(test.hi), 2147483647);
    if (lo > hi) {
      bits.fill(0);
      passing = 0;
    } else passing = intBits(lo, hi - lo, held.data, bits);
  }
  else passing = floatBits(test.lo, test.hi, held.data as Float64Array, bits);
  return { bits, passing };
}

// Two copies of one loop, one per element type: a loop that reads both Uint8Array and
// Uint16Array codes becomes polymorphic at its element loads, and this loop runs once per
// row of a 2,000,000-row tenant per condition.
function codeBits(listed: Uint8Array, codes: Uint16Array, bits: Uint32Array): number {
  let passing = 0;
  for (let w = 0; w < bits.length; w++) {
    const end = Math.min(codes.length, (w + 1) << 5);
    let word = 0;
    for (let i = w << 5, b = 0; i < end; i++, b++) word |= listed[codes[i]!]! << b;
    bits[w] = word;
    passing += popcount(word);
  }
  return passing;
}

function codeBits8(listed: Uint8Array, codes: Uint8Array, bits: Uint32Array): number {
  let passing = 0;
  for (let w = 0; w < bits.length; w++) {
    const end = Math.min(codes.length, (w + 1) << 5);
    let word = 0;
    for (let i = w << 5, b = 0; i < end; i++, b++) word |= listed[codes[i]!]! << b;
    bits[w] = word;
    passing += popcount(word);
  }
  return passing;
}

function floatBits(lo: number, hi: number, data: Float64Array, bits: Uint32Array): number {
  let passing = 0;
  for (let w = 0; w < bits.length; w++) {
    const end = Math.min(data.length, (w + 1) << 5);
    let word = 0;
    for (let i = w << 5, b = 0; i < end; i++, b++) {
      const v = data[i]!;
      word |= (+(v >= lo) & +(v <= hi)) << b;
    }
    bits[w] = word;
    passing += popcount(word);
  }
  return passing;
}

/**
 * The positions of set bits number `skip` .. `skip + take - 1` (counting from 0), in
 * order: whole words are skipped by their popcount, so a deep page costs one pass over
 * the words before it (62,500 at 2,000,000 rows), not one per row.
 */
export function nthSetBits(bits: Uint32Array, skip: number, take: number): number[] {
  const out: number[] = [];
  let w = 0;
  for (; w < bits.length; w++) {
    const n = popcount(bits[w]!);
    if (skip < n) break;
    skip -= n;
  }
  for (; w < bits.length && out.length < take; w++) {
    let word = bits[w]!;
    while (word !== 0 && out.length < take) {
      const low = word & -word;
      if (skip > 0) skip--;
      else out.push((w << 5) + 31 - Math.clz32(low));
      word ^= low;
    }
  }
  return out;
}

/** `out` = the AND of the bitsets; returns the bits set. */
function intersect(parts: Uint32Array[], out: Uint32Array): number {
  let passing = 0;
  const first = parts[0]!;
  for (let w = 0; w < out.length; w++) {
    let word = first[w]!;
    for (let k = 1; k < parts.length; k++) word &= parts[k]![w]!;
    out[w] = word;
    passing += popcount(word);
  }
  return passing;
}

