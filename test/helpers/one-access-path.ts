/**
 * Runs a count statement with the planner held to one access path, to prove that an
 * index gives the same count as reading every row. One connection, one transaction that
 * is always rolled back: every other index of `table` is dropped inside it (on a
 * fixture's handful of rows the planner would rather read those), and the settings are
 * local to it. Returns the count and the plan's text.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';

export async function countOnOnePath(db: Kysely<any>, statement: RawBuilder<unknown>, table: string, index: string, path: 'bitmap' | 'scan'): Promise<{ n: number; planText: string }> {
  return db.connection().execute(async (c) => {
    await sql`begin`.execute(c);
    try {
      const others = await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = ${table} and indexname <> ${index}`.execute(c);
      for (const { name } of others.rows) {
        if (name.endsWith('_pkey')) await sql.raw(`alter table ${table} drop constraint ${name}`).execute(c);
        else await sql.raw(`drop index ${name}`).execute(c);
      }
      const off = path === 'bitmap' ? ['enable_seqscan', 'enable_indexscan', 'enable_indexonlyscan'] : ['enable_bitmapscan', 'enable_indexscan', 'enable_indexonlyscan'];
      for (const setting of off) await sql.raw(`set local ${setting} = off`).execute(c);
      const compiled = statement.compile(c);
      const explained = await c.executeQuery({ ...compiled, sql: `explain ${compiled.sql}` });
      const planText = explained.rows.map((r) => Object.values(r as object)[0]).join('\n');
      const result = await c.executeQuery(compiled);
      return { n: Number((result.rows[0] as { n: unknown }).n), planText };
    } finally {
      await sql`rollback`.execute(c);
    }
  });
}
