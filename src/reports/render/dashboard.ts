/**
 * Render stage: dashboard rows -> the documented dashboard shape (docs/api.md):
 * `{ reportType, totals: {...}, byPartner: [...], byEventType?: [...] }` with camelCase keys.
 */
import type { ReportId } from '../catalog/types.js';

export interface Dashboard {
  reportType: ReportId;
  totals: Record<string, number | null>;
  byPartner: Array<Record<string, unknown>>;
  byEventType?: Array<Record<string, unknown>>;
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function numbers(row: Record<string, unknown>): Record<string, number | null> {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [camel(k), v === null || v === undefined ? null : Number(v)]));
}

function partnerRow(row: Record<string, unknown>): Record<string, unknown> {
  const { partner_public_id, partner_name, ...rest } = row;
  return { partnerOrgPublicId: partner_public_id, partnerOrgName: partner_name, ...numbers(rest) };
}

export function renderDashboard(
  reportType: ReportId,
  totals: Record<string, unknown>,
  byPartner: Array<Record<string, unknown>>,
  byEventType: Array<Record<string, unknown>> | undefined,
): Dashboard {
  const out: Dashboard = { reportType, totals: numbers(totals), byPartner: byPartner.map(partnerRow) };
  if (byEventType) {
    out.byEventType = byEventType.map(({ code, display_name, events }) => ({ eventTypeCode: code, displayName: display_name, events: Number(events) }));
  }
  return out;
}
