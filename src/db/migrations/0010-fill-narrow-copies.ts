/**
 * Fills the narrow copies (migrations 0004, 0007, 0008) of a database whose report rows
 * were imported before those tables existed. Those migrations create the copies empty and
 * the import fills them; without this, a server upgraded over such a database (no import
 * since) would count, list filter values of and total an empty copy: zero where the report
 * rows hold millions. A copy is filled when it is empty and its report table is not, from
 * the report rows, with the columns and order the import writes (src/ingest/materialize.ts
 * `insertCopy`; test/ingest/fill-narrow-copies.test.ts compares the two). Stored CSV lines
 * (migration 0009) need nothing: a download uses them only when their fingerprint matches.
 */
import { sql, type Kysely } from 'kysely';

/** [copy, report table, columns besides org_id, rid and partner_org_id, order] as of migration 0008. */
const COPIES: ReadonlyArray<readonly [string, string, string, string]> = [
  ['rpt_attribution_facts', 'rpt_attribution_links', 'opp_rid, event_date, opp_created_date, event_type_code, event_subtype_code', 'org_id, event_date'],
  ['rpt_event_facts', 'rpt_attribution_events', 'event_date, event_type_code', 'org_id, event_date'],
  [
    'rpt_account_facts',
    'rpt_global_accounts',
    `annual_revenue, account_acv, open_pipeline_amount, number_of_employees, open_opp_count, closed_opp_count,
      recent_open_opp_date, recent_closed_opp_date, partner_count, partner_account_acv, partner_open_pipeline_amount,
      partner_open_opp, partner_closed_opp, partner_closed_opp_won_count, partner_first_match_date, average_referral_deal_size,
      account_type, city, state, country, industry, territory, partner_org_name, partner_account_type,
      crm_account_id, is_customer, partner_org_public_id`,
    'org_id, rid',
  ],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  // Filling a copy of millions of rows outlasts a request's statement timeout; lifted for
  // the migrations' transaction only.
  await sql`set local statement_timeout = 0`.execute(db);
  for (const [copy, source, columns, order] of COPIES) {
    const list = `org_id, rid, partner_org_id, ${columns}`;
    await sql
      .raw(`insert into ${copy} (${list}) select ${list} from ${source}
        where not exists (select 1 from ${copy}) order by ${order}`)
      .execute(db);
  }
}

export async function down(): Promise<void> {
  // Nothing to undo: the rows are what the import would have written.
}
