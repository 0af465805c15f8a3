/**
 * The stored unfiltered dashboards (rpt_dashboards) written by earlier imports counted an
 * account's open pipeline once per matched partner account in its partner's figures, and
 * summed amounts as doubles (query-dashboard.ts now sums each account once, as numeric).
 * They are dropped: the service computes a dashboard that has no stored row (the same
 * figures, a little slower) until the next import stores it again.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`delete from rpt_dashboards`.execute(db);
}

export async function down(): Promise<void> {
  // Nothing to restore: the next import writes the stored dashboards again.
}
