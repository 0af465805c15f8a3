/**
 * A trigram index on the accounts' narrow copy, tenant first:
 * `rpt_account_facts using gin (org_id, account_name gin_trgm_ops)`. A "contains" filter
 * on the account's name (the text people look accounts up by) is counted from the index's
 * matches instead of a scan of every row of the tenant: at 2,000,000 rows the count of
 * `account_name ilike '%tech%'` went from a scan of the copy to a bitmap of the matching
 * rows (docs/benchmarks.md, eighth session). `btree_gin` lets the index lead with org_id,
 * so one tenant's search never reads another's matches. The names are short (about 25
 * bytes), so the build costs seconds per million rows, unlike an index over the 600-byte
 * search text (materialize.ts REPORT_INDEXES). The import builds it with the report
 * tables; this creates it on a database imported before.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create extension if not exists btree_gin`.execute(db);
  await sql`create index if not exists rpt_account_facts_account_name_trgm on rpt_account_facts using gin (org_id, account_name gin_trgm_ops)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists rpt_account_facts_account_name_trgm`.execute(db);
}
