/** GLOBAL_VERTICAL_ACCOUNTS (spec 2.8): one (caller account, connected partner) match. */
import { column, group } from './column.js';
import { GLOBAL_PARTNER_COLUMNS, PARTNER_ORG_PUBLIC_ID } from './global-groups.js';
import type { ReportDefinition } from './types.js';

export const GLOBAL_VERTICAL_ACCOUNTS: ReportDefinition = {
  id: 'GLOBAL_VERTICAL_ACCOUNTS',
  title: 'Global Vertical Accounts',
  table: 'rpt_global_accounts',
  shape: 'table',
  context: 'none',
  customEntities: ['account'],
  defaultOrder: 'account_name, crm_account_id, partner_org_name, partnerOrgPublicId, then the partner account',
  partnerColumn: 'partner_org_id',
  columns: [
    ...group('string', ['account_name', 'account_type'], 'account'),
    column('account_owner_name', 'name', { group: 'account' }),
    column('account_owner_email', 'email', { group: 'account' }),
    column('account_owner_title', 'title', { group: 'account' }),
    ...group(
      'string',
      ['crm_account_id', 'duns_number', 'street', 'city', 'state', 'zip_code', 'country', 'industry', 'territory', 'divisions', 'website', 'naics_code', 'sic_code', 'phone_number', 'tax_id', 'nces_id'],
      'account',
    ),
    ...group('currency', ['annual_revenue', 'account_acv', 'open_pipeline_amount'], 'account'),
    ...group('number', ['number_of_employees', 'open_opp_count', 'closed_opp_count'], 'account'),
    ...group('date', ['recent_open_opp_date', 'recent_closed_opp_date'], 'account'),
    ...GLOBAL_PARTNER_COLUMNS,
    column('customownername', 'name', { group: 'account', title: 'Custom Owner Name' }),
    column('customowneremail', 'email', { group: 'account', title: 'Custom Owner Email' }),
    column('customownertitle', 'title', { group: 'account', title: 'Custom Owner Title' }),
    PARTNER_ORG_PUBLIC_ID,
  ],
  // About half of a row's ~350 distinct trigrams came from these (docs/benchmarks.md,
  // fourteenth session); the rest are the account's own identifiers and custom values.
  // At most 30: the search index holds them beside org_id and search_text, and a GIN
  // index takes 32 columns (materialize.ts).
  searchByValue: [
    'account_type', 'account_owner_name', 'account_owner_email', 'account_owner_title', 'city', 'state', 'country', 'industry',
    'territory', 'divisions', 'naics_code', 'sic_code',
    'partner_account_type', 'partner_account_owner_name', 'partner_account_owner_email', 'partner_account_owner_title',
    'partner_account_owner_phone', 'partner_org_name', 'partner_website', 'prm_record_id', 'partner_owner', 'partner_owner_email',
    'partner_owner_phone', 'partner_org_partner_type', 'partner_street', 'partner_city', 'partner_state', 'partner_postal_code',
    'partner_country', 'partnerOrgPublicId',
  ],
};
