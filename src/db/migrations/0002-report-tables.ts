/**
 * Materialized report tables, rebuilt by every import (src/ingest/materialize.ts).
 * Imports are the only writes, so each report is one wide, tenant-first table whose
 * column names are the API names of the catalog: a report query is a plain scan with
 * the filters, sort and page of the request, and nothing is joined at request time.
 *
 * Partner values the partner does not share are written as NULL here (and absent from
 * `partner_fields`), so no filter, sort, search, CSV or total can ever see them.
 * `rid` is a dense per-table row id in the report's default order: the unique
 * tie-breaker of every sort and the seek key of deep pages.
 */
import { sql, type Kysely } from 'kysely';

// Column groups shared by several report tables (the names are API names).
const ACCOUNT_GLOBAL = `
  account_type text, crm_account_id text, duns_number text, street text, city text, state text,
  zip_code text, country text, industry text, territory text, divisions text, website text,
  naics_code text, sic_code text, phone_number text, tax_id text, nces_id text,
  annual_revenue double precision, account_acv double precision, open_pipeline_amount double precision,
  number_of_employees bigint, open_opp_count bigint, closed_opp_count bigint,
  recent_open_opp_date bigint, recent_closed_opp_date bigint`;

const PARTNER_GLOBAL = `
  partner_count bigint,
  partner_account_name text, partner_org_name text, partner_account_type text, partner_crm_account_id text,
  partner_account_acv double precision, partner_open_pipeline_amount double precision,
  partner_open_opp double precision, partner_closed_opp double precision, partner_closed_opp_won_count double precision,
  partner_first_match_date bigint,
  partner_account_owner_name text, partner_account_owner_email text, partner_account_owner_title text, partner_account_owner_phone text,
  partner_website text, prm_record_id text, partner_owner text, partner_owner_email text, partner_owner_phone text,
  partner_org_partner_type text, partner_street text, partner_city text, partner_state text, partner_postal_code text,
  partner_country text, average_referral_deal_size double precision,
  partner_org_public_id text`;

// Group A of spec 2.5 (account columns of the attribution reports).
const GROUP_A = `
  account_type text, street text, city text, state text, zip_code text, country text,
  website text, industry text, territory text,
  number_of_employees bigint, open_opp_count bigint, closed_opp_count bigint, closed_won_opp_count bigint,
  is_customer boolean,
  annual_revenue double precision, account_acv double precision, open_pipeline_amount double precision,
  sic_code text, naics_code text, nces_id text, duns_number text, phone_number text,
  owner_name text, owner_email text, owner_title text, owner_phone text, owner_division text`;

// Group B (partner organization columns).
const GROUP_B = `
  partner_street text, partner_city text, partner_state text, partner_country text, partner_zip_code text,
  partner_owner_name text, partner_owner_email text, partner_owner_phone text,
  partner_type text, partner_status text, partner_website text, partner_crm_record_id text, partner_prm_record_id text,
  partner_average_referral_deal_size double precision`;

// Group C (custom event columns).
const GROUP_C = `
  custom_event_campaign_id text, custom_event_lead_id text, custom_event_contact_id text,
  custom_event_opportunity_id text, custom_event_detail_1 text, custom_event_detail_2 text, custom_event_note text`;

// The opp_* columns of spec 2.4 / Group D.
const OPP = `
  opp_name text, opp_amount double precision, opp_created_date bigint,
  opp_crm_opportunity_id text, opp_crm_account_id text, opp_stage_name text, opp_close_date bigint,
  opp_is_won boolean, opp_opportunity_type text, opp_is_closed boolean,
  opp_opportunity_owner_name text, opp_opportunity_owner_email text, opp_opportunity_owner_title text,
  opp_opportunity_owner_phone text, opp_last_modified_date bigint, opp_account_name text,
  opp_probability double precision, opp_expected_revenue double precision, opp_pt_status text`;

const EVENT = `
  event_date bigint, event_type_code text, event_subtype_code text,
  event_type_display_name text, event_subtype_display_name text, event_group_display_name text,
  event_source text, event_name text, event_description text,
  event_user_name text, event_user_email text, event_user_title text,
  company_partner_public_id text, event_source_link text,
  top_parent_crm_account_id text, top_parent_crm_account_name text`;

export const REPORT_TABLES = {
  rpt_global_accounts: `
    org_id integer not null, rid bigint not null, partner_org_id integer not null,
    account_name text, account_owner_name text, account_owner_email text, account_owner_title text,
    is_customer boolean,
    ${ACCOUNT_GLOBAL},
    ${PARTNER_GLOBAL},
    customownername text, customowneremail text, customownertitle text,
    custom jsonb not null default '{}'`,
  rpt_global_opportunities: `
    org_id integer not null, rid bigint not null, partner_org_id integer not null,
    account_name text, org_name text, opportunity_name text, amount double precision, crm_created_date bigint,
    stage_name text, close_date bigint, opportunity_owner_name text, opportunity_owner_email text,
    opportunity_owner_title text, opportunity_owner_phone text, opportunity_type text,
    probability double precision, expected_revenue double precision, is_closed boolean, is_won boolean,
    last_modified_date bigint, crm_opportunity_id text,
    ${ACCOUNT_GLOBAL},
    ${PARTNER_GLOBAL},
    custom jsonb not null default '{}'`,
  rpt_attribution_events: `
    org_id integer not null, rid bigint not null, partner_org_id integer not null,
    account_name text, partner_org_name text, crm_account_id text,
    ${EVENT},
    ${GROUP_C},
    ${GROUP_A},
    ${GROUP_B},
    custom jsonb not null default '{}'`,
  rpt_new_opportunities: `
    org_id integer not null, rid bigint not null,
    top_parent_crm_account_id text, top_parent_crm_account_name text,
    ${OPP},
    custom jsonb not null default '{}'`,
  rpt_attribution_links: `
    org_id integer not null, rid bigint not null, opp_rid bigint not null, partner_org_id integer not null,
    account_name text, partner_org_name text, number_days_to_new_opp bigint,
    ${EVENT},
    ${OPP},
    ${GROUP_C},
    ${GROUP_A},
    ${GROUP_B},
    custom jsonb not null default '{}'`,
  rpt_connected_partners: `
    org_id integer not null, rid bigint not null, partner_org_id integer not null, mutual boolean not null,
    partner_name text, partner_website text, company_partner_public_id text, partner_type text,
    recommended boolean, first_connected_date bigint, most_recent_connected_date bigint,
    last_partner_sheet_upload_date bigint, active_connections bigint, spreadsheets_shared bigint,
    partner_owner text, partner_owner_email text, partner_owner_phone text`,
  rpt_matched_accounts: `
    org_id integer not null, rid bigint not null, partner_org_id integer not null, same_location boolean not null,
    account_name text, duns_number text, company_partner_public_id text, crm_record_id text, prm_record_id text,
    partner_type text, account_type text, city text, country text, crm_account_id text, parent_account_id text,
    divisions text, industry text, naics_code text, nces_id text, sic_code text, state text, street text,
    territory text, website text, zip_code text, company_partner_name text, partner_owner text,
    avg_deal_size double precision, annual_revenue double precision, is_customer boolean,
    number_of_employees bigint, open_opp_count bigint, closed_opp_count bigint,
    custom jsonb not null default '{}',
    partner_fields jsonb not null default '{}'`,
} as const;

export type ReportTable = keyof typeof REPORT_TABLES;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [table, columns] of Object.entries(REPORT_TABLES)) {
    // search_text: the row's searchable text (textual columns and string custom values,
    // lower-cased at import and separated by U+001F), so free-text search is one LIKE
    // per term (see materialize.ts and query.ts).
    await sql`create table ${sql.table(table)} (${sql.raw(columns)}, search_text text, primary key (org_id, rid))`.execute(db);
  }
  // Secondary indexes are created by materialize.ts after each rebuild (cheaper than
  // maintaining them row by row during the bulk insert).
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of Object.keys(REPORT_TABLES)) {
    await sql`drop table if exists ${sql.table(table)}`.execute(db);
  }
}
