/**
 * `service_state.credentials_version`: changes in the same transaction as every change
 * of what authentication reads (api_keys, users, orgs), so the access layer can keep the
 * callers it resolved in memory and still see a revocation, a deleted or re-roled user or
 * a removed organization on the first request whose version read starts after that
 * change committed (src/server/access/index.ts).
 *
 * The bump is a deferred constraint trigger, so it runs at commit: the version row is
 * locked only for the instant of the commit. A statement-level trigger would lock it from
 * the first change to the end of the transaction, and an import (which upserts users and
 * orgs in its first seconds and commits minutes later) would then hold up every key
 * revocation and every last-used flush for its whole duration. One bump per transaction
 * (a transaction-local setting marks it done), and none for updates that change nothing
 * but `last_used_at` (the last-used recorder writes that off the request path; it must not
 * empty the caches once a minute) or nothing at all (re-imports of unchanged users).
 *
 * ENABLE ALWAYS: the import loads with session_replication_role = replica to skip the
 * foreign-key triggers, which would skip an ordinary trigger too.
 */
import { sql, type Kysely } from 'kysely';

const TABLES = ['api_keys', 'users', 'orgs'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`insert into service_state (key, value) values ('credentials_version', '0') on conflict (key) do nothing`.execute(db);
  await sql`create or replace function pr_bump_credentials_version() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' and (to_jsonb(old) - 'last_used_at') = (to_jsonb(new) - 'last_used_at') then
        return null;
      end if;
      if coalesce(current_setting('partner_reports.credentials_bumped', true), '') = 'yes' then
        return null;
      end if;
      perform set_config('partner_reports.credentials_bumped', 'yes', true);
      update service_state set value = (value::bigint + 1)::text where key = 'credentials_version';
      return null;
    end $$`.execute(db);
  await sql`create or replace function pr_bump_credentials_version_now() returns trigger language plpgsql as $$
    begin
      update service_state set value = (value::bigint + 1)::text where key = 'credentials_version';
      return null;
    end $$`.execute(db);
  for (const table of TABLES) {
    const t = sql.table(table);
    const changed = sql.id(`${table}_credentials_changed`);
    const truncated = sql.id(`${table}_credentials_truncated`);
    await sql`create constraint trigger ${changed} after insert or update or delete on ${t}
      deferrable initially deferred for each row execute function pr_bump_credentials_version()`.execute(db);
    // Constraint triggers cannot fire on TRUNCATE; a truncate locks the table anyway.
    await sql`create trigger ${truncated} after truncate on ${t} for each statement execute function pr_bump_credentials_version_now()`.execute(db);
    await sql`alter table ${t} enable always trigger ${changed}`.execute(db);
    await sql`alter table ${t} enable always trigger ${truncated}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await sql`drop trigger if exists ${sql.id(`${table}_credentials_changed`)} on ${sql.table(table)}`.execute(db);
    await sql`drop trigger if exists ${sql.id(`${table}_credentials_truncated`)} on ${sql.table(table)}`.execute(db);
  }
  await sql`drop function if exists pr_bump_credentials_version()`.execute(db);
  await sql`drop function if exists pr_bump_credentials_version_now()`.execute(db);
  await sql`delete from service_state where key = 'credentials_version'`.execute(db);
}
