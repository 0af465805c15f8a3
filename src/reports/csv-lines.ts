/**
 * Ready CSV lines (migration 0009). A download formats every cell of every row (numbers as
 * JavaScript writes them, the formula guard, quoting): at 65 columns that is most of its
 * cost, about 40 µs a row on this machine, so 2,000,000 rows took 41 s. The largest report
 * keeps each row's line in its default columns, written at import with the same SQL the
 * download would run (query.ts `csvLine`); a download in those columns, whatever its
 * filters and order, then reads the lines instead of formatting cells.
 *
 * Never stale: with the lines, the import stores a fingerprint of the line SQL it ran
 * for that organization (its columns, with their custom fields, and every formatting
 * rule are in that text). A download uses the lines only when its own plan's line SQL
 * has the same fingerprint; after a change of code or of custom fields without a new
 * import, it formats the cells as before.
 *
 * Blocks (migration 0012): the same lines in runs of LINES_PER_BLOCK rows joined by CRLF,
 * which PostgreSQL compresses (a single line is too short to be). A download of every row
 * in the default order reads the blocks: about a sixth of the bytes of the lines.
 */
import { createHash } from 'node:crypto';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { GLOBAL_VERTICAL_ACCOUNTS } from './catalog/global-vertical-accounts.js';
import type { ReportDefinition } from './catalog/types.js';
import type { OrgMetadata } from './metadata.js';
import { buildPlan, type Plan } from './plan.js';
import { csvLine } from './query.js';

export interface LineCopy {
  report: ReportDefinition;
  /** The report table the lines are made from (same org_id and rid). */
  source: string;
  /** One line per report row (org_id, rid, line). */
  table: string;
  /** The lines in blocks (org_id, block, lines): block b holds rids b * LINES_PER_BLOCK + 1 onwards. */
  blocks: string;
}

/** Lines per block (migration 0012 fills blocks of the same size). */
export const LINES_PER_BLOCK = 128;

/** Only the report that reaches millions of rows per tenant: lines cost import time and about 0.7 KB a row. */
export const LINE_COPIES: readonly LineCopy[] = [{ report: GLOBAL_VERTICAL_ACCOUNTS, source: 'rpt_global_accounts', table: 'rpt_account_lines', blocks: 'rpt_account_line_blocks' }];

const BY_SOURCE: ReadonlyMap<string, LineCopy> = new Map(LINE_COPIES.map((c) => [c.source, c]));

/** The fingerprint of the SQL that writes a plan's CSV lines: its compiled text and parameters. */
export function lineFingerprint(db: Kysely<any>, plan: Plan): string {
  const compiled = csvLine(plan).compile(db);
  return createHash('sha256').update(JSON.stringify([compiled.sql, compiled.parameters])).digest('base64url');
}

/**
 * The stored lines that a download of `plan` may read: the plan's report has them and the
 * import wrote them with exactly this plan's line SQL (`formats`: the fingerprints stored
 * for the plan's organization, by source table). Undefined: format the cells.
 */
export function lineCopyFor(db: Kysely<any>, plan: Plan, formats: ReadonlyMap<string, string>): LineCopy | undefined {
  const copy = BY_SOURCE.get(plan.report.table);
  const stored = copy ? formats.get(copy.source) : undefined;
  if (!copy || stored === undefined || copy.report.id !== plan.report.id) return undefined;
  return stored === lineFingerprint(db, plan) ? copy : undefined;
}

/** The plan of a download in the report's default columns (what the lines hold). */
export function defaultLinePlan(copy: LineCopy, meta: OrgMetadata): Plan {
  return buildPlan({ report: copy.report, meta, body: { filters: {}, search: '', columns: undefined, context: undefined }, paging: { page: 0, size: 1, sort: [] }, nowSeconds: 0 });
}

/** Import: the statement that writes one organization's lines from the rows of `sourceTable` (the rebuilt report table). */
export function insertLines(plan: Plan, targetTable: string, sourceTable: string): RawBuilder<unknown> {
  return sql`insert into ${sql.table(targetTable)} (org_id, rid, line)
    select r.org_id, r.rid, ${csvLine(plan)} from ${sql.table(sourceTable)} r where r.org_id = ${plan.orgId} order by r.rid`;
}

/**
 * Import: the statement that writes one organization's blocks from its lines in
 * `linesTable` (the rebuilt lines): each block the lines of its rids, in order, joined by
 * CRLF (the last line without one; a download ends every block with CRLF).
 */
export function insertLineBlocks(orgId: number, targetTable: string, linesTable: string): RawBuilder<unknown> {
  const block = sql`(l.rid - 1) / ${sql.lit(LINES_PER_BLOCK)}`;
  return sql`insert into ${sql.table(targetTable)} (org_id, block, lines)
    select l.org_id, ${block}, string_agg(l.line, ${'\r\n'} order by l.rid) from ${sql.table(linesTable)} l
    where l.org_id = ${orgId} group by l.org_id, ${block}`;
}
