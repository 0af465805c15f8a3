/**
 * What the planner needs to know about the caller's organization: its custom fields, its
 * connected partners (with their share settings) and the valid event types. Loaded from
 * the database per request, cached per (organization, data version) because it only
 * changes with an import.
 */
import { sql, type Kysely } from 'kysely';
import type { Schema } from '../db/schema.js';
import type { ColumnType, CustomEntity } from './catalog/types.js';

export interface CustomFieldMeta {
  entity: CustomEntity;
  key: string;
  title: string;
  type: Extract<ColumnType, 'string' | 'number' | 'currency' | 'date' | 'boolean'>;
  classification: 'CUSTOM_CRM_FIELD' | 'CUSTOM_CRM_OBJECT';
}

export interface PartnerMeta {
  orgId: number;
  publicId: string;
  name: string;
  mutual: boolean;
  sharedFields: string[];
}

export interface OrgMetadata {
  orgId: number;
  customFields: CustomFieldMeta[];
  /** CONNECTED partners by lower-cased publicId. */
  partners: Map<string, PartnerMeta>;
  eventTypeCodes: Set<string>;
  /** Partner organizations' account custom fields, by partner org id (for matched-account partner columns). */
  partnerCustomFields: Map<number, CustomFieldMeta[]>;
}

export async function loadOrgMetadata(db: Kysely<Schema>, orgId: number): Promise<OrgMetadata> {
  const [customFields, partners, eventTypes] = await Promise.all([
    db.selectFrom('custom_fields').select(['entity', 'key', 'title', 'type', 'classification']).where('org_id', '=', orgId).orderBy('position').orderBy('key').execute(),
    sql<{ org_id: number; public_id: string; name: string; mutual: boolean; shared_fields: unknown }>`
      select c.partner_org_id as org_id, c.company_partner_public_id as public_id, c.partner_name as name, c.mutual, p.shared_fields
      from rpt_connected_partners c
      join partnerships p on p.org_id = c.org_id and p.partner_org_id = c.partner_org_id
      where c.org_id = ${orgId}
      order by c.rid`.execute(db),
    db.selectFrom('event_types').select('code').execute(),
  ]);
  const partnerIds = partners.rows.map((p) => p.org_id);
  const partnerCustom = partnerIds.length
    ? await db.selectFrom('custom_fields').select(['org_id', 'entity', 'key', 'title', 'type', 'classification']).where('org_id', 'in', partnerIds).where('entity', '=', 'account').orderBy('position').orderBy('key').execute()
    : [];
  const partnerCustomFields = new Map<number, CustomFieldMeta[]>();
  for (const f of partnerCustom) {
    const list = partnerCustomFields.get(f.org_id) ?? [];
    list.push({ entity: f.entity, key: f.key, title: f.title, type: f.type, classification: f.classification });
    partnerCustomFields.set(f.org_id, list);
  }
  return {
    orgId,
    customFields: customFields.map((f) => ({ ...f })),
    partners: new Map(
      partners.rows.map((p) => [
        p.public_id.toLowerCase(),
        { orgId: p.org_id, publicId: p.public_id, name: p.name, mutual: p.mutual, sharedFields: Array.isArray(p.shared_fields) ? (p.shared_fields as string[]) : [] },
      ]),
    ),
    eventTypeCodes: new Set(eventTypes.map((e) => e.code)),
    partnerCustomFields,
  };
}
