/**
 * `service_state.database_id`: a random id made when the database is created (this
 * migration runs on every new database). The versions read (src/reports/data-version.ts)
 * adds it to the data and credentials versions, which key every cached figure, page,
 * ETag and resolved caller. Without it, a database dropped and created again under a
 * running server started its versions over at the same numbers, and the server kept
 * answering from what it had cached of the old one: a count of the old rows beside the
 * new rows, a key of the old database still let in.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`insert into service_state (key, value) values ('database_id', replace(gen_random_uuid()::text, '-', '')) on conflict (key) do nothing`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from service_state where key = 'database_id'`.execute(db);
}
