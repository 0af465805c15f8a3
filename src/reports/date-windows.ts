/**
 * "Last N days" context windows (spec 4.3) start at a second that moves with the clock,
 * so the plan, its cache keys and its SQL changed every second: a repeated attribution
 * request was computed again at the first request of each second (1.8-5.8 s at 2,000,000
 * events under ten clients, docs/benchmarks.md sixth session). A window's start is pinned
 * to the earliest stored date at or after it, among the very rows the window applies to
 * (the report's narrow copy, indexed on (org_id, date)): a row passes the one bound
 * exactly when it passes the other, so the answer is the same, and the pinned bound, with
 * the cached answer keyed on it, holds until the window's start passes that date.
 */
import { sql, type Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Plan, Scope } from './plan.js';
import { narrowCopyOf } from './narrow-copies.js';
import { scopedTable, WINDOW_COLUMNS } from './query.js';

/**
 * Where a plan's window dates are looked up: the table its scope conditions filter
 * (query.ts scopedTable), or its narrow copy when that holds the column (same rows, with
 * an (org_id, date) index).
 */
function datesTable(plan: Plan, column: string): string {
  const table = scopedTable(plan);
  const copy = narrowCopyOf(table);
  return copy?.columns.has(column) ? copy.table : table;
}

/** A start that selects nothing: no stored date is at or after it (plan.ts epochBound's largest bound). */
const NOTHING_AFTER = Number.MAX_SAFE_INTEGER;

/**
 * Every start in (after, pin] pins to `pin`: `after` is the latest stored date before the
 * start that was looked up (null: none), `pin` the earliest at or after it.
 */
interface Interval {
  after: number | null;
  pin: number;
}

export type WindowPinner = <P extends Plan>(plan: P, dataVersion: string) => Promise<P>;

/**
 * Pins the start of every open-ended window (a day count: `max` null) of the plan; other
 * windows are fixed already. One statement of two index probes per window and data
 * version, then none while the start stays inside the interval it found.
 */
export function windowPinner(db: Kysely<any>): WindowPinner {
  const intervals = new LRUCache<string, Interval>({ max: 10_000 });
  const lookup = async (table: string, column: string, orgId: number, start: number, version: string): Promise<number> => {
    const key = `${orgId}:${version}:${table}.${column}`;
    const known = intervals.get(key);
    if (known && (known.after === null || start > known.after) && start <= known.pin) return known.pin;
    const t = sql.table(table);
    const c = sql.ref(column);
    const { rows } = await sql<{ pin: number | null; after: number | null }>`select
        (select min(${c}) from ${t} where org_id = ${orgId} and ${c} >= ${start}) as pin,
        (select max(${c}) from ${t} where org_id = ${orgId} and ${c} < ${start}) as after`.execute(db);
    const found = { after: rows[0]?.after ?? null, pin: rows[0]?.pin ?? NOTHING_AFTER };
    intervals.set(key, found);
    return found.pin;
  };
  return async (plan, version) => {
    let scope: Scope | undefined;
    for (const key of ['eventDate', 'oppCreatedDate'] as const) {
      const window = plan.scope[key];
      if (!window || window.min === null || window.max !== null) continue;
      const column = WINDOW_COLUMNS[key];
      scope ??= { ...plan.scope };
      scope[key] = { min: await lookup(datesTable(plan, column), column, plan.orgId, window.min, version), max: null };
    }
    return scope ? Object.assign(plan, { scope }) : plan;
  };
}
