/**
 * Render stage: SQL rows (positional `c0`, `c1`, ...) -> report rows keyed by API name,
 * in the plan's output order. Matched accounts carry the partner's shared fields in
 * `partnerFields`, exactly as stored (masked at import).
 */
import type { Plan } from '../plan.js';

export type ReportRow = Record<string, unknown>;

export function renderRow(plan: Plan, row: Record<string, unknown>): ReportRow {
  const out: ReportRow = {};
  let i = 0;
  const partnerKeys: string[] = [];
  for (const o of plan.output) {
    if (o.column.source === 'partner') {
      partnerKeys.push(o.column.key);
      continue;
    }
    out[o.key] = normalize(row[`c${i++}`]);
  }
  if (plan.report.id === 'PARTNER_ORG_MATCHED_ACCOUNTS') {
    const fields = (row.partner_fields ?? {}) as Record<string, unknown>;
    out.partnerFields = plan.explicitColumns ? Object.fromEntries(partnerKeys.filter((k) => k in fields).map((k) => [k, fields[k]])) : fields;
  }
  return out;
}

/** JSON-friendly values: bigint counts and numeric strings are numbers already (type parsers); dates stay epoch seconds. */
function normalize(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'bigint') return Number(value);
  return value;
}
