/** PIPELINE_ATTRIBUTION_DETAIL (spec 2.6): one linked (event, new opportunity) pair. */
import { GROUP_B, GROUP_C, GROUP_D, groupA } from './attribution-groups.js';
import { column } from './column.js';
import type { ReportDefinition } from './types.js';

export const PIPELINE_ATTRIBUTION_DETAIL: ReportDefinition = {
  id: 'PIPELINE_ATTRIBUTION_DETAIL',
  title: 'Pipeline Attribution Detail',
  table: 'rpt_attribution_links',
  shape: 'table',
  context: 'events-and-opportunities',
  customEntities: ['opportunity', 'account', 'event'],
  defaultOrder: 'opp_created_date descending, opp_crm_opportunity_id, event_date descending, then the event id',
  partnerColumn: 'partner_org_id',
  columns: [
    column('account_name', 'string'),
    column('opp_name', 'string'),
    column('opp_amount', 'currency'),
    column('opp_created_date', 'date'),
    column('number_days_to_new_opp', 'number'),
    // Partner data, as the same key is in the global reports (spec 2.11: partner columns are prefixed `partner`).
    column('partner_org_name', 'string', { group: 'partner' }),
    column('event_date', 'date'),
    column('event_type_display_name', 'string'),
    column('event_subtype_display_name', 'string'),
    column('event_source', 'string'),
    column('event_name', 'string'),
    column('event_description', 'string'),
    column('event_user_name', 'name'),
    column('event_user_email', 'email'),
    column('event_user_title', 'title'),
    column('company_partner_public_id', 'uuid'),
    column('top_parent_crm_account_id', 'string'),
    column('top_parent_crm_account_name', 'string'),
    column('opp_crm_opportunity_id', 'string'),
    column('event_source_link', 'string'),
    ...GROUP_C,
    ...groupA('phone'),
    ...GROUP_B,
    ...GROUP_D,
  ],
};
