/**
 * Ready CSV lines of the largest report, rebuilt at import (src/reports/csv-lines.ts says
 * why and when a download reads them):
 *
 * - `rpt_account_lines`: one row per GLOBAL_VERTICAL_ACCOUNTS report row (same org_id and
 *   rid) holding its CSV line in the report's default columns, without the line end;
 * - `rpt_csv_formats`: per (organization, report table), the columns and format version
 *   the lines were written with. A download uses the lines only when this equals its own
 *   plan's, so lines written by other code or for other custom fields are never served.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table if not exists rpt_account_lines (
    org_id integer not null, rid bigint not null, line text not null,
    primary key (org_id, rid))`.execute(db);
  await sql`create table if not exists rpt_csv_formats (
    org_id integer not null, tbl text not null, format text not null,
    primary key (org_id, tbl))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists rpt_account_lines`.execute(db);
  await sql`drop table if exists rpt_csv_formats`.execute(db);
}
