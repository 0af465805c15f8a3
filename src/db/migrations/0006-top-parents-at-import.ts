/**
 * `accounts.top_parent_crm_account_id` goes: the import now derives top parents into a
 * narrow temporary table (src/ingest/materialize.ts, tmp_top_parents) instead of an
 * UPDATE of every account row. That UPDATE changed an indexed column, so each row got a
 * new version in the heap and in every index of `accounts`: 6+ minutes at 3.7 million
 * accounts, and a table twice its size until a vacuum. Nothing else read the column.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists accounts_top_parent`.execute(db);
  await sql`alter table accounts drop column if exists top_parent_crm_account_id`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table accounts add column if not exists top_parent_crm_account_id text`.execute(db);
  await sql`create index if not exists accounts_top_parent on accounts (org_id, top_parent_crm_account_id)`.execute(db);
}
