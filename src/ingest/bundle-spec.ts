/**
 * The dataset bundle of contract section 7 as data: for each file, its fields (bundle
 * path, type, whether required, the column it loads into), its natural key and the
 * table it upserts. Reading, validation, staging and loading are all driven by this.
 */

export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'uuid' | 'stringList' | 'custom' | 'subtypes';

export interface FieldSpec {
  /** Path in the bundle record (`owner.email` for nested objects). */
  path: string;
  type: FieldType;
  required?: boolean;
  /** Allowed values (strings). */
  oneOf?: readonly string[];
  /** Non-negative numbers only. */
  nonNegative?: boolean;
  /** The largest value allowed (the column's type holds no more). */
  max?: number;
  /** The longest value allowed, in UTF-8 bytes (identifiers: `id`). */
  maxBytes?: number;
  /** Column of the staging (and target) table. */
  column: string;
}

export interface EntitySpec {
  /** Entity name used in counts and file names (`accounts` -> accounts.ndjson / accounts.csv). */
  name: string;
  csv: boolean;
  table: string;
  fields: readonly FieldSpec[];
  /** Nested objects and their allowed keys. */
  objects: Readonly<Record<string, readonly string[]>>;
  /** Staging columns that form the natural key, in order. */
  key: readonly string[];
  /** Custom field entity whose definitions type `custom` values. */
  customEntity?: 'account' | 'opportunity' | 'event';
}

/**
 * The keys of an event's `custom` object that contract 7 names, and the attribution
 * reports' Group C columns that show them (spec 2.5: all string). A value of one of them
 * must be a string (or null) unless a custom field definition of the event types its key.
 */
export const EVENT_DETAIL_COLUMNS: Readonly<Record<string, string>> = {
  campaignId: 'custom_event_campaign_id', leadId: 'custom_event_lead_id', contactId: 'custom_event_contact_id',
  opportunityId: 'custom_event_opportunity_id', detail1: 'custom_event_detail_1', detail2: 'custom_event_detail_2', note: 'custom_event_note',
};

const f = (path: string, type: FieldType, column: string, extra: Partial<FieldSpec> = {}): FieldSpec => ({ path, type, column, ...extra });
const req = { required: true } as const;
const count = { nonNegative: true } as const;
/** A count stored in an `integer` column (migration 0001): larger values failed the load with "integer out of range". */
const count32 = { nonNegative: true, max: 2 ** 31 - 1 } as const;
/**
 * Identifiers (natural keys and the references to them) are index keys: a btree entry
 * holds about 2,700 bytes at most, and account_matches' key holds two of them. A longer
 * one failed the load with "index row size ... exceeds maximum"; it is a problem of its
 * line instead. (Other text is not limited: the report indexes that hold whole values
 * are left out when a value does not fit, materialize.ts createReportIndex.)
 */
export const ID_MAX_BYTES = 1_000;
const id = { maxBytes: ID_MAX_BYTES } as const;
const reqId = { required: true, maxBytes: ID_MAX_BYTES } as const;

/**
 * In the order of the contract's table: the order files are read, problems are sorted
 * and counts are listed. It is also a valid load order (organizations first, custom
 * field definitions before the records whose custom values they type).
 */
export const ENTITIES: readonly EntitySpec[] = [
  {
    name: 'orgs', csv: false, table: 'orgs', objects: {}, key: ['public_id'],
    fields: [
      f('publicId', 'uuid', 'public_id', req), f('name', 'string', 'name', req), f('website', 'string', 'website'),
      f('street', 'string', 'street'), f('city', 'string', 'city'), f('state', 'string', 'state'),
      f('zipCode', 'string', 'zip_code'), f('country', 'string', 'country'),
      f('attributionWindowDays', 'integer', 'attribution_window_days', count32),
    ],
  },
  {
    name: 'users', csv: false, table: 'users', objects: {}, key: ['org', 'email'],
    fields: [
      f('org', 'uuid', 'org', req), f('email', 'string', 'email', reqId), f('name', 'string', 'name', req), f('title', 'string', 'title'),
      f('phone', 'string', 'phone'), f('division', 'string', 'division'), f('role', 'string', 'role', { oneOf: ['ADMIN', 'MEMBER'] }),
    ],
  },
  {
    name: 'partnerships', csv: false, table: 'partnerships', objects: { owner: ['name', 'email', 'phone'] }, key: ['org', 'partner'],
    fields: [
      f('org', 'uuid', 'org', req), f('partner', 'uuid', 'partner', req), f('status', 'string', 'status', { required: true, oneOf: ['CONNECTED', 'PENDING', 'DISCONNECTED'] }),
      f('mutual', 'boolean', 'mutual'), f('partnerType', 'string', 'partner_type'), f('recommended', 'boolean', 'recommended'),
      f('firstConnectedDate', 'date', 'first_connected_date'), f('mostRecentConnectedDate', 'date', 'most_recent_connected_date'),
      f('lastPartnerSheetUploadDate', 'date', 'last_partner_sheet_upload_date'), f('activeConnections', 'integer', 'active_connections', count32),
      f('spreadsheetsShared', 'integer', 'spreadsheets_shared', count32), f('owner.name', 'string', 'owner_name'), f('owner.email', 'string', 'owner_email'),
      f('owner.phone', 'string', 'owner_phone'), f('crmRecordId', 'string', 'crm_record_id'), f('prmRecordId', 'string', 'prm_record_id'),
      f('averageReferralDealSize', 'number', 'average_referral_deal_size'), f('sharedFields', 'stringList', 'shared_fields'),
    ],
  },
  {
    name: 'custom_fields', csv: false, table: 'custom_fields', objects: {}, key: ['org', 'entity', 'key'],
    fields: [
      f('org', 'uuid', 'org', req), f('entity', 'string', 'entity', { required: true, oneOf: ['account', 'opportunity', 'event'] }),
      f('key', 'string', 'key', reqId), f('title', 'string', 'title', req),
      f('type', 'string', 'type', { required: true, oneOf: ['string', 'number', 'currency', 'date', 'boolean'] }),
      f('classification', 'string', 'classification', { required: true, oneOf: ['CUSTOM_CRM_FIELD', 'CUSTOM_CRM_OBJECT'] }),
    ],
  },
  {
    name: 'accounts', csv: true, table: 'accounts', customEntity: 'account', key: ['org', 'crm_account_id'],
    objects: { owner: ['name', 'email', 'title', 'phone', 'division'], customOwner: ['name', 'email', 'title'] },
    fields: [
      f('org', 'uuid', 'org', req), f('crmAccountId', 'string', 'crm_account_id', reqId), f('name', 'string', 'name', req),
      f('accountType', 'string', 'account_type'), f('parentCrmAccountId', 'string', 'parent_crm_account_id', id),
      f('street', 'string', 'street'), f('city', 'string', 'city'), f('state', 'string', 'state'), f('zipCode', 'string', 'zip_code'),
      f('country', 'string', 'country'), f('website', 'string', 'website'), f('industry', 'string', 'industry'),
      f('territory', 'string', 'territory'), f('divisions', 'string', 'divisions'),
      f('numberOfEmployees', 'integer', 'number_of_employees', count), f('annualRevenue', 'number', 'annual_revenue'),
      f('accountAcv', 'number', 'account_acv'), f('openPipelineAmount', 'number', 'open_pipeline_amount'),
      f('openOppCount', 'integer', 'open_opp_count', count), f('closedOppCount', 'integer', 'closed_opp_count', count),
      f('closedWonOppCount', 'integer', 'closed_won_opp_count', count), f('isCustomer', 'boolean', 'is_customer'),
      f('sicCode', 'string', 'sic_code'), f('naicsCode', 'string', 'naics_code'), f('ncesId', 'string', 'nces_id'),
      f('dunsNumber', 'string', 'duns_number'), f('taxId', 'string', 'tax_id'), f('phoneNumber', 'string', 'phone_number'),
      f('owner.name', 'string', 'owner_name'), f('owner.email', 'string', 'owner_email'), f('owner.title', 'string', 'owner_title'),
      f('owner.phone', 'string', 'owner_phone'), f('owner.division', 'string', 'owner_division'),
      f('customOwner.name', 'string', 'custom_owner_name'), f('customOwner.email', 'string', 'custom_owner_email'),
      f('customOwner.title', 'string', 'custom_owner_title'), f('recentOpenOppDate', 'date', 'recent_open_opp_date'),
      f('recentClosedOppDate', 'date', 'recent_closed_opp_date'), f('custom', 'custom', 'custom'),
    ],
  },
  {
    name: 'opportunities', csv: true, table: 'opportunities', customEntity: 'opportunity', key: ['org', 'crm_opportunity_id'],
    objects: { owner: ['name', 'email', 'title', 'phone'] },
    fields: [
      f('org', 'uuid', 'org', req), f('crmOpportunityId', 'string', 'crm_opportunity_id', reqId), f('crmAccountId', 'string', 'crm_account_id', reqId),
      f('name', 'string', 'name', req), f('createdDate', 'date', 'created_date', req), f('amount', 'number', 'amount'),
      f('stageName', 'string', 'stage_name'), f('closeDate', 'date', 'close_date'), f('isWon', 'boolean', 'is_won'),
      f('isClosed', 'boolean', 'is_closed'), f('opportunityType', 'string', 'opportunity_type'),
      f('owner.name', 'string', 'owner_name'), f('owner.email', 'string', 'owner_email'), f('owner.title', 'string', 'owner_title'),
      f('owner.phone', 'string', 'owner_phone'), f('lastModifiedDate', 'date', 'last_modified_date'),
      f('probability', 'number', 'probability'), f('expectedRevenue', 'number', 'expected_revenue'), f('custom', 'custom', 'custom'),
    ],
  },
  {
    name: 'account_matches', csv: false, table: 'account_matches', objects: {}, key: ['org', 'crm_account_id', 'partner', 'partner_crm_account_id'],
    fields: [
      f('org', 'uuid', 'org', req), f('crmAccountId', 'string', 'crm_account_id', reqId), f('partner', 'uuid', 'partner', req),
      f('partnerCrmAccountId', 'string', 'partner_crm_account_id', reqId), f('firstMatchDate', 'date', 'first_match_date', req),
    ],
  },
  {
    name: 'event_types', csv: false, table: 'event_types', objects: {}, key: ['code'],
    fields: [f('code', 'string', 'code', reqId), f('displayName', 'string', 'display_name', req), f('group', 'string', 'group_name', req), f('subtypes', 'subtypes', 'subtypes', req)],
  },
  {
    name: 'events', csv: false, table: 'events', customEntity: 'event', key: ['org', 'event_id'],
    objects: { user: ['name', 'email', 'title'] },
    fields: [
      f('org', 'uuid', 'org', req), f('eventId', 'string', 'event_id', reqId), f('eventDate', 'date', 'event_date', req),
      f('eventTypeCode', 'string', 'event_type_code', reqId), f('eventSubtypeCode', 'string', 'event_subtype_code', id),
      f('crmAccountId', 'string', 'crm_account_id', reqId), f('partner', 'uuid', 'partner', req),
      f('eventSource', 'string', 'event_source'), f('eventName', 'string', 'event_name'), f('eventDescription', 'string', 'event_description'),
      f('user.name', 'string', 'user_name'), f('user.email', 'string', 'user_email'), f('user.title', 'string', 'user_title'),
      f('sourceLink', 'string', 'source_link'), f('custom', 'custom', 'custom'),
    ],
  },
];

export const ENTITY_BY_NAME: ReadonlyMap<string, EntitySpec> = new Map(ENTITIES.map((e) => [e.name, e]));

/** SQL type of a staging column. */
export function stagingType(type: FieldType): string {
  switch (type) {
    case 'integer':
    case 'date':
      return 'bigint';
    case 'number':
      return 'double precision';
    case 'boolean':
      return 'boolean';
    case 'stringList':
    case 'custom':
    case 'subtypes':
      return 'jsonb';
    default:
      return 'text';
  }
}
