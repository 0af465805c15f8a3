/**
 * The dashboards' partner rows that tie on their count are now ordered by the contract's
 * text order (section 2: the lower-cased name, then the name itself, both by code point;
 * then the id), as `sort=` orders text: "Acme Org" before "acme org". The stored
 * unfiltered dashboards of earlier imports kept the old order (lower-cased name, then
 * id), so they are dropped, as 0016 dropped them: the service computes a dashboard that
 * has no stored row until the next import stores it again. The data version moves on, so
 * no cached answer (memory, Redis, an ETag) of the old order is used again.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`delete from rpt_dashboards`.execute(db);
  await sql`update service_state set value = (value::bigint + 1)::text where key = 'data_version'`.execute(db);
}

export async function down(): Promise<void> {
  // Nothing to restore: the next import writes the stored dashboards again.
}
