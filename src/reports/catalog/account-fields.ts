/**
 * The account fields of the dataset bundle (contract section 7) that a partner can share,
 * with the column that stores each one and the key it gets in a matched account's
 * `partnerFields`. This is the one place that knows how a share setting (`sharedFields`
 * of a partnership) maps onto report values: materialize.ts builds the masked columns
 * and the `partnerFields` object from it, the channel catalog builds partner columns.
 *
 * Share names: a field name (`accountType`), a nested owner field (`owner.email`), a
 * whole nested object (`owner` shares every owner field) or `custom.<key>`.
 * partnerFields keys are `partner` + the field's column key lower-cased; the account
 * name's column key is `accountName` (matched-account standard keys, spec 2.10), so it
 * is `partneraccountname`, as in the specification's sample record.
 */
import type { ColumnType } from './types.js';

export interface AccountField {
  /** Field path in the bundle (`zipCode`, `owner.email`). */
  field: string;
  /** Column of the `accounts` table. */
  column: string;
  /** Key inside a matched account's `partnerFields`. */
  partnerKey: string;
  /** Title of the partner column. */
  title: string;
  type: ColumnType;
  /** Share names that reveal this field. */
  sharedBy: string[];
}

function field(fieldPath: string, column: string, type: ColumnType, title: string, partnerKey?: string): AccountField {
  const [head] = fieldPath.split('.');
  const sharedBy = fieldPath.includes('.') ? [fieldPath, head!] : [fieldPath];
  return { field: fieldPath, column, type, title, partnerKey: partnerKey ?? `partner${fieldPath.replace(/\./g, '').toLowerCase()}`, sharedBy };
}

/**
 * The owner's keys follow the specification's sample record (spec 2.10: `partnerowneridname`,
 * `partnerowneridemail`, `partnerowneridphone`, `partnerowneridtitle`, a CRM's OwnerId.Name
 * and so on), not the general rule; the division, which the sample does not show, is named
 * like its siblings. The account name's key is the sample's too.
 */
export const ACCOUNT_FIELDS: readonly AccountField[] = [
  field('name', 'name', 'string', 'Partner Account Name', 'partneraccountname'),
  field('crmAccountId', 'crm_account_id', 'string', 'Partner CRM Account ID'),
  field('accountType', 'account_type', 'string', 'Partner Account Type'),
  field('parentCrmAccountId', 'parent_crm_account_id', 'string', 'Partner Parent CRM Account ID'),
  field('street', 'street', 'string', 'Partner Street'),
  field('city', 'city', 'string', 'Partner City'),
  field('state', 'state', 'string', 'Partner State'),
  field('zipCode', 'zip_code', 'string', 'Partner Zip Code'),
  field('country', 'country', 'string', 'Partner Country'),
  field('website', 'website', 'string', 'Partner Website'),
  field('industry', 'industry', 'string', 'Partner Industry'),
  field('territory', 'territory', 'string', 'Partner Territory'),
  field('divisions', 'divisions', 'string', 'Partner Divisions'),
  field('numberOfEmployees', 'number_of_employees', 'number', 'Partner Number of Employees'),
  field('annualRevenue', 'annual_revenue', 'currency', 'Partner Annual Revenue'),
  field('accountAcv', 'account_acv', 'currency', 'Partner Account ACV'),
  field('openPipelineAmount', 'open_pipeline_amount', 'currency', 'Partner Open Pipeline Amount'),
  field('openOppCount', 'open_opp_count', 'number', 'Partner Open Opportunities'),
  field('closedOppCount', 'closed_opp_count', 'number', 'Partner Closed Opportunities'),
  field('closedWonOppCount', 'closed_won_opp_count', 'number', 'Partner Closed Won Opportunities'),
  field('isCustomer', 'is_customer', 'boolean', 'Partner Is Customer'),
  field('sicCode', 'sic_code', 'string', 'Partner SIC Code'),
  field('naicsCode', 'naics_code', 'string', 'Partner NAICS Code'),
  field('ncesId', 'nces_id', 'string', 'Partner NCES ID'),
  field('dunsNumber', 'duns_number', 'string', 'Partner DUNS Number'),
  field('taxId', 'tax_id', 'string', 'Partner Tax ID'),
  field('phoneNumber', 'phone_number', 'string', 'Partner Phone Number'),
  field('owner.name', 'owner_name', 'name', 'Partner Account Owner', 'partnerowneridname'),
  field('owner.email', 'owner_email', 'email', 'Partner Account Owner Email', 'partnerowneridemail'),
  field('owner.title', 'owner_title', 'title', 'Partner Account Owner Title', 'partnerowneridtitle'),
  field('owner.phone', 'owner_phone', 'phone', 'Partner Account Owner Phone', 'partnerowneridphone'),
  field('owner.division', 'owner_division', 'string', 'Partner Account Owner Division', 'partnerowneriddivision'),
  field('customOwner.name', 'custom_owner_name', 'name', 'Partner Custom Owner'),
  field('customOwner.email', 'custom_owner_email', 'email', 'Partner Custom Owner Email'),
  field('customOwner.title', 'custom_owner_title', 'title', 'Partner Custom Owner Title'),
  field('recentOpenOppDate', 'recent_open_opp_date', 'date', 'Partner Recent Open Opportunity Date'),
  field('recentClosedOppDate', 'recent_closed_opp_date', 'date', 'Partner Recent Closed Opportunity Date'),
];

export const ACCOUNT_FIELD_BY_PATH: ReadonlyMap<string, AccountField> = new Map(ACCOUNT_FIELDS.map((f) => [f.field, f]));

/** Every share name import accepts (besides `custom.<key>`). */
export const SHAREABLE_NAMES: ReadonlySet<string> = new Set(ACCOUNT_FIELDS.flatMap((f) => f.sharedBy));

/**
 * partnerFields key of a partner's custom account field: `partner` + the key lower-cased
 * without underscores, as the specification's sample record writes them (spec 2.10:
 * `partnerpartnereddate`, `partnersystemssold`, `partnertargetorgsize`). materialize.ts
 * writes the same keys in SQL (`partnerCustomKeySql`).
 */
export function partnerCustomKey(key: string): string {
  return `partner${key.toLowerCase().replace(/_/g, '')}`;
}

/** partnerCustomKey in SQL, over a text expression. */
export const partnerCustomKeySql = (expr: string): string => `'partner' || replace(lower(${expr}), '_', '')`;
