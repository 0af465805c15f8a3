/**
 * Blocks of stored CSV lines (src/reports/csv-lines.ts): `rpt_account_line_blocks` holds,
 * per organization, the lines of `rpt_account_lines` in runs of LINES_PER_BLOCK rows
 * (block b: rids b * 128 + 1 .. (b + 1) * 128), joined by CRLF.
 *
 * Why: a line (~0.7-0.9 KB) is below the size at which PostgreSQL compresses a value, so
 * the lines table is 1.7 GB at 2,000,000 rows, and a whole-table download that finds it
 * out of the page cache reads it from disk (177-207k rows/s). A block of 128 lines is
 * compressed (lz4 where the server has it, else pglz): about six times smaller, so the
 * same download reads ~0.3 GB. Filtered and sorted downloads keep reading single lines.
 *
 * Filled here from the stored lines, so a database imported before this migration has
 * blocks that match its lines (the import writes both, from the same rows).
 */
import { sql, type Kysely } from 'kysely';

/** Rows per block as of this migration (csv-lines.ts LINES_PER_BLOCK must stay equal). */
const LINES_PER_BLOCK = 128;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`set local statement_timeout = 0`.execute(db);
  await sql`create table if not exists rpt_account_line_blocks (
    org_id integer not null, block bigint not null, lines text not null,
    primary key (org_id, block))`.execute(db);
  await preferLz4(db, 'rpt_account_line_blocks', 'lines');
  await sql
    .raw(
      `insert into rpt_account_line_blocks (org_id, block, lines)
      select org_id, (rid - 1) / ${LINES_PER_BLOCK}, string_agg(line, E'\\r\\n' order by rid)
      from rpt_account_lines group by org_id, (rid - 1) / ${LINES_PER_BLOCK}`,
    )
    .execute(db);
}

/**
 * lz4 compression for a column when the server was built with it (PostgreSQL 14+ from the
 * usual packages; it decompresses several times faster than the default pglz). Without
 * it the column keeps pglz: a savepoint keeps the failed ALTER from ending the transaction.
 */
async function preferLz4(db: Kysely<unknown>, table: string, column: string): Promise<void> {
  await sql`savepoint prefer_lz4`.execute(db);
  try {
    await sql.raw(`alter table ${table} alter column ${column} set compression lz4`).execute(db);
    await sql`release savepoint prefer_lz4`.execute(db);
  } catch {
    await sql`rollback to savepoint prefer_lz4`.execute(db);
    await sql`release savepoint prefer_lz4`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists rpt_account_line_blocks`.execute(db);
}
