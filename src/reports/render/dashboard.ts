/**
 * Render stage: dashboard rows -> the documented dashboard shape (docs/api.md):
 * `{ reportType, totals: {...}, byPartner: [...], byEventType?: [...] }` with camelCase keys.
 *
 * The figures come from SQL rows, from JSON the database built, from the stored
 * dashboard (jsonb, which keeps an object's keys shorter first) or from the column
 * store: each in its own key order. The keys are written in one documented order per
 * report, whatever the source.
 */
import type { ReportId } from '../catalog/types.js';

export interface Dashboard {
  reportType: ReportId;
  totals: Record<string, number | null>;
  byPartner: Array<Record<string, unknown>>;
  byEventType?: Array<Record<string, unknown>>;
}

/** The figures of each report, as the queries name them, in the order they are written (docs/api.md "Dashboard"). */
const SHAPES: Partial<Record<ReportId, { totals: readonly string[]; byPartner: readonly string[] }>> = {
  GLOBAL_VERTICAL_ACCOUNTS: {
    totals: ['overlapping_accounts', 'overlaps', 'partners', 'customers', 'open_pipeline_amount', 'account_acv'],
    byPartner: ['overlaps', 'overlapping_accounts', 'open_pipeline_amount'],
  },
  GLOBAL_VERTICAL_OPPORTUNITIES: {
    totals: ['opportunities', 'overlaps', 'accounts', 'partners', 'amount', 'won_amount', 'open_amount'],
    byPartner: ['opportunities', 'overlaps', 'amount'],
  },
  ATTRIBUTION_EVENTS: { totals: ['events', 'accounts', 'partners'], byPartner: ['events'] },
  PIPELINE_ATTRIBUTION_DETAIL: {
    totals: ['new_opportunities', 'events', 'partners', 'average_days_to_new_opp', 'pipeline', 'won_amount'],
    byPartner: ['new_opportunities', 'events', 'pipeline'],
  },
  PIPELINE_ATTRIBUTION_SUMMARY: {
    totals: ['new_opportunities', 'pipeline', 'won_amount', 'events', 'average_days_to_new_opp', 'partners'],
    byPartner: ['new_opportunities', 'events', 'pipeline'],
  },
};

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

const LABELS = new Set(['partner_public_id', 'partner_name']);

/** The row's figures in `keys` order; a row with other figures is a query out of step with SHAPES. */
function numbers(row: Record<string, unknown>, keys: readonly string[]): Record<string, number | null> {
  const figures = Object.keys(row).filter((k) => !LABELS.has(k));
  if (figures.length !== keys.length || !figures.every((k) => keys.includes(k))) throw new Error(`dashboard figures ${figures.join(', ')} are not ${keys.join(', ')}`);
  return Object.fromEntries(
    keys.map((k) => {
      const v = row[k];
      return [camel(k), v === null || v === undefined ? null : Number(v)];
    }),
  );
}

export function renderDashboard(
  reportType: ReportId,
  totals: Record<string, unknown>,
  byPartner: Array<Record<string, unknown>>,
  byEventType: Array<Record<string, unknown>> | undefined,
): Dashboard {
  const shape = SHAPES[reportType];
  if (!shape) throw new Error(`no dashboard for ${reportType}`);
  const out: Dashboard = {
    reportType,
    totals: numbers(totals, shape.totals),
    byPartner: byPartner.map((row) => ({ partnerOrgPublicId: row.partner_public_id, partnerOrgName: row.partner_name, ...numbers(row, shape.byPartner) })),
  };
  if (byEventType) {
    out.byEventType = byEventType.map(({ code, display_name, events }) => ({ eventTypeCode: code, displayName: display_name, events: Number(events) }));
  }
  return out;
}
