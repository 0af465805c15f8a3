/**
 * Render stage: SQL rows (positional `c0`, `c1`, ...) -> report rows keyed by API name,
 * in the plan's output order. Matched accounts carry the partner's shared fields in
 * `partnerFields`, exactly as stored (masked at import).
 */
import type { Plan } from '../plan.js';

export type ReportRow = Record<string, unknown>;

/**
 * The rows of one page rendered. Which SQL column feeds which key is worked out once per
 * page, not per row: a page of 2,000 rows of 65 columns made 130,000 `c${i}` keys (a new
 * string, hashed for the lookup, each time) where 65 suffice.
 */
export function renderRows(plan: Plan, rows: ReadonlyArray<Record<string, unknown>>): ReportRow[] {
  const keys: string[] = [];
  const sources: string[] = [];
  const partnerKeys: string[] = [];
  for (const o of plan.output) {
    if (o.column.source === 'partner') partnerKeys.push(o.column.key);
    else {
      sources.push(`c${keys.length}`);
      keys.push(o.key);
    }
  }
  const matched = plan.report.id === 'PARTNER_ORG_MATCHED_ACCOUNTS';
  return rows.map((row) => {
    const out: ReportRow = {};
    for (let i = 0; i < keys.length; i++) out[keys[i]!] = normalize(row[sources[i]!]);
    if (matched) {
      const fields = (row.partner_fields ?? {}) as Record<string, unknown>;
      out.partnerFields = plan.explicitColumns ? Object.fromEntries(partnerKeys.filter((k) => k in fields).map((k) => [k, fields[k]])) : fields;
    }
    return out;
  });
}

/** JSON-friendly values: bigint counts and numeric strings are numbers already (type parsers); dates stay epoch seconds. */
function normalize(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'bigint') return Number(value);
  return value;
}
