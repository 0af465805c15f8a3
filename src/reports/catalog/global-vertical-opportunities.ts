/** GLOBAL_VERTICAL_OPPORTUNITIES (spec 2.9): one opportunity on a matched account, once per matched partner. */
import { column, group } from './column.js';
import { GLOBAL_PARTNER_COLUMNS, PARTNER_ORG_PUBLIC_ID } from './global-groups.js';
import type { ReportDefinition } from './types.js';

export const GLOBAL_VERTICAL_OPPORTUNITIES: ReportDefinition = {
  id: 'GLOBAL_VERTICAL_OPPORTUNITIES',
  title: 'Global Vertical Opportunities',
  table: 'rpt_global_opportunities',
  shape: 'table',
  context: 'none',
  customEntities: ['opportunity'],
  defaultOrder: 'account_name, opportunity_name, crm_opportunity_id, partner_org_name, partnerOrgPublicId, then the partner account',
  partnerColumn: 'partner_org_id',
  columns: [
    column('account_name', 'string', { group: 'opportunity' }),
    column('org_name', 'string', { group: 'opportunity' }),
    column('opportunity_name', 'string', { group: 'opportunity' }),
    column('amount', 'currency', { group: 'opportunity' }),
    column('crm_created_date', 'date', { group: 'opportunity' }),
    column('stage_name', 'string', { group: 'opportunity' }),
    column('close_date', 'date', { group: 'opportunity' }),
    column('opportunity_owner_name', 'name', { group: 'opportunity' }),
    column('opportunity_owner_email', 'email', { group: 'opportunity' }),
    column('opportunity_owner_title', 'title', { group: 'opportunity' }),
    column('opportunity_owner_phone', 'phone', { group: 'opportunity' }),
    column('opportunity_type', 'string', { group: 'opportunity' }),
    column('probability', 'number', { group: 'opportunity' }),
    column('expected_revenue', 'currency', { group: 'opportunity' }),
    column('is_closed', 'boolean', { group: 'opportunity' }),
    column('is_won', 'boolean', { group: 'opportunity' }),
    column('last_modified_date', 'date', { group: 'opportunity' }),
    column('crm_opportunity_id', 'string', { group: 'opportunity' }),
    ...group(
      'string',
      ['account_type', 'crm_account_id', 'duns_number', 'street', 'city', 'state', 'zip_code', 'country', 'industry', 'territory', 'divisions', 'website', 'naics_code', 'sic_code'],
      'account',
    ),
    column('annual_revenue', 'currency', { group: 'account' }),
    ...group('number', ['number_of_employees', 'open_opp_count', 'closed_opp_count'], 'account'),
    column('phone_number', 'string', { group: 'account' }),
    ...group('date', ['recent_open_opp_date', 'recent_closed_opp_date'], 'account'),
    column('tax_id', 'string', { group: 'account' }),
    ...group('currency', ['account_acv', 'open_pipeline_amount'], 'account'),
    column('nces_id', 'string', { group: 'account' }),
    ...GLOBAL_PARTNER_COLUMNS,
    PARTNER_ORG_PUBLIC_ID,
  ],
};
