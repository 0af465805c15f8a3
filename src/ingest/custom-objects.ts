/**
 * The `custom` object of each report row, and the custom part of its search text, built
 * from the organizations' custom field definitions and the catalog's custom columns.
 *
 * A report's custom columns are the definitions of its entities, the first entity of the
 * catalog's `customEntities` winning a key two of them define (plan.ts customColumns).
 * A row's object holds exactly those keys, each read from the entity that owns its
 * column: the detail report's `custom_tier` is the opportunity's tier when the
 * opportunity defines one, even where only the event holds a value for it. Keys that no
 * definition names (the import keeps them in the base tables) are left out, so search,
 * which reads this object, cannot match a value that no column of the row shows.
 *
 * Two forms of the same values:
 * - per-key lookups in a CASE with a branch per organization, while the definitions are
 *   few (each row walks the branches to its own organization's);
 * - beyond MAX_CUSTOM_LOOKUPS, a subquery per row over `custom_fields`: slower per row,
 *   but the statement stays small however many organizations and keys there are.
 */
import { sql, type Kysely } from 'kysely';
import type { CustomEntity, ReportDefinition } from '../reports/catalog/types.js';
import { customColumns } from '../reports/plan.js';
import type { CustomFieldMeta } from '../reports/metadata.js';

/** Which alias of a report insert holds each entity's `custom` object. */
export type Owners = Partial<Record<CustomEntity, string>>;

/** The definitions of every organization, in the order the planner reads them (metadata.ts). */
export type Definitions = ReadonlyMap<number, readonly CustomFieldMeta[]>;

/**
 * Most per-key lookups one CASE may hold (over all organizations). Past it the statement
 * and the per-row walk grow with organizations times keys, and the subquery form is used.
 */
export const MAX_CUSTOM_LOOKUPS = 2_000;

export async function loadDefinitions(db: Kysely<any>): Promise<Definitions> {
  const rows = (
    await sql<CustomFieldMeta & { org_id: number }>`select org_id, entity, key, title, type, classification from custom_fields order by org_id, position, key`.execute(db)
  ).rows;
  const out = new Map<number, CustomFieldMeta[]>();
  for (const { org_id, ...f } of rows) {
    const list = out.get(Number(org_id)) ?? [];
    list.push(f);
    out.set(Number(org_id), list);
  }
  return out;
}

export interface CustomParts {
  /** The row's `custom` jsonb: the report's custom columns' values, by key, absent when NULL. */
  object: string;
  /** The string values among them, joined by U+001F ('' when none). */
  strings: string;
}

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** Per organization, each custom column of `report`: its key and the alias of the object that holds it. */
function layout(report: ReportDefinition, owners: Owners, definitions: Definitions): Array<[org: number, columns: Array<{ key: string; alias: string; string: boolean }>]> {
  const out: Array<[number, Array<{ key: string; alias: string; string: boolean }>]> = [];
  for (const [org, fields] of [...definitions].sort(([a], [b]) => a - b)) {
    const columns = customColumns(report, { customFields: [...fields] }).map((c) => {
      const alias = owners[c.entity!];
      if (!alias) throw new Error(`${report.id}: no alias holds the ${c.entity} custom object`);
      return { key: c.json!.key, alias, string: c.type === 'string' };
    });
    if (columns.length) out.push([org, columns]);
  }
  return out;
}

/** The `custom` object and its strings for the rows of `report`, `orgId` naming the row's organization. */
export function customParts(report: ReportDefinition, owners: Owners, definitions: Definitions, orgId: string, maxLookups = MAX_CUSTOM_LOOKUPS): CustomParts {
  const orgs = layout(report, owners, definitions);
  if (orgs.length === 0) return { object: "'{}'::jsonb", strings: "''" };
  if (orgs.reduce((n, [, columns]) => n + columns.length, 0) > maxLookups) return subqueryParts(report, owners, orgId);
  const value = (c: { key: string; alias: string }) => `${c.alias}.custom -> ${quote(c.key)}`;
  const objects = orgs.map(([org, columns]) => `when ${org} then jsonb_strip_nulls(jsonb_build_object(${columns.map((c) => `${quote(c.key)}, ${value(c)}`).join(', ')}))`);
  const strings = orgs.map(([org, columns]) => {
    const texts = columns.filter((c) => c.string).map((c) => `case when jsonb_typeof(${value(c)}) = 'string' then ${value(c)} #>> '{}' end`);
    return `when ${org} then ${texts.length ? `concat_ws(chr(31), ${texts.join(', ')})` : "''"}`;
  });
  return { object: `case ${orgId} ${objects.join(' ')} else '{}'::jsonb end`, strings: `case ${orgId} ${strings.join(' ')} else '' end` };
}

/**
 * The same values by a subquery over the definitions: for each key the first entity of
 * the report's precedence that defines it, keys shadowed by a standard column left out,
 * as customColumns does.
 */
function subqueryParts(report: ReportDefinition, owners: Owners, orgId: string): CustomParts {
  const entities = report.customEntities;
  const standard = report.columns.map((c) => c.key).filter((k) => k.startsWith('custom_')).map((k) => k.slice('custom_'.length));
  const holder = `case d.entity ${entities.map((e) => `when ${quote(e)} then ${owners[e]}.custom`).join(' ')} end -> d.key`;
  const defined = `(select distinct on (d.key) d.key, d.type, ${holder} as value
      from custom_fields d
      where d.org_id = ${orgId} and d.entity in (${entities.map(quote).join(', ')})${standard.length ? ` and d.key not in (${standard.map(quote).join(', ')})` : ''}
      order by d.key, array_position(array[${entities.map(quote).join(', ')}]::text[], d.entity)) v`;
  return {
    object: `coalesce((select jsonb_object_agg(v.key, v.value) from ${defined} where v.value is not null and v.value <> 'null'::jsonb), '{}'::jsonb)`,
    strings: `coalesce((select string_agg(v.value #>> '{}', chr(31)) from ${defined} where v.type = 'string' and jsonb_typeof(v.value) = 'string'), '')`,
  };
}
