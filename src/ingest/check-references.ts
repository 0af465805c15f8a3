/**
 * Cross-record checks over the staged bundle plus the rows already in the database:
 * references to organizations, accounts, partners' accounts and event types, duplicate
 * natural keys within the bundle, and account parent cycles. Each returns problems as
 * (file line, field, problem).
 *
 * Staging holds the records with a field problem too (stage.ts), with NULL for a bad
 * value: they are checked like the others and count as present for references to
 * them (their problem is already reported). A reference whose own value is NULL (bad or
 * absent) is not checked: a malformed organization id is not also a missing one.
 */
import { sql, type Kysely } from 'kysely';
import { ENTITY_BY_NAME, type EntitySpec } from './bundle-spec.js';
import { stagedRowsTable } from './stage.js';

export interface LineProblem {
  entity: string;
  line: number;
  field: string;
  problem: string;
}

const spec = (name: string): EntitySpec => ENTITY_BY_NAME.get(name)!;

// Each "known" test is two NOT EXISTS joined by AND (staged, then already in the
// database) rather than NOT (EXISTS OR EXISTS): PostgreSQL turns the former into hash
// anti-joins, one pass over the staging table, where the latter runs two correlated
// subqueries per staged row.

/** The organization in `col` is neither staged nor in the database. */
const ORG_MISSING = (col: string) => `not exists (select 1 from stg_orgs o where o.public_id = ${col}) and not exists (select 1 from orgs o where o.public_id::text = ${col})`;

/** The account (`orgCol`, `idCol`) is neither staged nor in the database. */
const ACCOUNT_MISSING = (orgCol: string, idCol: string) =>
  `not exists (select 1 from stg_accounts a where a.org = ${orgCol} and a.crm_account_id = ${idCol})
   and not exists (select 1 from accounts a join orgs o on o.id = a.org_id where o.public_id::text = ${orgCol} and a.crm_account_id = ${idCol})`;

/**
 * Staged lines of `entity` where `where` holds, among those whose `columns` (the values
 * the check reads) are all there.
 */
async function lines(db: Kysely<any>, entity: string, field: string, problem: string, columns: readonly string[], where: string): Promise<LineProblem[]> {
  const present = columns.map((c) => `s.${c} is not null`).join(' and ');
  const rows = await sql.raw<{ line: number }>(`select s.line from ${stagedRowsTable(spec(entity))} s where ${present} and ${where} order by s.line`).execute(db);
  return rows.rows.map((r) => ({ entity, line: Number(r.line), field, problem }));
}

export async function checkReferences(db: Kysely<any>, present: ReadonlySet<string>): Promise<LineProblem[]> {
  const out: LineProblem[] = [];
  const has = (e: string) => present.has(e);
  const missingOrg = 'reference to a missing organization';
  for (const [entity, field, column] of [
    ['users', 'org', 'org'], ['partnerships', 'org', 'org'], ['partnerships', 'partner', 'partner'], ['custom_fields', 'org', 'org'],
    ['accounts', 'org', 'org'], ['opportunities', 'org', 'org'], ['account_matches', 'org', 'org'], ['account_matches', 'partner', 'partner'],
    ['events', 'org', 'org'], ['events', 'partner', 'partner'],
  ] as const) {
    if (has(entity)) out.push(...(await lines(db, entity, field, missingOrg, [column], ORG_MISSING(`s.${column}`))));
  }
  if (has('partnerships')) out.push(...(await lines(db, 'partnerships', 'partner', 'an organization cannot be its own partner', ['org', 'partner'], 's.partner = s.org')));
  if (has('accounts')) {
    out.push(...(await lines(db, 'accounts', 'parentCrmAccountId', 'reference to a missing account of the same organization', ['org', 'parent_crm_account_id'], ACCOUNT_MISSING('s.org', 's.parent_crm_account_id'))));
  }
  const ofOrg = ['org', 'crm_account_id'];
  if (has('opportunities')) out.push(...(await lines(db, 'opportunities', 'crmAccountId', 'reference to a missing account of the organization', ofOrg, ACCOUNT_MISSING('s.org', 's.crm_account_id'))));
  if (has('account_matches')) {
    out.push(...(await lines(db, 'account_matches', 'crmAccountId', 'reference to a missing account of the organization', ofOrg, ACCOUNT_MISSING('s.org', 's.crm_account_id'))));
    out.push(...(await lines(db, 'account_matches', 'partnerCrmAccountId', 'reference to a missing account of the partner organization', ['partner', 'partner_crm_account_id'], ACCOUNT_MISSING('s.partner', 's.partner_crm_account_id'))));
  }
  if (has('events')) {
    out.push(...(await lines(db, 'events', 'crmAccountId', 'reference to a missing account of the organization', ofOrg, ACCOUNT_MISSING('s.org', 's.crm_account_id'))));
    const typeMissing = 'not exists (select 1 from stg_event_types t where t.code = s.event_type_code) and not exists (select 1 from event_types t where t.code = s.event_type_code)';
    out.push(...(await lines(db, 'events', 'eventTypeCode', 'reference to a missing event type', ['event_type_code'], typeMissing)));
    // Known (type, subtype) pairs: a staged type replaces the database's type of that code.
    const pairs = `select t.code, x->>'code' as subtype from stg_event_types t, jsonb_array_elements(coalesce(t.subtypes, '[]')) x
      union all
      select t.code, x->>'code' from event_types t, jsonb_array_elements(t.subtypes) x where not exists (select 1 from stg_event_types st where st.code = t.code)`;
    // A staged type with a problem and no subtypes may have had bad ones: its subtypes are unknown, not checked.
    const subtypesUnknown = 'exists (select 1 from stg_event_types t where t.code = s.event_type_code and t.invalid and t.subtypes is null)';
    out.push(...(await lines(db, 'events', 'eventSubtypeCode', 'not a subtype of the event type', ['event_type_code', 'event_subtype_code'],
      `not (${typeMissing}) and not ${subtypesUnknown} and not exists (select 1 from (${pairs}) k where k.code = s.event_type_code and k.subtype = s.event_subtype_code)`)));
  }
  return out;
}

/**
 * Later lines whose natural key an earlier line of the same file already has. A hash
 * aggregate finds the (few) repeated keys and only those rows are joined back: three
 * times faster than numbering every row in key order (a sort of the whole file). A key
 * with a NULL part (a bad value) joins nothing, so it is never a duplicate.
 */
export async function checkDuplicates(db: Kysely<any>, entity: EntitySpec, keyLabel: string): Promise<LineProblem[]> {
  const key = entity.key.join(', ');
  const table = stagedRowsTable(entity);
  const rows = await sql
    .raw<{ line: number; first: number }>(
      `select s.line, d.first from ${table} s
       join (select ${key}, min(line) as first from ${table} group by ${key} having count(*) > 1) d using (${key})
       where s.line <> d.first order by s.line`,
    )
    .execute(db);
  return rows.rows.map((r) => ({ entity: entity.name, line: Number(r.line), field: keyLabel, problem: `duplicate natural key (${keyLabel}): already on line ${r.first}` }));
}

/**
 * Staged accounts on a parent cycle. SQL finds the accounts whose parent chain never
 * reaches a top-level account (staged rows replace database rows with the same key);
 * that set holds only broken chains (cycles, their descendants, chains ending at a
 * missing parent), so walking it in memory to pick out the cycles stays small. Only the
 * accounts on a cycle are reported: a descendant is fine once the cycle is broken, and a
 * missing parent has its own problem.
 *
 * The walk down from the top-level accounts is a loop of statements over temporary
 * tables, one level of the hierarchy per statement, rather than a recursive CTE: the
 * CTE's UNION keeps every reached account in an in-memory hash table that never spills
 * to disk, which ran PGlite (a WebAssembly heap of at most 2 GB) out of memory at
 * 3,700,000 accounts. Joins and sorts over tables spill within work_mem.
 */
export async function checkParentCycles(db: Kysely<any>): Promise<LineProblem[]> {
  await sql`drop table if exists tmp_cycle_kids, tmp_cycle_reach, tmp_cycle_frontier, tmp_cycle_next`.execute(db);
  // Accounts with a parent (staged rows, then database rows no staged row replaces), and
  // the first level: those whose parent is a top-level account.
  await sql`create temp table tmp_cycle_kids as
    with u as (
      -- A staged account whose key is bad (NULL) is no node of the hierarchy.
      select org, crm_account_id, parent_crm_account_id, line from stg_accounts where org is not null and crm_account_id is not null
      union all
      select o.public_id::text, a.crm_account_id, a.parent_crm_account_id, null
      from accounts a join orgs o on o.id = a.org_id
      where not exists (select 1 from stg_accounts s where s.org = o.public_id::text and s.crm_account_id = a.crm_account_id)
    ),
    tops as (select distinct org, crm_account_id from u where parent_crm_account_id is null)
    -- A join, not an EXISTS per row: a correlated subplan is either a scan of u per account
    -- or a hash table that never spills.
    select k.org, k.crm_account_id as id, k.parent_crm_account_id as parent, k.line, t.org is not null as first
    from u k left join tops t on t.org = k.org and t.crm_account_id = k.parent_crm_account_id
    where k.parent_crm_account_id is not null`.execute(db);
  await sql`create index on tmp_cycle_kids (org, parent)`.execute(db);
  await sql`analyze tmp_cycle_kids`.execute(db);
  await sql`create temp table tmp_cycle_reach as select distinct org, id from tmp_cycle_kids where first`.execute(db);
  await sql`create unique index on tmp_cycle_reach (org, id)`.execute(db);
  await sql`create temp table tmp_cycle_frontier as select * from tmp_cycle_reach`.execute(db);
  for (;;) {
    // The next level: children of the last one not reached yet (an account's duplicate rows
    // may name different parents, so it could be reached twice; the index keeps it once).
    await sql`create temp table tmp_cycle_next as
      select distinct k.org, k.id from tmp_cycle_kids k join tmp_cycle_frontier f on f.org = k.org and f.id = k.parent
      where not exists (select 1 from tmp_cycle_reach r where r.org = k.org and r.id = k.id)`.execute(db);
    const added = await sql`insert into tmp_cycle_reach select org, id from tmp_cycle_next`.execute(db);
    await sql`drop table tmp_cycle_frontier`.execute(db);
    await sql`alter table tmp_cycle_next rename to tmp_cycle_frontier`.execute(db);
    if (Number(added.numAffectedRows ?? 0) === 0) break;
    await sql`analyze tmp_cycle_frontier`.execute(db);
  }
  const rows = await sql<{ org: string; id: string; parent: string | null; line: number | null }>`
    select k.org, k.id, k.parent, k.line from tmp_cycle_kids k
    where not exists (select 1 from tmp_cycle_reach r where r.org = k.org and r.id = k.id)`.execute(db);
  await sql`drop table if exists tmp_cycle_kids, tmp_cycle_reach, tmp_cycle_frontier`.execute(db);
  const node = new Map(rows.rows.map((r) => [`${r.org}|${r.id}`, r]));
  const done = new Set<string>();
  const out: LineProblem[] = [];
  for (const start of node.keys()) {
    // Follow parents until a known end; the first key seen twice on this walk closes a cycle.
    const path: string[] = [];
    const onPath = new Map<string, number>();
    let key: string | undefined = start;
    while (key !== undefined && node.has(key) && !done.has(key) && !onPath.has(key)) {
      onPath.set(key, path.length);
      path.push(key);
      const r: { org: string; parent: string | null } = node.get(key)!;
      key = r.parent === null ? undefined : `${r.org}|${r.parent}`;
    }
    if (key !== undefined && onPath.has(key)) {
      const cycle = path.slice(onPath.get(key)!).map((k) => node.get(k)!);
      cycle.forEach((member, i) => {
        if (member.line === null) return;
        const ids = [...cycle.slice(i), ...cycle.slice(0, i)].map((m) => m.id);
        const shown = ids.length > 10 ? `${ids.slice(0, 10).join(' -> ')} -> ... (${ids.length} accounts)` : [...ids, member.id].join(' -> ');
        out.push({ entity: 'accounts', line: Number(member.line), field: 'parentCrmAccountId', problem: `parent cycle: ${shown}` });
      });
    }
    for (const k of path) done.add(k);
  }
  return out.sort((a, b) => a.line - b.line);
}
