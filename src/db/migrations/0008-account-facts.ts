/**
 * `rpt_account_facts`: the narrow copy of `rpt_global_accounts` that filtered counts read
 * (src/reports/narrow-copies.ts says which columns and why). Its columns take their types
 * from the report table; test/reports/narrow-copies.test.ts checks that this list and
 * ACCOUNT_FACT_COLUMNS stay the same. Rebuilt with the report tables at import.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table if not exists rpt_account_facts as
    select org_id, rid, partner_org_id,
      annual_revenue, account_acv, open_pipeline_amount, number_of_employees, open_opp_count, closed_opp_count,
      recent_open_opp_date, recent_closed_opp_date, partner_count, partner_account_acv, partner_open_pipeline_amount,
      partner_open_opp, partner_closed_opp, partner_closed_opp_won_count, partner_first_match_date, average_referral_deal_size,
      account_type, city, state, country, industry, territory, partner_org_name, partner_account_type,
      crm_account_id, is_customer, partner_org_public_id
    from rpt_global_accounts with no data`.execute(db);
  await sql`alter table rpt_account_facts add primary key (org_id, rid)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists rpt_account_facts`.execute(db);
}
