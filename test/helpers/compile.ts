/** A Kysely instance that only compiles (no database), for golden `{ sql, parameters }` tests. */
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type RawBuilder } from 'kysely';

const db = new Kysely<unknown>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** SQL with white space folded, and its parameters. */
export function compile(query: RawBuilder<unknown>): { sql: string; parameters: readonly unknown[] } {
  const c = query.compile(db);
  return { sql: c.sql.replace(/\s+/g, ' ').trim(), parameters: c.parameters };
}
