/**
 * Query stage of the CSV download on PostgreSQL: `COPY (select <cells> ...) TO STDOUT
 * WITH (FORMAT csv)` in bounded keyset ranges. PostgreSQL then quotes and joins the cells
 * in C, and Node passes the bytes through (only the row ends change, LF -> CRLF,
 * download.ts), so a row costs no per-cell work in Node and far less in SQL than a line
 * built with `||` and regular expressions (query.ts `csvLine`, the path PGlite keeps).
 *
 * PostgreSQL's CSV output against the contract's rules (render/csv.ts `csvField(csvCell(v))`):
 * - a field is quoted when it contains the delimiter, the quote, CR or LF, and a quote is
 *   doubled inside: the same test and escaping as `csvField`;
 * - NULL is an empty unquoted field, and a non-NULL empty string is written `""`: so every
 *   cell that can be empty is `nullif(..., '')`, the contract's NULL and '' both empty;
 * - with one output column a lone `\.` is quoted (it would end a COPY on input): plans of
 *   fewer than two columns keep the line path (`copySupported`);
 * - rows end with LF; download.ts writes CRLF.
 */
import { createRequire } from 'node:module';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import pg from 'pg';
import type { Column } from './catalog/types.js';
import type { Plan } from './plan.js';
import { afterCondition, columnExpr, isNumericColumn, isWholeTable, lineSource, orderBy, relation, sortKeys, startsLikeFormula, whereClause } from './query.js';

type Sql = RawBuilder<unknown>;

/** Whether the plan can be downloaded through COPY (see the module comment on `\.`). */
export function copySupported(plan: Plan): boolean {
  return plan.output.length >= 2;
}

/**
 * One cell as PostgreSQL's CSV writer should print it: NULL for an empty cell, else the
 * text of `csvCell` before quoting (booleans true/false, numbers as JavaScript writes them,
 * a `'` before a text starting with = + - @ tab or CR).
 */
export function copyCellExpr(column: Column): Sql {
  const e = columnExpr(column);
  if (column.type === 'boolean') return sql`case when ${e} then 'true' when not ${e} then 'false' end`;
  if (isNumericColumn(column)) return jsNumberCell(e);
  // A guarded cell starts with `'`, so it is never empty; an unguarded one is NULL when empty.
  return sql`case when ${startsLikeFormula(e)} then '''' || ${e} else nullif(${e}, '') end`;
}

/**
 * A number as JavaScript's `String(n)` writes it (NULL stays NULL). PostgreSQL's float8
 * text has the same shortest round-trip digits and differs only in where it switches to
 * an exponent: it is the same text for 1e-4 <= |x| < 1e15 (most values); JavaScript writes
 * plain decimals for 1e-6 <= |x| < 1e21, which is the numeric value of PostgreSQL's text
 * (numeric keeps exactly the digits it is given: 1.5e-05 -> 0.000015, 1.2345e+16 ->
 * 12345000000000000); beyond, both write an exponent and PostgreSQL pads it to two digits
 * (1e-07, JavaScript 1e-7). -0 is "0"; NaN and the infinities are spelled alike. NaN
 * compares above every number in PostgreSQL, so it falls to the last branch. One short
 * expression per cell keeps the statement small: planning a COPY of 65 cells with
 * query.ts `jsNumberText` took 13-35 ms per batch, this 1 ms.
 */
function jsNumberCell(value: Sql): Sql {
  const x = sql`(${value})::double precision`;
  return sql`case when abs(${x}) >= float8 '1e-4' and abs(${x}) < float8 '1e15' then (${x})::text when ${x} = float8 '0' then '0' when abs(${x}) >= float8 '1e-6' and abs(${x}) < float8 '1e21' then (${x})::text::numeric::text else replace((${x})::text, 'e-0', 'e-') end`;
}

/** A row position in the plan's order: the sort-key values of that row, as text (exact for every key type). */
export type Boundary = readonly (string | null)[];

/** What a COPY batch selects and the COPY format it must be written in. */
export interface CopyBatch {
  query: Sql;
  /** `csv` for cells; `text` for one column of stored lines (CSV format would quote the whole line; download.ts undoes the text escapes). */
  format: 'csv' | 'text';
}

/**
 * The rows after `lower` up to and including `upper` (both rows in the plan's order; null:
 * from the first row), at most `limit` of them: as CSV cells, or as their stored lines
 * when `linesTable` is given (csv-lines.ts). The keys' text parameters are untyped, like
 * the driver's parameters, so each compares as its key's type.
 */
export function copyBatchQuery(plan: Plan, lower: Boundary | null, upper: Boundary, limit: number, linesTable?: string): CopyBatch {
  const keys = sortKeys(plan);
  const extra: Sql[] = [];
  if (lower) extra.push(afterCondition(keys, lower));
  // afterCondition is never NULL for a row (a NULL key is tested with `is null`), so its
  // negation is exactly "at or before", and PostgreSQL turns `not (rid > x)` into an index bound.
  extra.push(sql`not ${afterCondition(keys, upper)}`);
  const tail = sql`order by ${orderBy(keys)} limit ${limit}`;
  if (linesTable) {
    const { line, from, where } = lineSource(plan, linesTable, extra);
    return { query: sql`select ${line} from ${from} where ${where} ${tail}`, format: 'text' };
  }
  const cells = sql.join(plan.output.map((o) => copyCellExpr(o.column)));
  return { query: sql`select ${cells} from ${relation(plan).from} where ${whereClause(plan, extra)} ${tail}`, format: 'csv' };
}

/**
 * Every row of the organization in the default order: `rid` numbers them 1..n, so ranges
 * of `rid` are the batches and only the largest `rid` is read (null: no rows).
 */
export function lastRidQuery(plan: Plan): Sql | null {
  if (!isWholeTable(plan)) return null;
  return sql`select max(r.rid)::text as k0 from ${relation(plan).from} where ${whereClause(plan)}`;
}

/** The last block of the plan's organization in a table of line blocks (csv-lines.ts); `last` null: no rows. */
export function lastBlockQuery(plan: Plan, table: string): Sql {
  return sql`select max(b.block)::text as last from ${sql.table(table)} b where b.org_id = ${plan.orgId}`;
}

/**
 * Blocks `from` up to `to` (exclusive) of the plan's organization, in order: every row of
 * a whole-table plan (`isWholeTable`) in its default order, a block's lines joined by
 * CRLF. Text format, like single stored lines.
 */
export function blockBatchQuery(plan: Plan, table: string, from: bigint, to: bigint): CopyBatch {
  const query = sql`select b.lines from ${sql.table(table)} b where b.org_id = ${plan.orgId} and b.block >= ${from.toString()} and b.block < ${to.toString()} order by b.block`;
  return { query, format: 'text' };
}

/**
 * `copy (<query>) to stdout ...` with every parameter written as a literal (COPY takes no
 * parameters), in CSV format (cells) or in text format (one column of stored lines).
 */
export function copyStatement(db: Kysely<any>, query: Sql, format: CopyBatch['format']): string {
  // No parallel workers: a download already runs two batches at once, and a Gather Merge
  // (which the planner picks for these wide projections) only adds tuple copying on a
  // machine whose cores are busy. SET LOCAL lasts for this implicit transaction only (the
  // two statements travel as one simple query), so the pooled session is left as it was.
  return `set local max_parallel_workers_per_gather = 0; copy (${inlineParameters(query.compile(db))}) to stdout with (format ${format}, encoding 'UTF8')`;
}

/**
 * The SQL text with `$n` replaced by the literal the driver would have sent for that
 * parameter (pg's own `prepareValue`, so arrays, booleans and numbers get the same text),
 * quoted with pg's `escapeLiteral` and left untyped, so the server types it from its
 * context exactly as it types an unspecified parameter. Quoted literals and identifiers in
 * the text are skipped.
 */
export function inlineParameters(query: { sql: string; parameters: readonly unknown[] }): string {
  const { sql: text, parameters } = query;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      // Skip the quoted literal or identifier ('' and "" escape the quote inside).
      let j = i + 1;
      for (;;) {
        const k = text.indexOf(c, j);
        if (k < 0) throw new Error('inlineParameters: unterminated quote');
        if (text[k + 1] === c) j = k + 2;
        else {
          j = k + 1;
          break;
        }
      }
      out += text.slice(i, j);
      i = j;
    } else if (c === '$' && /[0-9]/.test(text[i + 1] ?? '')) {
      let j = i + 1;
      while (j < text.length && /[0-9]/.test(text[j]!)) j++;
      const index = Number(text.slice(i + 1, j)) - 1;
      if (index < 0 || index >= parameters.length) throw new Error(`inlineParameters: no parameter $${index + 1}`);
      out += literal(parameters[index]);
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** pg's own serialization of a parameter value (lib/utils.js, outside its typed surface). */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils') as { prepareValue: (value: unknown) => unknown };

function literal(value: unknown): string {
  const prepared = prepareValue(value);
  if (prepared === null || prepared === undefined) return 'NULL';
  if (typeof prepared !== 'string') throw new Error('inlineParameters: a binary parameter cannot be written as a literal');
  return pg.escapeLiteral(prepared);
}
