/**
 * A high-cardinality text column of the accounts' copy held for "contains" and "does not
 * contain" (column-store.ts): the account's name, which has no value dictionary. On
 * 2,000,000 rows such a count reads every match of its trigram index (466 ms for `tech`,
 * the same at ten clients as alone); a byte search through the names held here takes a
 * few tens of milliseconds, and its rows are kept as a bitset like any other test.
 *
 * What is held: the rows as runs of equal values in `rid` order (an account's rows are
 * adjacent in the report's default order, so there are about as many runs as accounts),
 * each run's value lower-cased by PostgreSQL and stored as UTF-8 after a NUL byte in one
 * buffer. The test is then exactly SQL's: on a UTF-8 database `x ILIKE '%t%'` is
 * `lower(x) LIKE lower('%t%')` (PostgreSQL's like.c, Generic_Text_IC_like), and with `%`,
 * `_` and `\` escaped that is "lower(x) contains lower(t)", which is the same as a byte
 * search of the UTF-8 forms (UTF-8 is self-synchronizing). Text never holds NUL, so no
 * match crosses from one value into the next. The terms are lower-cased by PostgreSQL
 * too (column-store.ts), with the same collation.
 *
 * Written by hand: no library holds a column as runs for substring tests over a bitset.
 */
import { sql, type Kysely } from 'kysely';

export interface TextRuns {
  kind: 'text';
  /** First row (0-based) of each run, and the row count after the last: runs + 1 entries. */
  data: Uint32Array;
  /** Start of each run's value in `text` (at its NUL), and the text's length: runs + 1 entries. */
  offsets: Uint32Array;
  /** NUL, then the lower-cased UTF-8 value, per run; a NULL run holds the NUL alone. */
  text: Buffer;
  /** 1 where the run's value is NULL. */
  nulls: Uint8Array;
}

export const textRows = (runs: TextRuns): number => runs.data[runs.data.length - 1]!;
export const textBytes = (runs: TextRuns): number => runs.data.byteLength + runs.offsets.byteLength + runs.text.byteLength + runs.nulls.byteLength;

/**
 * The column's runs for one organization, read in statements of `chunk` rows, each also
 * reading the row before it so that a run crossing the boundary continues. Null when the
 * rows of a chunk are not exactly its rids, or the database is not UTF-8 (where ILIKE
 * lower-cases byte by byte instead).
 */
export async function loadTextRuns(db: Kysely<any>, orgId: number, table: string, name: string, rows: number, chunk: number): Promise<TextRuns | null> {
  const encoding = (await sql<{ e: string }>`select current_setting('server_encoding') as e`.execute(db)).rows[0]?.e;
  if (encoding !== 'UTF8') return null;
  const c = sql.ref(`r.${name}`);
  // At most one run per row: sized for that, cut to the runs found at the end.
  const starts = new Uint32Array(rows + 1);
  const offsets = new Uint32Array(rows + 1);
  const nulls = new Uint8Array(rows);
  const parts: Buffer[] = [];
  let runs = 0;
  let length = 0;
  for (let first = 1; first <= rows; first += chunk) {
    const last = Math.min(rows, first + chunk - 1);
    const from = Math.max(1, first - 1);
    const result = await sql<{ rid: number; l: string | null; n: number }>`
      select s.rid, lower(s.v) as l, s.n from (
        select r.rid, ${c} as v, lag(${c}) over (order by r.rid) as p, count(*) over () as n
        from ${sql.table(table)} r where r.org_id = ${orgId} and r.rid between ${from} and ${last}) s
      where s.rid >= ${first} and (s.rid = 1 or s.v is distinct from s.p)
      order by s.rid`.execute(db);
    const expected = last - from + 1;
    if (result.rows.some((r) => Number(r.n) !== expected)) return null;
    // A chunk that one run passes through returns no row to carry its count.
    if (result.rows.length === 0) {
      const n = (await sql<{ n: number }>`select count(*) as n from ${sql.table(table)} r where r.org_id = ${orgId} and r.rid between ${from} and ${last}`.execute(db)).rows[0]?.n;
      if (first === 1 || Number(n) !== expected) return null;
    }
    // One buffer per chunk (a Buffer per value would cost more than the text).
    let size = 0;
    for (const r of result.rows) size += 1 + (r.l === null ? 0 : Buffer.byteLength(r.l, 'utf8'));
    const part = Buffer.alloc(size);
    let at = 0;
    for (const r of result.rows) {
      starts[runs] = Number(r.rid) - 1;
      offsets[runs] = length + at;
      at += 1;
      if (r.l === null) nulls[runs] = 1;
      else at += part.write(r.l, at, 'utf8');
      runs++;
    }
    parts.push(part);
    length += size;
  }
  starts[runs] = rows;
  offsets[runs] = length;
  return { kind: 'text', data: starts.slice(0, runs + 1), offsets: offsets.slice(0, runs + 1), text: Buffer.concat(parts, length), nulls: nulls.slice(0, runs) };
}

/**
 * Marks in `hit` (one byte per run) the runs whose value holds `term` (lower-cased UTF-8).
 * Each match jumps to the next run's value, so a run is found once however often it
 * holds the term.
 */
function markRuns(runs: TextRuns, term: Buffer, hit: Uint8Array): void {
  const { text, offsets } = runs;
  let at = text.indexOf(term, 0);
  while (at >= 0) {
    // The run whose value holds byte `at`: the last offset at or before it.
    let lo = 0;
    let hi = offsets.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (offsets[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    hit[lo] = 1;
    at = text.indexOf(term, offsets[lo + 1]!);
  }
}

/**
 * The rows that pass "contains" (every term) or "does not contain" (no term; NULL rows
 * pass, as in query.ts filterCondition) as a bitset; returns how many pass.
 */
export function textBits(runs: TextRuns, operation: 'contains' | 'doesNotContain', terms: readonly Buffer[], bits: Uint32Array): number {
  const count = runs.nulls.length;
  const pass = new Uint8Array(count);
  if (operation === 'contains') {
    // Runs holding every term (a NULL run holds none).
    pass.fill(1);
    const hit = new Uint8Array(count);
    for (const term of terms) {
      hit.fill(0);
      markRuns(runs, term, hit);
      for (let k = 0; k < count; k++) pass[k] = pass[k]! & hit[k]!;
    }
    for (let k = 0; k < count; k++) pass[k] = pass[k]! & (runs.nulls[k]! ^ 1);
  } else {
    // Runs holding no term, and NULL runs.
    for (const term of terms) markRuns(runs, term, pass);
    for (let k = 0; k < count; k++) pass[k] = runs.nulls[k]! | (pass[k]! ^ 1);
  }
  bits.fill(0);
  let passing = 0;
  const starts = runs.data;
  for (let k = 0; k < count; k++) {
    if (pass[k] === 0) continue;
    const end = starts[k + 1]!;
    passing += end - starts[k]!;
    for (let i = starts[k]!; i < end; i++) bits[i >>> 5] = bits[i >>> 5]! | (1 << (i & 31));
  }
  return passing;
}
