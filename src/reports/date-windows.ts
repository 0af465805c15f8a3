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
import { scopedTable, WINDOW_COLUMNS, WINDOW_KEYS } from './query.js';

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

/**
 * The clock seconds over which a plan's windows stay exactly as they are: every `now` in
 * (after, until]. `key` names the windows in effect; a route's ETag names it instead of
 * the current second (report-call.ts), so a repeat is a 304 until a window moves.
 */
export interface WindowValidity {
  key: string;
  after: number;
  until: number;
}

/** No window that moves with the clock: the plan holds for every second. */
export const ALWAYS: WindowValidity = { key: '', after: -Infinity, until: Infinity };

/** Windows in effect together: named by both, holding over the seconds where both hold. */
export function together(a: WindowValidity, b: WindowValidity): WindowValidity {
  return { key: [a.key, b.key].filter(Boolean).join(','), after: Math.max(a.after, b.after), until: Math.min(a.until, b.until) };
}

export type WindowPinner = <P extends Plan>(plan: P, dataVersion: string, nowSeconds: number) => Promise<{ plan: P; validity: WindowValidity }>;

/** An open-ended window: its start counts back from now (a day count, plan.ts dateWindow). */
const isRelative = (w: Scope['eventDate']): w is { min: number; max: null } => !!w && w.min !== null && w.max === null;

/** Without pinning, a relative window's start moves every second: its plan holds for that second alone. */
export const unpinnedWindows: WindowPinner = async (plan, _version, nowSeconds) => {
  const mins = WINDOW_KEYS.filter((k) => isRelative(plan.scope[k])).map((k) => `${k}:${plan.scope[k]!.min}`);
  return { plan, validity: mins.length ? { key: mins.join(','), after: nowSeconds - 1, until: nowSeconds } : ALWAYS };
};

/**
 * Pins the start of every open-ended window of the plan; other windows are fixed already.
 * One statement of two index probes per window and data version, then none while the
 * start stays inside the interval it found. A window counting d seconds back keeps its
 * pin while now - d stays in (after, pin], that is for now in (after + d, pin + d].
 */
export function windowPinner(db: Kysely<any>): WindowPinner {
  const intervals = new LRUCache<string, Interval>({ max: 10_000 });
  const lookup = async (table: string, column: string, orgId: number, start: number, version: string): Promise<Interval> => {
    const key = `${orgId}:${version}:${table}.${column}`;
    const known = intervals.get(key);
    if (known && (known.after === null || start > known.after) && start <= known.pin) return known;
    const t = sql.table(table);
    const c = sql.ref(column);
    const { rows } = await sql<{ pin: number | null; after: number | null }>`select
        (select min(${c}) from ${t} where org_id = ${orgId} and ${c} >= ${start}) as pin,
        (select max(${c}) from ${t} where org_id = ${orgId} and ${c} < ${start}) as after`.execute(db);
    const found = { after: rows[0]?.after ?? null, pin: rows[0]?.pin ?? NOTHING_AFTER };
    intervals.set(key, found);
    return found;
  };
  return async (plan, version, nowSeconds) => {
    let scope: Scope | undefined;
    let validity = ALWAYS;
    for (const key of WINDOW_KEYS) {
      const window = plan.scope[key];
      if (!isRelative(window)) continue;
      const column = WINDOW_COLUMNS[key];
      const { after, pin } = await lookup(datesTable(plan, column), column, plan.orgId, window.min, version);
      scope ??= { ...plan.scope };
      scope[key] = { min: pin, max: null };
      const back = nowSeconds - window.min;
      validity = together(validity, { key: `${key}:${pin}`, after: after === null ? -Infinity : after + back, until: pin + back });
    }
    return { plan: scope ? Object.assign(plan, { scope }) : plan, validity };
  };
}
