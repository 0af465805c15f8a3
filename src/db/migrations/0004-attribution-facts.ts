/**
 * `rpt_attribution_facts`: the narrow part of `rpt_attribution_links` that the pipeline
 * attribution summary aggregates per request (one row per link: the scope columns, the
 * event type and subtype, the opportunity's report row). The summary's context (partners,
 * event types, event window, opportunity window) is applied to it exactly as to the
 * links; it is about 1/16 of the links' width and is stored in (org_id, event_date)
 * order, so an event window reads a contiguous run of pages instead of scanning the
 * wide links table. Rebuilt with the report tables at import (src/ingest/materialize.ts).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table if not exists rpt_attribution_facts (
    org_id integer not null, rid bigint not null, opp_rid bigint not null, partner_org_id integer not null,
    event_date bigint, opp_created_date bigint, event_type_code text, event_subtype_code text,
    primary key (org_id, rid))`.execute(db);
  await sql`create index if not exists rpt_attribution_facts_scope on rpt_attribution_facts (org_id, event_date)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists rpt_attribution_facts`.execute(db);
}
