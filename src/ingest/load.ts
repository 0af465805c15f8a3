/**
 * Loading: upsert every staged file into its table on the natural key, in dependency
 * order. A row is rewritten only when a value differs, so re-importing the same bundle
 * changes nothing and the counts say what happened (inserted / updated / unchanged).
 */
import { sql, type Kysely } from 'kysely';
import type { EntitySpec } from './bundle-spec.js';
import { stagingTable } from './stage.js';

export interface EntityCount {
  entity: string;
  inserted: number;
  updated: number;
  unchanged: number;
}

interface LoadPlan {
  /** Target column -> expression over staging alias `s` (and joined orgs `o`, partner orgs `p`). */
  columns: Record<string, string>;
  /** Target conflict columns. */
  conflict: string[];
  joins: string;
}

const plain = (spec: EntitySpec, skip: string[] = []): Record<string, string> =>
  Object.fromEntries(spec.fields.filter((f) => !skip.includes(f.column)).map((f) => [f.column, `s.${f.column}`]));

const ORG_JOIN = 'join orgs o on o.public_id = s.org::uuid';
const PARTNER_JOIN = 'join orgs p on p.public_id = s.partner::uuid';

function loadPlan(spec: EntitySpec): LoadPlan {
  switch (spec.name) {
    case 'orgs':
      return { columns: { ...plain(spec), public_id: 's.public_id::uuid', attribution_window_days: 'coalesce(s.attribution_window_days, 90)' }, conflict: ['public_id'], joins: '' };
    case 'event_types':
      return { columns: { ...plain(spec), subtypes: "coalesce(s.subtypes, '[]')", position: 's.line' }, conflict: ['code'], joins: '' };
    case 'users':
      return { columns: { org_id: 'o.id', ...plain(spec, ['org']), role: "coalesce(s.role, 'MEMBER')" }, conflict: ['org_id', 'email'], joins: ORG_JOIN };
    case 'partnerships':
      return { columns: { org_id: 'o.id', partner_org_id: 'p.id', ...plain(spec, ['org', 'partner']), shared_fields: "coalesce(s.shared_fields, '[]')", position: 's.line' }, conflict: ['org_id', 'partner_org_id'], joins: `${ORG_JOIN} ${PARTNER_JOIN}` };
    case 'custom_fields':
      return { columns: { org_id: 'o.id', ...plain(spec, ['org']), position: 's.line' }, conflict: ['org_id', 'entity', 'key'], joins: ORG_JOIN };
    case 'accounts':
    case 'opportunities':
      return { columns: { org_id: 'o.id', ...plain(spec, ['org']), custom: "coalesce(s.custom, '{}')" }, conflict: ['org_id', spec.name === 'accounts' ? 'crm_account_id' : 'crm_opportunity_id'], joins: ORG_JOIN };
    case 'account_matches':
      return { columns: { org_id: 'o.id', partner_org_id: 'p.id', ...plain(spec, ['org', 'partner']) }, conflict: ['org_id', 'crm_account_id', 'partner_org_id', 'partner_crm_account_id'], joins: `${ORG_JOIN} ${PARTNER_JOIN}` };
    case 'events':
      return { columns: { org_id: 'o.id', partner_org_id: 'p.id', ...plain(spec, ['org', 'partner']), custom: "coalesce(s.custom, '{}')" }, conflict: ['org_id', 'event_id'], joins: `${ORG_JOIN} ${PARTNER_JOIN}` };
    default:
      throw new Error(`no load plan for ${spec.name}`);
  }
}

export async function loadEntity(db: Kysely<any>, spec: EntitySpec): Promise<EntityCount> {
  const plan = loadPlan(spec);
  const targets = Object.keys(plan.columns);
  const updatable = targets.filter((c) => !plan.conflict.includes(c));
  const staged = await sql.raw<{ n: number }>(`select count(*) as n from ${stagingTable(spec)}`).execute(db);
  const set = updatable.map((c) => `${c} = excluded.${c}`).join(', ');
  const changed = `(${updatable.map((c) => `${spec.table}.${c}`).join(', ')}) is distinct from (${updatable.map((c) => `excluded.${c}`).join(', ')})`;
  const statement = `
    with up as (
      insert into ${spec.table} as ${spec.table} (${targets.join(', ')})
      select ${targets.map((c) => plan.columns[c]).join(', ')} from ${stagingTable(spec)} s ${plan.joins}
      on conflict (${plan.conflict.join(', ')}) do update set ${set} where ${changed}
      returning (xmax = 0) as inserted
    )
    select count(*) filter (where inserted) as inserted, count(*) filter (where not inserted) as updated from up`;
  const result = await sql.raw<{ inserted: number; updated: number }>(statement).execute(db);
  const inserted = Number(result.rows[0]?.inserted ?? 0);
  const updated = Number(result.rows[0]?.updated ?? 0);
  return { entity: spec.name, inserted, updated, unchanged: Number(staged.rows[0]?.n ?? 0) - inserted - updated };
}


/**
 * Runs the upserts without PostgreSQL's per-row foreign-key triggers where the role may
 * skip them. Every org id the upserts write comes from a join with `orgs`, so each
 * foreign key is valid by construction, and the triggers (one lookup and row lock per
 * written row and key) would about double the load time. Skipping needs a superuser
 * (PGlite always is; PostgreSQL when the import connects as one), and lasts for this
 * transaction's load only; for any other role the triggers run as usual.
 */
export async function withoutForeignKeyTriggers<T>(db: Kysely<any>, fn: () => Promise<T>): Promise<T> {
  await sql`savepoint load_triggers`.execute(db);
  let skipped = true;
  try {
    await sql`set local session_replication_role = replica`.execute(db);
  } catch {
    skipped = false;
    await sql`rollback to savepoint load_triggers`.execute(db);
  }
  await sql`release savepoint load_triggers`.execute(db);
  const result = await fn();
  if (skipped) await sql`set local session_replication_role = origin`.execute(db);
  return result;
}
