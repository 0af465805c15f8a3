/**
 * `rpt_event_facts`: the narrow part of `rpt_attribution_events` that a context-only count
 * reads (one row per report row: its number, the partner, the event date and type). An
 * ATTRIBUTION_EVENTS page scoped by its context alone counts its rows here instead of in
 * the wide report rows (4.5 GB at 2,000,000 events: a 90-day count read every page of it,
 * 3.4 s alone and past the timeout under ten clients). Stored in (org_id, event_date)
 * order like rpt_attribution_facts, which plays the same part for the pipeline detail.
 * Rebuilt with the report tables at import (src/ingest/materialize.ts).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table if not exists rpt_event_facts (
    org_id integer not null, rid bigint not null, partner_org_id integer not null,
    event_date bigint, event_type_code text,
    primary key (org_id, rid))`.execute(db);
  await sql`create index if not exists rpt_event_facts_scope on rpt_event_facts (org_id, event_date)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists rpt_event_facts`.execute(db);
}
