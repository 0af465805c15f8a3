/**
 * Render stage: SQL rows (arrays in select-list order: the output columns `c0`, `c1`, ...,
 * then `partner_fields` for matched accounts) -> the JSON text of the page's report rows,
 * keyed by API name in the plan's output order. Matched accounts carry the partner's
 * shared fields in `partnerFields`, exactly as stored (masked at import).
 *
 * Written as text rather than built as objects and passed to JSON.stringify: each row's
 * object took 65 keyed stores and was walked again by the serializer. A template of quoted
 * keys with each value written as JSON.stringify would writes the same bytes (a test holds
 * the two equal); with rows read as arrays and shared select lists, the server's CPU per
 * first-seen page fell by a third to a half (docs/benchmarks.md, fifteenth session).
 */
import { LRUCache } from 'lru-cache';
import type { Plan } from '../plan.js';

/** What a page's rows are written with, worked out once per output shape. */
interface RowTemplate {
  /** `"key":` of each output column, in order. */
  prefixes: string[];
  /**
   * The partner columns' stored keys inside partnerFields, in output order: the keys an
   * explicit column list asked for, or every shared column in `/columns` order. The
   * stored object cannot give that order itself (jsonb orders keys by length, then bytes).
   */
  partnerKeys: string[];
  /** Whether only `partnerKeys` are written; otherwise any stored key they miss follows them. */
  onlyListed: boolean;
  /**
   * Matched accounts: before which output column `partnerFields` is written (`prefixes.length`:
   * last); undefined: not at all. Without a column list it comes last; with one, where the
   * first partner key was asked for, and not at all when none was (contract section 4:
   * exactly the keys asked for, in that order).
   */
  partnerAt: number | undefined;
}

// Output shapes are few (a report's columns, or a caller's explicit list); the bound keeps
// a stream of distinct explicit lists from growing it without end.
const templates = new LRUCache<string, RowTemplate>({ max: 1000 });

function templateOf(plan: Plan): RowTemplate {
  const keys: string[] = [];
  const partnerKeys: string[] = [];
  let firstPartner: number | undefined;
  // A partner column is looked up in partner_fields by its stored key, not by the name
  // (or alias) the caller asked for it by.
  for (const o of plan.output) {
    if (o.column.source === 'partner') {
      firstPartner ??= keys.length;
      partnerKeys.push(o.column.key);
    } else keys.push(o.key);
  }
  const matched = plan.report.id === 'PARTNER_ORG_MATCHED_ACCOUNTS';
  const id = JSON.stringify([plan.report.id, plan.explicitColumns, keys, partnerKeys]);
  let t = templates.get(id);
  if (!t) {
    const explicit = matched && plan.explicitColumns;
    t = {
      prefixes: keys.map((k) => JSON.stringify(k) + ':'),
      partnerKeys,
      onlyListed: explicit,
      partnerAt: !matched ? undefined : explicit ? firstPartner : keys.length,
    };
    templates.set(id, t);
  }
  return t;
}

/** A row's partnerFields with `keys` first, in their order (keys start with `partner`, never integer-like, so insertion order holds). */
function inOrder(fields: Record<string, unknown>, keys: readonly string[], onlyListed: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (k in fields) out[k] = fields[k];
  if (!onlyListed) for (const k in fields) if (!(k in out)) out[k] = fields[k];
  return out;
}

/**
 * The JSON array text of the page's rows (`[{...},...]`). Each row's cells are joined
 * into a flat string, and the rows into the page's: appending every piece to one string
 * (`out += ...`) made a rope of hundreds of thousands of parts for 2,000 rows, which V8
 * walks again to flatten it before the text is encoded, and whose nodes the collector
 * has to move while it grows. Joined, the same page took about half the time
 * (docs/benchmarks.md, twenty-eighth session).
 */
export function rowsJson(plan: Plan, rows: ReadonlyArray<readonly unknown[]>): string {
  const { prefixes, partnerKeys, onlyListed, partnerAt } = templateOf(plan);
  const n = prefixes.length;
  const texts = new Array<string>(rows.length);
  const cells: string[] = [];
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    cells.length = 0;
    for (let i = 0; i <= n; i++) {
      if (i === partnerAt) {
        const fields = (row[n] ?? {}) as Record<string, unknown>;
        cells.push('"partnerFields":' + JSON.stringify(inOrder(fields, partnerKeys, onlyListed)));
      }
      if (i === n) break;
      const value = json(row[i]);
      // A value JSON has no text for is left out, as JSON.stringify leaves out its key.
      if (value === undefined) continue;
      cells.push(prefixes[i]! + value);
    }
    texts[r] = '{' + cells.join(',') + '}';
  }
  return '[' + texts.join(',') + ']';
}

/** Characters JSON.stringify escapes in a string (lone surrogates among them). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * One value's JSON text, as JSON.stringify writes it. Counts and numeric strings are
 * numbers already (type parsers), a bigint is written as a number, dates stay epoch
 * seconds; NULL (and a missing value) is `null`. Strings without a character to escape
 * (nearly all) and numbers skip the serializer: half the time per value measured.
 */
function json(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return JSON.stringify(Number(value));
    case 'undefined':
      return 'null';
    default:
      return value === null ? 'null' : JSON.stringify(value);
  }
}
