/**
 * PARTNER_ORG_MATCHED_ACCOUNTS (spec 2.10): the caller's accounts matched with one
 * partner. Partner columns (`partnerFields`) are added per request from that partner's
 * share settings (plan.ts); their values were masked at import.
 */
import { column } from './column.js';
import type { ReportDefinition } from './types.js';

const text = (key: string, col: string) => column(key, 'string', { column: col });

export const PARTNER_ORG_MATCHED_ACCOUNTS: ReportDefinition = {
  id: 'PARTNER_ORG_MATCHED_ACCOUNTS',
  title: 'Matched Accounts',
  table: 'rpt_matched_accounts',
  shape: 'table',
  context: 'none',
  customEntities: ['account'],
  defaultOrder: 'accountName, crmAccountId, then the partner account',
  partnerColumn: 'partner_org_id',
  aliases: { name: 'accountName' },
  columns: [
    text('accountName', 'account_name'),
    text('dunsNumber', 'duns_number'),
    column('companyPartnerPublicId', 'string', { column: 'company_partner_public_id', title: 'Company Partner Public ID' }),
    text('crmRecordId', 'crm_record_id'),
    text('prmRecordId', 'prm_record_id'),
    text('partnerType', 'partner_type'),
    text('accountType', 'account_type'),
    text('city', 'city'),
    text('country', 'country'),
    text('crmAccountId', 'crm_account_id'),
    column('parent_account_id', 'string', { title: 'Parent Account ID' }),
    text('divisions', 'divisions'),
    text('industry', 'industry'),
    text('naicsCode', 'naics_code'),
    text('ncesId', 'nces_id'),
    text('sicCode', 'sic_code'),
    text('state', 'state'),
    text('street', 'street'),
    text('territory', 'territory'),
    text('website', 'website'),
    text('zipCode', 'zip_code'),
    column('companyPartnerName', 'name', { column: 'company_partner_name' }),
    column('partnerOwner', 'name', { column: 'partner_owner' }),
    column('avgDealSize', 'currency', { column: 'avg_deal_size', title: 'Avg Deal Size' }),
    column('annualRevenue', 'currency', { column: 'annual_revenue' }),
    column('isCustomer', 'boolean', { column: 'is_customer' }),
    column('numberOfEmployees', 'number', { column: 'number_of_employees' }),
    column('openOppCount', 'number', { column: 'open_opp_count' }),
    column('closedOppCount', 'number', { column: 'closed_opp_count' }),
  ],
};
