/**
 * `pr_json_strings(jsonb)`: the string values of a jsonb object joined by U+001F ('' when
 * it has none, or is NULL): the partner fields' part of the matched-accounts report's
 * search text (src/ingest/materialize.ts `jsonStrings`). Written in a row's expression as
 * a subquery over `jsonb_each`, it is a correlated subplan, which PostgreSQL 15 runs only
 * in the leader of a parallel plan: the report's parallel `create table as` then computed
 * it for every row in the one process that also writes them (scale 100: 7.3 s against
 * 5.1 s with this function, which is declared parallel safe and so runs in the workers).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function pr_json_strings(o jsonb) returns text language sql immutable parallel safe as $$
      select coalesce(string_agg(j.value #>> '{}', chr(31)), '') from jsonb_each(o) j where jsonb_typeof(j.value) = 'string'
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function if exists pr_json_strings(jsonb)`.execute(db);
}
