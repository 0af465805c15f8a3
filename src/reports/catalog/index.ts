/** The report catalog: the one place that knows reports and their columns. */
import { ATTRIBUTION_EVENTS } from './attribution-events.js';
import { PARTNER_ORG_CONNECTED_PARTNER_ORGS } from './connected-partner-orgs.js';
import { GLOBAL_VERTICAL_ACCOUNTS } from './global-vertical-accounts.js';
import { GLOBAL_VERTICAL_OPPORTUNITIES } from './global-vertical-opportunities.js';
import { PARTNER_ORG_MATCHED_ACCOUNTS } from './matched-accounts.js';
import { PIPELINE_ATTRIBUTION_DETAIL } from './pipeline-attribution-detail.js';
import { PIPELINE_ATTRIBUTION_SUMMARY } from './pipeline-attribution-summary.js';
import type { ReportDefinition, ReportId } from './types.js';

export const ANALYTICS_REPORTS = [
  PIPELINE_ATTRIBUTION_SUMMARY,
  PIPELINE_ATTRIBUTION_DETAIL,
  ATTRIBUTION_EVENTS,
  GLOBAL_VERTICAL_ACCOUNTS,
  GLOBAL_VERTICAL_OPPORTUNITIES,
] as const satisfies readonly ReportDefinition[];

export const CHANNEL_REPORTS = [PARTNER_ORG_CONNECTED_PARTNER_ORGS, PARTNER_ORG_MATCHED_ACCOUNTS] as const satisfies readonly ReportDefinition[];

export const ANALYTICS_REPORT_IDS: readonly string[] = ANALYTICS_REPORTS.map((r) => r.id);
export const CHANNEL_REPORT_IDS: readonly string[] = CHANNEL_REPORTS.map((r) => r.id);

const BY_ID = new Map<string, ReportDefinition>([...ANALYTICS_REPORTS, ...CHANNEL_REPORTS].map((r) => [r.id, r]));

export function findReport(id: string): ReportDefinition | undefined {
  return BY_ID.get(id);
}

export function reportById(id: ReportId): ReportDefinition {
  return BY_ID.get(id)!;
}

export * from './types.js';
