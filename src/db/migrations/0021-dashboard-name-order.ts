/**
 * The dashboards' partner rows that tie on their count are now ordered by the contract's
 * text order (section 2: the lower-cased name, then the name itself, both by code point;
 * then the id), as `sort=` orders text: "Acme Org" before "acme org". The stored
 * unfiltered dashboards of earlier imports kept the old order (lower-cased name, then
 * id), so they are dropped, as 0016 dropped them: the service computes a dashboard that
 * has no stored row until the next import stores it again. When it dropped any, the data
 * version moves on, so no cached answer (memory, Redis, an ETag) of the old order is used
 * again; a new database (nothing imported, nothing dropped) keeps its first version.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A database without stored dashboards (a new one: nothing imported yet) keeps its version.
  await sql`with dropped as (delete from rpt_dashboards returning 1)
    update service_state set value = (value::bigint + 1)::text where key = 'data_version' and exists (select 1 from dropped)`.execute(db);
}

export async function down(): Promise<void> {
  // Nothing to restore: the next import writes the stored dashboards again.
}
