/**
 * `rpt_account_facts.account_name` (src/reports/narrow-copies.ts ACCOUNT_FACT_NAMES): a
 * "contains" filter on the account's name, alone or with the copy's other columns, then
 * counts the copy. The copy is refilled here from the report rows (not updated in place,
 * which would leave a dead version of every row until a vacuum), so a database imported
 * before this migration answers the same as after its next import. At 2,000,000 rows
 * that takes about a minute, once, longer than a request's statement timeout, which is
 * lifted for the migration's transaction.
 */
import { sql, type Kysely } from 'kysely';

const COLUMNS = `org_id, rid, partner_org_id,
  annual_revenue, account_acv, open_pipeline_amount, number_of_employees, open_opp_count, closed_opp_count,
  recent_open_opp_date, recent_closed_opp_date, partner_count, partner_account_acv, partner_open_pipeline_amount,
  partner_open_opp, partner_closed_opp, partner_closed_opp_won_count, partner_first_match_date, average_referral_deal_size,
  account_type, city, state, country, industry, territory, partner_org_name, partner_account_type,
  crm_account_id, is_customer, partner_org_public_id, account_name`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`set local statement_timeout = 0`.execute(db);
  await sql`alter table rpt_account_facts add column if not exists account_name text`.execute(db);
  await sql`truncate rpt_account_facts`.execute(db);
  await sql.raw(`insert into rpt_account_facts (${COLUMNS}) select ${COLUMNS} from rpt_global_accounts order by org_id, rid`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table rpt_account_facts drop column if exists account_name`.execute(db);
}
