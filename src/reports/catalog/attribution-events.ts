/** ATTRIBUTION_EVENTS (spec 2.7): one attribution event against the caller's accounts. */
import { GROUP_B, GROUP_C, groupA } from './attribution-groups.js';
import { column } from './column.js';
import type { ReportDefinition } from './types.js';

export const ATTRIBUTION_EVENTS: ReportDefinition = {
  id: 'ATTRIBUTION_EVENTS',
  title: 'Attribution Events',
  table: 'rpt_attribution_events',
  shape: 'table',
  context: 'events',
  customEntities: ['event', 'account'],
  defaultOrder: 'event_date descending, then the event id',
  partnerColumn: 'partner_org_id',
  columns: [
    column('account_name', 'string'),
    // Partner data, as the same key is in the global reports (spec 2.11: partner columns are prefixed `partner`).
    column('partner_org_name', 'string', { group: 'partner' }),
    column('event_date', 'date'),
    column('event_group_display_name', 'string'),
    column('event_type_display_name', 'string'),
    column('event_subtype_display_name', 'string'),
    column('event_name', 'string'),
    column('event_description', 'string'),
    column('event_source', 'string'),
    column('event_user_name', 'name'),
    column('event_user_email', 'email'),
    column('event_user_title', 'title'),
    column('company_partner_public_id', 'uuid'),
    column('crm_account_id', 'string'),
    column('top_parent_crm_account_id', 'string'),
    column('top_parent_crm_account_name', 'string'),
    column('event_source_link', 'string'),
    ...GROUP_C,
    ...groupA('string'),
    ...GROUP_B,
  ],
};
