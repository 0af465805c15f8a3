/**
 * `rpt_search_values`: every distinct non-null value of a report's by-value search
 * columns (catalog `searchByValue`, src/reports/search-values.ts) per organization, built
 * at import with the other precomputed figures (src/reports/precomputed.ts). A search
 * term is tested once against these values, and the rows are found by the values that
 * contain it. On a database imported before, the table is empty and the report rows'
 * search text still holds those columns, so search finds the same rows until the next
 * import moves them.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table if not exists rpt_search_values (tbl text not null, org_id integer not null, col text not null, value text not null)`.execute(db);
  await sql`create index if not exists rpt_search_values_org on rpt_search_values (org_id, tbl)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists rpt_search_values`.execute(db);
}
