/**
 * Stored events against the bundle's new event types. An event type the bundle replaces
 * may leave out a subtype that events already in the database have: those events would
 * stay in the reports with no subtype name (and the same event in a bundle is refused,
 * check-references.ts), so the import refuses the type instead (contract 7: import
 * validates everything before it changes anything).
 *
 * Each conflict is a problem of the type's line, its first events named (stored-examples.ts).
 * Stored events the bundle replaces are left out: their new subtypes are checked as
 * bundle records. Event types are shared by every organization, so every organization's
 * events count; an event is named with its organization.
 */
import type { Kysely } from 'kysely';
import type { LineProblem } from './check-references.js';
import { storedConflicts } from './stored-examples.js';

export async function checkStoredSubtypes(db: Kysely<any>, present: ReadonlySet<string>): Promise<LineProblem[]> {
  // A stored event the bundle replaces is checked as a bundle record instead.
  const replaced = present.has('events') ? 'and not exists (select 1 from stg_events_valid x where x.org = o.public_id::text and x.event_id = e.event_id)' : '';
  return storedConflicts<{ subtype: string; org: string; id: string }>(db, {
    bad: `select t.line, e.event_subtype_code as subtype, o.public_id::text as org, e.event_id as id
        from stg_event_types_valid t
        join events e on e.event_type_code = t.code and e.event_subtype_code is not null
        join orgs o on o.id = e.org_id
        where not exists (select 1 from jsonb_array_elements(coalesce(t.subtypes, '[]')) s where s->>'code' = e.event_subtype_code)
          ${replaced}`,
    orderBy: ['subtype', 'org', 'id'],
    entity: 'event_types',
    field: 'subtypes',
    example: (r) => `has no subtype "${r.subtype}", which stored event ${r.id} of organization ${r.org} has`,
    more: (more) => `and ${more} more stored ${more === 1 ? 'event' : 'events'} with a subtype it does not list`,
  });
}
