/**
 * Problems of bundle lines that stored records contradict (check-stored-custom.ts,
 * check-stored-subtypes.ts): each line names its first MAX_EXAMPLES records, in code point
 * order (the same on every engine and collation), and counts the rest.
 */
import { sql, type Kysely } from 'kysely';
import type { LineProblem } from './check-references.js';

/** Records named per line; the rest are counted. */
export const MAX_EXAMPLES = 5;

export interface StoredConflicts<T> {
  /** A select of the conflicts, one row per stored record, with the bundle's `line`. */
  bad: string;
  /** The columns that order the named records (text, compared by code point). */
  orderBy: readonly string[];
  entity: string;
  field: string;
  /** The problem that names one record. */
  example: (row: T) => string;
  /** The problem that counts the `more` records past the named ones (`row`: the last named). */
  more: (more: number, row: T) => string;
}

export async function storedConflicts<T extends object>(db: Kysely<any>, c: StoredConflicts<T>): Promise<LineProblem[]> {
  const order = c.orderBy.map((col) => `${col} collate "C"`).join(', ');
  const rows = await sql
    .raw<T & { line: number; n: number; total: number }>(
      `with bad as (${c.bad}),
      numbered as (select *, row_number() over (partition by line order by ${order}) as n, count(*) over (partition by line) as total from bad)
      select * from numbered where n <= ${MAX_EXAMPLES} order by line, n`,
    )
    .execute(db);
  const out: LineProblem[] = [];
  for (const r of rows.rows) {
    const line = Number(r.line);
    out.push({ entity: c.entity, line, field: c.field, problem: c.example(r) });
    const more = Number(r.total) - MAX_EXAMPLES;
    if (Number(r.n) === MAX_EXAMPLES && more > 0) out.push({ entity: c.entity, line, field: c.field, problem: c.more(more, r) });
  }
  return out;
}
