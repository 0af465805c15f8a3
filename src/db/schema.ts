/**
 * Kysely table types of the domain tables (migration 0001). The materialized report
 * tables are not typed here: they are only read through the report catalog, whose
 * column definitions are their type.
 */
import type { ColumnType, Generated } from 'kysely';

type Json = ColumnType<unknown, string, string>;
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface OrgsTable {
  id: Generated<number>;
  public_id: string;
  name: string;
  website: string | null;
  street: string | null;
  city: string | null;
  state: string | null;
  zip_code: string | null;
  country: string | null;
  attribution_window_days: Generated<number>;
}

export interface UsersTable {
  org_id: number;
  id: Generated<number>;
  email: string;
  name: string;
  title: string | null;
  phone: string | null;
  division: string | null;
  role: Generated<'ADMIN' | 'MEMBER'>;
  password_hash: string | null;
}

export interface PartnershipsTable {
  org_id: number;
  partner_org_id: number;
  status: 'CONNECTED' | 'PENDING' | 'DISCONNECTED';
  mutual: boolean | null;
  partner_type: string | null;
  recommended: boolean | null;
  first_connected_date: number | null;
  most_recent_connected_date: number | null;
  last_partner_sheet_upload_date: number | null;
  active_connections: number | null;
  spreadsheets_shared: number | null;
  owner_name: string | null;
  owner_email: string | null;
  owner_phone: string | null;
  crm_record_id: string | null;
  prm_record_id: string | null;
  average_referral_deal_size: number | null;
  shared_fields: Json;
  position: Generated<number>;
}

export interface CustomFieldsTable {
  org_id: number;
  entity: 'account' | 'opportunity' | 'event';
  key: string;
  title: string;
  type: 'string' | 'number' | 'currency' | 'date' | 'boolean';
  classification: 'CUSTOM_CRM_FIELD' | 'CUSTOM_CRM_OBJECT';
  position: Generated<number>;
}

export interface EventTypesTable {
  code: string;
  display_name: string;
  group_name: string;
  subtypes: Json;
  position: Generated<number>;
}

export interface ApiKeysTable {
  id: string;
  org_id: number;
  user_id: number | null;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

export interface ServiceStateTable {
  key: string;
  value: string;
}

/** Tables read or written through Kysely's typed builder. */
export interface Schema {
  orgs: OrgsTable;
  users: UsersTable;
  partnerships: PartnershipsTable;
  custom_fields: CustomFieldsTable;
  event_types: EventTypesTable;
  api_keys: ApiKeysTable;
  service_state: ServiceStateTable;
}
