/** Column groups A-D of spec 2.5 and the opp_* columns of spec 2.4, shared by the attribution reports. */
import { column, group } from './column.js';
import type { Column } from './types.js';

/** Group A: account columns. `phone_number` is phone in the detail report, string in the events report. */
export function groupA(phoneType: 'phone' | 'string'): Column[] {
  return [
    column('account_type', 'string', { group: 'account' }),
    ...group('string', ['street', 'city', 'state', 'zip_code', 'country', 'website', 'industry', 'territory'], 'account'),
    ...group('number', ['number_of_employees', 'open_opp_count', 'closed_opp_count', 'closed_won_opp_count'], 'account'),
    column('is_customer', 'boolean', { group: 'account' }),
    ...group('currency', ['annual_revenue', 'account_acv', 'open_pipeline_amount'], 'account'),
    ...group('string', ['sic_code', 'naics_code', 'nces_id', 'duns_number'], 'account'),
    column('phone_number', phoneType, { group: 'account' }),
    column('owner_name', 'name', { group: 'account' }),
    column('owner_email', 'email', { group: 'account' }),
    column('owner_title', 'title', { group: 'account' }),
    column('owner_phone', 'phone', { group: 'account' }),
    column('owner_division', 'string', { group: 'account' }),
  ];
}

/** Group B: partner organization columns (from the caller's partnership record and the partner's profile). */
export const GROUP_B: readonly Column[] = [
  ...group('string', ['partner_street', 'partner_city', 'partner_state', 'partner_country', 'partner_zip_code'], 'partner'),
  column('partner_owner_name', 'name', { group: 'partner' }),
  column('partner_owner_email', 'email', { group: 'partner' }),
  column('partner_owner_phone', 'phone', { group: 'partner' }),
  ...group('string', ['partner_type', 'partner_status', 'partner_website', 'partner_crm_record_id', 'partner_prm_record_id'], 'partner'),
  column('partner_average_referral_deal_size', 'currency', { group: 'partner' }),
];

/**
 * Group C: custom event columns, all string. Custom columns in their metadata (source
 * `custom`, CUSTOM_CRM_FIELD): spec 2.5 names them custom event columns, their values are
 * the event's `custom` object (contract 7), and their keys carry the `custom_` prefix that
 * spec 1 gives custom fields; only their names and types are fixed.
 */
export const GROUP_C: readonly Column[] = group(
  'string',
  ['custom_event_campaign_id', 'custom_event_lead_id', 'custom_event_contact_id', 'custom_event_opportunity_id', 'custom_event_detail_1', 'custom_event_detail_2', 'custom_event_note'],
  'event',
).map((c) => ({ ...c, source: 'custom', classification: 'CUSTOM_CRM_FIELD' }));

/** The opp_* columns from `opp_crm_account_id` through `opp_pt_status` (Group D). */
export const GROUP_D: readonly Column[] = [
  column('opp_crm_account_id', 'string', { group: 'opportunity' }),
  column('opp_stage_name', 'string', { group: 'opportunity' }),
  column('opp_close_date', 'date', { group: 'opportunity' }),
  column('opp_is_won', 'boolean', { group: 'opportunity' }),
  column('opp_opportunity_type', 'string', { group: 'opportunity' }),
  column('opp_is_closed', 'boolean', { group: 'opportunity' }),
  column('opp_opportunity_owner_name', 'name', { group: 'opportunity' }),
  column('opp_opportunity_owner_email', 'email', { group: 'opportunity' }),
  column('opp_opportunity_owner_title', 'title', { group: 'opportunity' }),
  column('opp_opportunity_owner_phone', 'phone', { group: 'opportunity' }),
  column('opp_last_modified_date', 'date', { group: 'opportunity' }),
  column('opp_account_name', 'string', { group: 'opportunity' }),
  column('opp_probability', 'number', { group: 'opportunity' }),
  column('opp_expected_revenue', 'currency', { group: 'opportunity' }),
  column('opp_pt_status', 'string', { group: 'opportunity' }),
];
