/**
 * Per-tenant figures precomputed at import (src/ingest/materialize.ts), because the data
 * only changes on import:
 *
 * - `rpt_summaries`: per (report table, organization, column): the organization's row
 *   count (column ''), min/max of number and date columns, and whether the column has a
 *   complete value dictionary in `rpt_value_counts`;
 * - `rpt_value_counts`: for low-cardinality text and boolean columns, every distinct
 *   non-null value with its row count and its position in the contract's text order
 *   (lower(value), then value, by code point). Filter values, single-column counts and
 *   the contains/search tests of these columns read it instead of scanning the table;
 * - `rpt_dashboards`: the unfiltered dashboard of the reports without a context.
 *
 * All three are rebuilt with the report tables in the import transaction, so they never
 * describe other data than the tables they summarize.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table if not exists rpt_summaries (
    tbl text not null, org_id integer not null, col text not null,
    row_count bigint not null, has_values boolean not null default false, distinct_values bigint,
    min_value double precision, max_value double precision,
    primary key (org_id, tbl, col))`.execute(db);
  await sql`create table if not exists rpt_value_counts (
    tbl text not null, org_id integer not null, col text not null, pos integer not null,
    value text not null, n bigint not null,
    primary key (org_id, tbl, col, pos))`.execute(db);
  await sql`create index if not exists rpt_value_counts_value on rpt_value_counts (org_id, tbl, col, value)`.execute(db);
  await sql`create table if not exists rpt_dashboards (
    report text not null, org_id integer not null, totals jsonb not null, by_partner jsonb not null,
    primary key (org_id, report))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['rpt_dashboards', 'rpt_value_counts', 'rpt_summaries']) await sql`drop table if exists ${sql.table(t)}`.execute(db);
}
