/**
 * An index on `rpt_attribution_facts (org_id, opp_created_date)`: a "last N days" window
 * on the opportunities' creation date is pinned to the earliest stored creation date at
 * or after its start (src/reports/date-windows.ts), one index probe per request. The
 * import builds it with the report tables (src/ingest/materialize.ts REPORT_INDEXES);
 * this creates it on a database imported before.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists rpt_attribution_facts_created on rpt_attribution_facts (org_id, opp_created_date)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists rpt_attribution_facts_created`.execute(db);
}
