/**
 * Stored custom values against the bundle's new custom field definitions. A definition
 * the bundle adds, or whose type it changes, types values that records already in the
 * database hold under its key (kept as given while no definition named it, or checked
 * by the old type): one that does not fit the new type made the report build fail on
 * its cast (`invalid input syntax for type double precision`), and every later import
 * with it, or, on a record no report row reads yet, stayed to fail later.
 *
 * Each conflict is a problem of the definition's line, its first records named
 * (stored-examples.ts). Stored records the bundle replaces are left out: their new values are checked
 * as bundle records (validate-record.ts). A value is checked by the same rule as a
 * bundle record's (customValueValidSql, beside the record validation's own), as JSON:
 * a string "3" kept from a CSV cell before the key had a definition is not a number.
 *
 * One set-based statement per entity with a changed definition; with none (the usual
 * import) the cost is one anti-join of the staged definitions with the stored ones.
 */
import { sql, type Kysely } from 'kysely';
import type { LineProblem } from './check-references.js';
import { storedConflicts } from './stored-examples.js';
import { customExpected, customValueValidSql, type CustomType } from './validate-record.js';

/** Where each entity's records are stored and what names one (the natural key beside the organization). */
const STORED: Record<string, { table: string; staged: string; id: string; noun: string; plural: string }> = {
  account: { table: 'accounts', staged: 'stg_accounts', id: 'crm_account_id', noun: 'account', plural: 'accounts' },
  opportunity: { table: 'opportunities', staged: 'stg_opportunities', id: 'crm_opportunity_id', noun: 'opportunity', plural: 'opportunities' },
  event: { table: 'events', staged: 'stg_events', id: 'event_id', noun: 'event', plural: 'events' },
};

const TYPES: readonly CustomType[] = ['string', 'number', 'currency', 'date', 'boolean'];

/** Valid staged definitions that no stored definition of the same organization, entity, key and type matches. */
const CHANGED = `select s.line, s.org, s.entity, s.key, s.type, o.id as org_id
  from stg_custom_fields_valid s join orgs o on o.public_id::text = s.org
  where not exists (select 1 from custom_fields c where c.org_id = o.id and c.entity = s.entity and c.key = s.key and c.type = s.type)`;

export async function checkStoredCustomValues(db: Kysely<any>): Promise<LineProblem[]> {
  // A definition of an organization new in this bundle joins no stored org, so it has no stored records.
  const changed = await sql.raw<{ entity: string }>(`select distinct entity from (${CHANGED}) d`).execute(db);
  const out: LineProblem[] = [];
  for (const { entity } of changed.rows) out.push(...(await conflicts(db, entity)));
  return out.sort((a, b) => a.line - b.line);
}

async function conflicts(db: Kysely<any>, entity: string): Promise<LineProblem[]> {
  const t = STORED[entity]!;
  const value = `r.custom -> d.key`;
  const valid = `case d.type ${TYPES.map((type) => `when '${type}' then ${customValueValidSql(type, value)}`).join(' ')} end`;
  return storedConflicts<{ key: string; type: CustomType; id: string; value: unknown }>(db, {
    bad: `select d.line, d.key, d.type, r.${t.id} as id, ${value} as value
        from (${CHANGED}) d join ${t.table} r on r.org_id = d.org_id
        where d.entity = '${entity}' and ${value} is not null and not (${valid})
          and not exists (select 1 from ${t.staged} x where x.org = d.org and x.${t.id} = r.${t.id})`,
    orderBy: ['id'],
    entity: 'custom_fields',
    field: 'type',
    example: (r) => `stored ${t.noun} ${r.id} has custom.${r.key} ${shown(r.value)}, not ${customExpected(r.type)}`,
    more: (more, r) => `and ${more} more stored ${more === 1 ? t.noun : t.plural} whose custom.${r.key} is not ${customExpected(r.type)}`,
  });
}

/** A stored value as JSON, shortened like the record validation's. */
function shown(value: unknown): string {
  const json = JSON.stringify(value);
  return json.length > 40 ? `${json.slice(0, 40)}...` : json;
}
