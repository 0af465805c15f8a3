/** Column runs shared by the two global vertical reports (spec 2.8, 2.9). */
import { column, group } from './column.js';
import type { Column } from './types.js';

/** Partner columns; the partner_account_* values and the partner counts are masked by share settings at import. */
export const GLOBAL_PARTNER_COLUMNS: readonly Column[] = [
  column('partner_count', 'number', { group: 'partner' }),
  ...group('string', ['partner_account_name', 'partner_org_name', 'partner_account_type', 'partner_crm_account_id'], 'partner'),
  ...group('currency', ['partner_account_acv', 'partner_open_pipeline_amount', 'partner_open_opp', 'partner_closed_opp', 'partner_closed_opp_won_count'], 'partner'),
  column('partner_first_match_date', 'date', { group: 'partner' }),
  column('partner_account_owner_name', 'name', { group: 'partner' }),
  column('partner_account_owner_email', 'email', { group: 'partner' }),
  column('partner_account_owner_title', 'title', { group: 'partner' }),
  column('partner_account_owner_phone', 'phone', { group: 'partner' }),
  ...group(
    'string',
    ['partner_website', 'prm_record_id', 'partner_owner', 'partner_owner_email', 'partner_owner_phone', 'partner_org_partner_type', 'partner_street', 'partner_city', 'partner_state', 'partner_postal_code', 'partner_country'],
    'partner',
  ),
  column('average_referral_deal_size', 'currency', { group: 'partner' }),
];

export const PARTNER_ORG_PUBLIC_ID: Column = column('partnerOrgPublicId', 'uuid', { column: 'partner_org_public_id', group: 'partner', title: 'Partner Org Public ID' });
