/**
 * The domain of contract sections 6 and 7, as imported from a dataset bundle.
 * Tenant-first: every tenant table's primary key starts with `org_id`, so every report
 * query is an index range scan inside one organization (and the schema could be
 * distributed by organization later).
 * Dates are epoch seconds (bigint); amounts are double precision (JSON numbers).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create extension if not exists pg_trgm`.execute(db);

  await sql`
    create table orgs (
      id serial primary key,
      public_id uuid not null unique,
      name text not null,
      website text, street text, city text, state text, zip_code text, country text,
      attribution_window_days integer not null default 90
    )`.execute(db);

  await sql`
    create table users (
      org_id integer not null references orgs(id),
      id serial not null unique,
      email text not null,
      name text not null,
      title text, phone text, division text,
      role text not null default 'MEMBER' check (role in ('ADMIN', 'MEMBER')),
      password_hash text,
      primary key (org_id, email)
    )`.execute(db);
  await sql`create index users_email on users (lower(email))`.execute(db);

  await sql`
    create table partnerships (
      org_id integer not null references orgs(id),
      partner_org_id integer not null references orgs(id),
      status text not null check (status in ('CONNECTED', 'PENDING', 'DISCONNECTED')),
      mutual boolean,
      partner_type text,
      recommended boolean,
      first_connected_date bigint,
      most_recent_connected_date bigint,
      last_partner_sheet_upload_date bigint,
      active_connections integer,
      spreadsheets_shared integer,
      owner_name text, owner_email text, owner_phone text,
      crm_record_id text, prm_record_id text,
      average_referral_deal_size double precision,
      shared_fields jsonb not null default '[]',
      position integer not null default 0,
      primary key (org_id, partner_org_id)
    )`.execute(db);

  await sql`
    create table custom_fields (
      org_id integer not null references orgs(id),
      entity text not null check (entity in ('account', 'opportunity', 'event')),
      key text not null,
      title text not null,
      type text not null check (type in ('string', 'number', 'currency', 'date', 'boolean')),
      classification text not null check (classification in ('CUSTOM_CRM_FIELD', 'CUSTOM_CRM_OBJECT')),
      position integer not null default 0,
      primary key (org_id, entity, key)
    )`.execute(db);

  await sql`
    create table accounts (
      org_id integer not null references orgs(id),
      crm_account_id text not null,
      name text not null,
      account_type text,
      parent_crm_account_id text,
      top_parent_crm_account_id text,
      street text, city text, state text, zip_code text, country text,
      website text, industry text, territory text, divisions text,
      number_of_employees bigint,
      annual_revenue double precision, account_acv double precision, open_pipeline_amount double precision,
      open_opp_count bigint, closed_opp_count bigint, closed_won_opp_count bigint,
      is_customer boolean,
      sic_code text, naics_code text, nces_id text, duns_number text, tax_id text, phone_number text,
      owner_name text, owner_email text, owner_title text, owner_phone text, owner_division text,
      custom_owner_name text, custom_owner_email text, custom_owner_title text,
      recent_open_opp_date bigint, recent_closed_opp_date bigint,
      custom jsonb not null default '{}',
      primary key (org_id, crm_account_id)
    )`.execute(db);
  await sql`create index accounts_top_parent on accounts (org_id, top_parent_crm_account_id)`.execute(db);

  await sql`
    create table opportunities (
      org_id integer not null references orgs(id),
      crm_opportunity_id text not null,
      crm_account_id text not null,
      name text not null,
      created_date bigint not null,
      amount double precision,
      stage_name text,
      close_date bigint,
      is_won boolean, is_closed boolean,
      opportunity_type text,
      owner_name text, owner_email text, owner_title text, owner_phone text,
      last_modified_date bigint,
      probability double precision,
      expected_revenue double precision,
      custom jsonb not null default '{}',
      primary key (org_id, crm_opportunity_id)
    )`.execute(db);
  await sql`create index opportunities_account on opportunities (org_id, crm_account_id)`.execute(db);

  await sql`
    create table account_matches (
      org_id integer not null references orgs(id),
      crm_account_id text not null,
      partner_org_id integer not null references orgs(id),
      partner_crm_account_id text not null,
      first_match_date bigint not null,
      primary key (org_id, crm_account_id, partner_org_id, partner_crm_account_id)
    )`.execute(db);

  await sql`
    create table event_types (
      code text primary key,
      display_name text not null,
      group_name text not null,
      subtypes jsonb not null default '[]',
      position integer not null default 0
    )`.execute(db);

  await sql`
    create table events (
      org_id integer not null references orgs(id),
      event_id text not null,
      event_date bigint not null,
      event_type_code text not null,
      event_subtype_code text,
      crm_account_id text not null,
      partner_org_id integer not null references orgs(id),
      event_source text, event_name text, event_description text,
      user_name text, user_email text, user_title text,
      source_link text,
      custom jsonb not null default '{}',
      primary key (org_id, event_id)
    )`.execute(db);
  await sql`create index events_account on events (org_id, crm_account_id)`.execute(db);

  await sql`
    create table api_keys (
      id uuid primary key,
      org_id integer not null references orgs(id),
      user_id integer references users(id),
      name text not null,
      prefix text not null,
      key_hash text not null unique,
      created_at timestamptz not null default now(),
      last_used_at timestamptz,
      revoked_at timestamptz
    )`.execute(db);
  await sql`create index api_keys_org on api_keys (org_id, created_at)`.execute(db);

  // Single-row facts about the dataset; data_version is bumped by every import so that
  // caches and ETags keyed on it can never serve a figure from before the import.
  await sql`
    create table service_state (
      key text primary key,
      value text not null
    )`.execute(db);
  await sql`insert into service_state (key, value) values ('data_version', '0')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['service_state', 'api_keys', 'events', 'event_types', 'account_matches', 'opportunities', 'accounts', 'custom_fields', 'partnerships', 'users', 'orgs']) {
    await sql`drop table if exists ${sql.table(t)} cascade`.execute(db);
  }
}
