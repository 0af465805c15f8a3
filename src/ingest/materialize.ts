/**
 * Derived data, rebuilt inside the import transaction (so a failed import leaves it as
 * it was): top parent accounts, pipeline-attribution links, and the materialized report
 * tables of migration 0002.
 *
 * Every report table is rebuilt whole. Partner data crosses tenants (organization A's
 * rows read partner B's accounts), so "what changed" is not local to the organizations
 * in a bundle; a full rebuild is always right and costs seconds even at millions of rows.
 *
 * Masking happens here, once: a partner-account value the partner does not share is
 * written as NULL (and left out of `partner_fields`), so no request can ever reach it.
 */
import { sql, type Kysely } from 'kysely';
import { EVENT_DETAIL_COLUMNS } from './bundle-spec.js';
import type { Engine } from '../db/database.js';
import { ACCOUNT_FIELDS, partnerCustomKeySql, type AccountField } from '../reports/catalog/account-fields.js';
import { ANALYTICS_REPORTS, CHANNEL_REPORTS, isTextual, reportById, type ReportDefinition } from '../reports/catalog/index.js';
import { byValueNames } from '../reports/search-values.js';
import { ANALYZED_REPORT_TABLES, buildPrecomputed } from '../reports/precomputed.js';
import { ACCOUNT_FACT_COLUMNS, trigramIndexes } from '../reports/narrow-copies.js';
import { defaultLinePlan, insertLineBlocks, insertLines, LINE_COPIES, lineFingerprint } from '../reports/csv-lines.js';
import { loadOrgMetadata } from '../reports/metadata.js';
import { releaseWal } from './release-wal.js';
import { customParts, loadDefinitions, type CustomParts, type Definitions, type Owners } from './custom-objects.js';

type Pairs = ReadonlyArray<readonly [column: string, expression: string]>;

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** SQL condition: the partnership `p` shares this account field. */
function sharedCondition(f: AccountField): string {
  return f.sharedBy.length === 1 ? `(p.shared_fields ? ${quote(f.sharedBy[0]!)})` : `(p.shared_fields ?| array[${f.sharedBy.map(quote).join(', ')}])`;
}

/** Column of tmp_shares `s` that says whether the partnership shares `f` (evaluated once per partnership). */
const shareFlag = (f: AccountField) => `s.f${ACCOUNT_FIELDS.indexOf(f)}`;

/** The partner-account value of `f`, or NULL when it is not shared. */
function masked(f: AccountField): string {
  return `case when ${shareFlag(f)} then pa.${f.column} end`;
}

// partnerFields builds every standard key and deletes the unshared ones, which is the
// same object as concatenating the shared ones only if no two fields share a key.
if (new Set(ACCOUNT_FIELDS.map((f) => f.partnerKey)).size !== ACCOUNT_FIELDS.length) throw new Error('duplicate partnerFields key');

/**
 * Per connected partnership (a handful of rows), what it shares: one boolean per account
 * field (`f<index>`), the partnerFields keys it does not share (`unshared`) and its shared
 * custom keys in share order (`custom_keys`, NULL when none). The per-row expressions of
 * tmp_matches then read these instead of testing `shared_fields` 37 times per row.
 */
function sharesSelect(): string {
  const flags = ACCOUNT_FIELDS.map((f, i) => `coalesce(${sharedCondition(f)}, false) as f${i}`);
  const unshared = `array_remove(array[${ACCOUNT_FIELDS.map((f) => `case when ${sharedCondition(f)} then null else ${quote(f.partnerKey)} end`).join(', ')}]::text[], null) as unshared`;
  // Only keys the partner defines an account field for, and none that comes out as a
  // standard key, shared or not (catalog partnerColumns keeps the same ones).
  const custom = `(select array_agg(substr(x.f, 8) order by x.n) from jsonb_array_elements_text(p.shared_fields) with ordinality as x(f, n)
      where x.f like 'custom.%'
        and exists (select 1 from custom_fields cf where cf.org_id = p.partner_org_id and cf.entity = 'account' and cf.key = substr(x.f, 8))
        and ${partnerCustomKeySql('substr(x.f, 8)')} <> all(array[${ACCOUNT_FIELDS.map((f) => quote(f.partnerKey)).join(', ')}]::text[])) as custom_keys`;
  return `select sh.*, dense_rank() over (order by sh.unshared)::int as profile from (
  select p.org_id, p.partner_org_id, ${[...flags, unshared, custom].join(',\n    ')}
  from partnerships p where p.status = 'CONNECTED') sh`;
}

const byPath = (path: string): AccountField => {
  const f = ACCOUNT_FIELDS.find((x) => x.field === path);
  if (!f) throw new Error(`unknown account field ${path}`);
  return f;
};

/**
 * The `partnerFields` object: exactly the shared standard and custom fields. A custom
 * field whose key is a standard field's (`account_type` and `partneraccounttype`) gives
 * way to that field, shared or not; a key the partner defines no field for is left out;
 * and of two custom fields with one key
 * (`systems_sold`, `systemssold`) the first shared wins: the same columns as the channel
 * catalog's partnerColumns, which lists standard fields first, then the custom ones in
 * share order, skipping a key already listed.
 *
 * `profiles` are the distinct sets of unshared keys of the connected partnerships (tmp_shares
 * numbers them): for each one the object is built from the shared keys only, so a row pays
 * for the fields its partnership shares; beyond MAX_PROFILES the object is built whole and
 * the unshared keys deleted (the same object, since no two fields share a key).
 */
const MAX_PROFILES = 64;
function partnerFieldsExpression(profiles: ReadonlyArray<{ profile: number; unshared: string[] }>): string {
  const build = (fields: readonly AccountField[]) => `jsonb_build_object(${fields.map((f) => `${quote(f.partnerKey)}, pa.${f.column}`).join(', ')})`;
  const branches = profiles.slice(0, MAX_PROFILES).map(({ profile, unshared }) => `when ${Number(profile)} then ${build(ACCOUNT_FIELDS.filter((f) => !unshared.includes(f.partnerKey)))}`);
  // No connected partnership at all: no profile, and a CASE needs at least one WHEN.
  const whole = `(${build(ACCOUNT_FIELDS)} - s.unshared)`;
  const standard = branches.length ? `case s.profile ${branches.join('\n      ')} else ${whole} end` : whole;
  // jsonb_object_agg keeps the last of equal keys: the first shared is aggregated last.
  const custom = `case when s.custom_keys is null or pa.crm_account_id is null then '{}'::jsonb else coalesce((select jsonb_object_agg(${partnerCustomKeySql('u.k')}, pa.custom -> u.k order by u.n desc)
      from unnest(s.custom_keys) with ordinality as u(k, n)), '{}'::jsonb) end`;
  // `||` keeps the right operand's value of a key both hold: the standard field's.
  return `${custom}\n      || (${standard})`;
}

const text = (expr: string) => `lower(${expr}) collate "C", ${expr} collate "C"`;
/**
 * The last keys of the global reports' and matched accounts' default order: the partner's
 * account (`tmp_matches`' columns). Its id in text order where the partner shares it, then
 * the match date, its name and every other value the partner shares of it (`partner_fields`
 * holds exactly those). Contract 3: a value the caller may not see can reveal nothing
 * through a sort, so nothing hidden orders these rows; only rows that agree in everything
 * the caller can see, and so cannot be told apart, fall to the raw id, which keeps the
 * order unique.
 */
const partnerAccountOrder = [text('m.pa_crm_account_id'), 'm.first_match_date', text('m.pa_name'), 'm.partner_fields', 'm.partner_crm_account_id collate "C"'].join(', ');

/** Which report each table serves: its catalog decides what `search_text` holds. */
const REPORT_OF_TABLE: Record<string, ReportDefinition> = Object.fromEntries([...ANALYTICS_REPORTS, ...CHANNEL_REPORTS].map((r) => [r.table, r]));

/**
 * String values of a jsonb object (the partner fields), separated like the columns: a
 * function (migration 0019) rather than a subquery, which would keep a parallel plan's
 * per-row expressions in its leader.
 */
const jsonStrings = (expr: string) => `pr_json_strings(${expr})`;

/**
 * The row's searchable text: every textual column of the report's catalog but its
 * by-value ones (search-values.ts), the string values of its custom columns (`custom`:
 * custom-objects.ts) and of its shared partner fields, joined by U+001F so that no search
 * term (query.ts tests a term that contains it column by column) can match across two
 * values.
 */
function searchText(table: string, pairs: Pairs, custom?: CustomParts): string {
  const report = REPORT_OF_TABLE[table];
  const source = new Map(pairs);
  const parts: string[] = [];
  // By-value columns are searched through their distinct values instead (search-values.ts).
  const byValue = report ? byValueNames(report) : new Set<string>();
  for (const c of report?.columns ?? []) {
    const name = c.sql.replace(/^r\./, '');
    if (!isTextual(c.type) || byValue.has(name)) continue;
    const expr = source.get(name);
    if (expr) parts.push(`coalesce((${expr})::text, '')`);
  }
  if (custom) parts.push(custom.strings);
  // partner_fields keeps jsonb_each: it is a stored, often compressed, object of ~40
  // keys, and a lookup per key decompresses it again each time (measured: 50% slower).
  if (source.has('partner_fields')) parts.push(jsonStrings(`(${source.get('partner_fields')})`));
  // Stored lower-cased: `x ilike p` on a UTF-8 database is `lower(x) like lower(p)` (the
  // matcher lowers both), so search runs LIKE on this column without lowering ~600 bytes
  // per row per request (query.ts searchCondition).
  return parts.length ? `lower(${parts.join(' || chr(31) || ')})` : "''";
}

/**
 * Report tables are rebuilt beside the live ones (`<table>__next`) and swapped in at the
 * end of the build: requests keep reading the previous tables while an import runs (they
 * wait only for the swap and the summaries after it), and the rebuilt tables carry no
 * dead rows (a `delete` of the old rows doubled every table until a vacuum).
 */
const NEXT = '__next';

/** Primary keys other than (org_id, rid). */
const PRIMARY_KEYS: Record<string, string> = { rpt_account_line_blocks: 'org_id, block' };

/** The tables every import rebuilds and swaps in (vacuumed after it commits, import-bundle.ts). */
export const REPORT_TABLES = ['rpt_global_accounts', 'rpt_account_facts', 'rpt_account_lines', 'rpt_account_line_blocks', 'rpt_global_opportunities', 'rpt_attribution_events', 'rpt_event_facts', 'rpt_new_opportunities', 'rpt_attribution_links', 'rpt_attribution_facts', 'rpt_connected_partners', 'rpt_matched_accounts'] as const;

/**
 * The report's columns, its `custom` object (when `owners` says which alias holds each
 * entity's custom fields) and its search text: what insert() and createAs() write.
 */
function withDerived(table: string, pairs: Pairs, defs: Definitions, owners?: Owners): Pairs {
  const custom = owners ? customParts(REPORT_OF_TABLE[table]!, owners, defs, pairs.find(([c]) => c === 'org_id')![1]) : undefined;
  const all: Pairs = custom ? [...pairs, ['custom', custom.object]] : pairs;
  return [...all, ['search_text', searchText(table, pairs, custom)]];
}

async function insert(db: Kysely<any>, defs: Definitions, table: string, pairs: Pairs, from: string, owners?: Owners): Promise<void> {
  const all = withDerived(table, pairs, defs, owners);
  const columns = all.map(([c]) => c).join(', ');
  const expressions = all.map(([, e]) => e).join(',\n    ');
  await sql.raw(`insert into ${table}${NEXT} (${columns})\n  select ${expressions}\n  ${from}`).execute(db);
}

interface ColumnDefinition {
  name: string;
  type: string;
  notNull: boolean;
  collation: string | null;
  defaultExpression: string | null;
  compression: string;
}

/** The live table's columns in order, as the migrations declared them. */
async function columnsOf(db: Kysely<any>, table: string): Promise<ColumnDefinition[]> {
  const rows = await sql<ColumnDefinition>`
    select a.attname as name, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as "notNull",
      case when a.attcollation <> t.typcollation then quote_ident(c.collname) end as collation,
      pg_get_expr(d.adbin, d.adrelid) as "defaultExpression", a.attcompression::text as compression
    from pg_attribute a
    join pg_type t on t.oid = a.atttypid
    left join pg_collation c on c.oid = a.attcollation
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where a.attrelid = ${table}::regclass and a.attnum > 0 and not a.attisdropped
    order by a.attnum`.execute(db);
  return rows.rows;
}

/**
 * Numbers a report's rows on their keys and sort columns only, into the unlogged scratch
 * table `name` (`keys`, `rid`): `rid` counts from 1 per organization (`partition`) in
 * `order`, over the rows `from` yields. The report is then written by createAs from this
 * table joined back to its sources (`order by` org, `rid`). Numbering in the wide
 * statement itself sorted its joined rows whole (70-odd columns, custom objects and
 * search text): 356 MB spilled to disk for the opportunities report at scale 100, and
 * tens of gigabytes at scale 1000; and a window function keeps the statement in one
 * process. `from` must yield exactly the rows the wide statement joins back: the same
 * inner joins, and keys that name one row each.
 */
/** The order createAs writes a numbered report in: organization, then numberRows' `rid` (`k`). */
const NUMBERED_ORDER = 'k.org_id, k.rid';

async function numberRows(db: Kysely<any>, name: string, keys: string, partition: string, order: string, from: string): Promise<void> {
  await sql.raw(`create unlogged table ${name} as\n  select ${keys}, row_number() over (partition by ${partition} order by ${order}) as rid\n  ${from}`).execute(db);
  await sql.raw(`analyze ${name}`).execute(db);
}

/**
 * The rebuilt table as `create table ... as select`, the same rows as insert() would
 * write. PostgreSQL 15 runs no part of an `insert ... select` in parallel workers, but
 * does run the query of a `create table as`: the joins and the per-row expressions (the
 * search text, the merged custom objects, 80-odd columns) run in two workers and the
 * leader only writes the rows. The links report, the widest and largest, took 9.1-9.6 s
 * this way against 13.2 s by insert at scale 100 (docs/benchmarks.md, thirteenth
 * session). Its rows must already be numbered (numberRows): a window function runs in
 * the leader, and the expressions above it with it. `order` (the numbered keys), where
 * given, writes the rows in `rid` order, each worker sorting its share and the leader
 * merging them, so a range of `rid`s stays a range of pages for the reads that walk the
 * default order (a page, a keyset batch of a download); at scale 100 that cost the
 * opportunities report 4.3 s against 2.6 s unordered, and 8.2 s as an insert that
 * numbered its rows.
 *
 * The table is made to match the live one column for column: each expression is cast to
 * the declared type (and collation), columns the report does not fill are NULL, and the
 * NOT NULL constraints and defaults are added after (one scan of the new rows). A column
 * with its own compression method is refused: `create table as` cannot set it before
 * the rows are written (insert() keeps it, through `like ... including compression`).
 * The empty `__next` table materialize made for every report is replaced.
 */
async function createAs(db: Kysely<any>, defs: Definitions, table: string, pairs: Pairs, from: string, owners: Owners, order?: string): Promise<void> {
  const source = new Map(withDerived(table, pairs, defs, owners));
  const columns = await columnsOf(db, table);
  const unknown = [...source.keys()].filter((c) => !columns.some((d) => d.name === c));
  if (unknown.length) throw new Error(`${table} has no column ${unknown.join(', ')}`);
  const compressed = columns.filter((c) => c.compression !== '');
  if (compressed.length) throw new Error(`${table}: createAs cannot keep the compression of ${compressed.map((c) => c.name).join(', ')}`);
  const expressions = columns.map((c) => `(${source.get(c.name) ?? 'null'})::${c.type}${c.collation ? ` collate ${c.collation}` : ''}`);
  await sql.raw(`drop table ${table}${NEXT}`).execute(db);
  await sql.raw(`create table ${table}${NEXT} (${columns.map((c) => c.name).join(', ')}) as\n  select ${expressions.join(',\n    ')}\n  ${from}${order ? `\n  order by ${order}` : ''}`).execute(db);
  const constraints = [
    ...columns.filter((c) => c.notNull).map((c) => `alter column ${c.name} set not null`),
    ...columns.filter((c) => c.defaultExpression !== null).map((c) => `alter column ${c.name} set default ${c.defaultExpression}`),
  ];
  if (constraints.length) await sql.raw(`alter table ${table}${NEXT} ${constraints.join(', ')}`).execute(db);
}

// ---- column groups (API name <- expression) -------------------------------------------

const accountGlobal = (a: string): Pairs => [
  ['account_type', `${a}.account_type`], ['crm_account_id', `${a}.crm_account_id`], ['duns_number', `${a}.duns_number`],
  ['street', `${a}.street`], ['city', `${a}.city`], ['state', `${a}.state`], ['zip_code', `${a}.zip_code`], ['country', `${a}.country`],
  ['industry', `${a}.industry`], ['territory', `${a}.territory`], ['divisions', `${a}.divisions`], ['website', `${a}.website`],
  ['naics_code', `${a}.naics_code`], ['sic_code', `${a}.sic_code`], ['phone_number', `${a}.phone_number`], ['tax_id', `${a}.tax_id`],
  ['nces_id', `${a}.nces_id`], ['annual_revenue', `${a}.annual_revenue`], ['account_acv', `${a}.account_acv`],
  ['open_pipeline_amount', `${a}.open_pipeline_amount`], ['number_of_employees', `${a}.number_of_employees`],
  ['open_opp_count', `${a}.open_opp_count`], ['closed_opp_count', `${a}.closed_opp_count`],
  ['recent_open_opp_date', `${a}.recent_open_opp_date`], ['recent_closed_opp_date', `${a}.recent_closed_opp_date`],
];

/** Partner columns of the global reports, from tmp_matches `m` (already masked). */
const partnerGlobal: Pairs = [
  ['partner_count', 'pc.n'], ['partner_account_name', 'm.pa_name'], ['partner_org_name', 'm.partner_name'],
  ['partner_account_type', 'm.pa_account_type'], ['partner_crm_account_id', 'm.pa_crm_account_id'],
  ['partner_account_acv', 'm.pa_account_acv'], ['partner_open_pipeline_amount', 'm.pa_open_pipeline_amount'],
  ['partner_open_opp', 'm.pa_open_opp_count'], ['partner_closed_opp', 'm.pa_closed_opp_count'],
  ['partner_closed_opp_won_count', 'm.pa_closed_won_opp_count'], ['partner_first_match_date', 'm.first_match_date'],
  ['partner_account_owner_name', 'm.pa_owner_name'], ['partner_account_owner_email', 'm.pa_owner_email'],
  ['partner_account_owner_title', 'm.pa_owner_title'], ['partner_account_owner_phone', 'm.pa_owner_phone'],
  ['partner_website', 'm.partner_website'], ['prm_record_id', 'm.prm_record_id'], ['partner_owner', 'm.p_owner_name'],
  ['partner_owner_email', 'm.p_owner_email'], ['partner_owner_phone', 'm.p_owner_phone'], ['partner_org_partner_type', 'm.partner_type'],
  ['partner_street', 'm.partner_street'], ['partner_city', 'm.partner_city'], ['partner_state', 'm.partner_state'],
  ['partner_postal_code', 'm.partner_zip_code'], ['partner_country', 'm.partner_country'],
  ['average_referral_deal_size', 'm.average_referral_deal_size'], ['partner_org_public_id', 'm.partner_public_id'],
];

/** Group A of spec 2.5 from account alias `a`. */
const groupA = (a: string): Pairs => [
  ['account_type', `${a}.account_type`], ['street', `${a}.street`], ['city', `${a}.city`], ['state', `${a}.state`],
  ['zip_code', `${a}.zip_code`], ['country', `${a}.country`], ['website', `${a}.website`], ['industry', `${a}.industry`],
  ['territory', `${a}.territory`], ['number_of_employees', `${a}.number_of_employees`], ['open_opp_count', `${a}.open_opp_count`],
  ['closed_opp_count', `${a}.closed_opp_count`], ['closed_won_opp_count', `${a}.closed_won_opp_count`], ['is_customer', `${a}.is_customer`],
  ['annual_revenue', `${a}.annual_revenue`], ['account_acv', `${a}.account_acv`], ['open_pipeline_amount', `${a}.open_pipeline_amount`],
  ['sic_code', `${a}.sic_code`], ['naics_code', `${a}.naics_code`], ['nces_id', `${a}.nces_id`], ['duns_number', `${a}.duns_number`],
  ['phone_number', `${a}.phone_number`], ['owner_name', `${a}.owner_name`], ['owner_email', `${a}.owner_email`],
  ['owner_title', `${a}.owner_title`], ['owner_phone', `${a}.owner_phone`], ['owner_division', `${a}.owner_division`],
];

/** Group B from partnership `p` and partner organization `po` (never masked: caller's own record and public profile). */
const groupB: Pairs = [
  ['partner_street', 'po.street'], ['partner_city', 'po.city'], ['partner_state', 'po.state'], ['partner_country', 'po.country'],
  ['partner_zip_code', 'po.zip_code'], ['partner_owner_name', 'p.owner_name'], ['partner_owner_email', 'p.owner_email'],
  ['partner_owner_phone', 'p.owner_phone'], ['partner_type', 'p.partner_type'], ['partner_status', 'p.status'],
  ['partner_website', 'po.website'], ['partner_crm_record_id', 'p.crm_record_id'], ['partner_prm_record_id', 'p.prm_record_id'],
  ['partner_average_referral_deal_size', 'p.average_referral_deal_size'],
];

/** Group C from event `e`. */
const groupC: Pairs = Object.entries(EVENT_DETAIL_COLUMNS).map(([key, column]) => [column, `e.custom->>${quote(key)}`]);

/** Event columns from event `e`, its type `et`, subtype `st`, partner `po`, top parent `tp`. */
const eventColumns: Pairs = [
  ['event_date', 'e.event_date'], ['event_type_code', 'e.event_type_code'], ['event_subtype_code', 'e.event_subtype_code'],
  ['event_type_display_name', 'et.display_name'], ['event_subtype_display_name', 'st.display_name'], ['event_group_display_name', 'et.group_name'],
  ['event_source', 'e.event_source'], ['event_name', 'e.event_name'], ['event_description', 'e.event_description'],
  ['event_user_name', 'e.user_name'], ['event_user_email', 'e.user_email'], ['event_user_title', 'e.user_title'],
  ['company_partner_public_id', 'po.public_id::text'], ['event_source_link', 'e.source_link'],
  ['top_parent_crm_account_id', 'tp.top_id'], ['top_parent_crm_account_name', 'tp.top_name'],
];

const ptStatus = (o: string) => `case when coalesce(${o}.is_closed, false) = false then 'OPEN' when ${o}.is_won then 'WON' else 'LOST' end`;

/** The opp_* columns from opportunity `o` and its account `oa`. */
const oppColumns: Pairs = [
  ['opp_name', 'o.name'], ['opp_amount', 'o.amount'], ['opp_created_date', 'o.created_date'],
  ['opp_crm_opportunity_id', 'o.crm_opportunity_id'], ['opp_crm_account_id', 'o.crm_account_id'], ['opp_stage_name', 'o.stage_name'],
  ['opp_close_date', 'o.close_date'], ['opp_is_won', 'o.is_won'], ['opp_opportunity_type', 'o.opportunity_type'], ['opp_is_closed', 'o.is_closed'],
  ['opp_opportunity_owner_name', 'o.owner_name'], ['opp_opportunity_owner_email', 'o.owner_email'],
  ['opp_opportunity_owner_title', 'o.owner_title'], ['opp_opportunity_owner_phone', 'o.owner_phone'],
  ['opp_last_modified_date', 'o.last_modified_date'], ['opp_account_name', 'oa.name'], ['opp_probability', 'o.probability'],
  ['opp_expected_revenue', 'o.expected_revenue'], ['opp_pt_status', ptStatus('o')],
];

// ---- the build ------------------------------------------------------------------------

/**
 * Secondary indexes of the report tables, created on the rebuilt tables before the swap.
 * Tenant first.
 */
const REPORT_INDEXES: ReadonlyArray<readonly [name: string, definition: string]> = [
  ['rpt_attribution_links_opp', 'rpt_attribution_links (org_id, opp_rid)'],
  ['rpt_attribution_links_scope', 'rpt_attribution_links (org_id, partner_org_id, event_date)'],
  ['rpt_attribution_facts_scope', 'rpt_attribution_facts (org_id, event_date)'],
  // Pins "last N days" creation-date windows to a stored date (src/reports/date-windows.ts).
  ['rpt_attribution_facts_created', 'rpt_attribution_facts (org_id, opp_created_date)'],
  ['rpt_attribution_events_scope', 'rpt_attribution_events (org_id, partner_org_id, event_date)'],
  ['rpt_event_facts_scope', 'rpt_event_facts (org_id, event_date)'],
  ['rpt_matched_accounts_partner', 'rpt_matched_accounts (org_id, partner_org_id, rid)'],
  // The global accounts report reaches millions of rows per tenant: btree indexes for the
  // filters and sorts people use most (an exact country filter in the default order, the
  // revenue sort, the employee and match-date ranges). Each costs one sort of the table.
  ['rpt_global_accounts_country', 'rpt_global_accounts (org_id, country, rid)'],
  ['rpt_global_accounts_revenue', 'rpt_global_accounts (org_id, annual_revenue desc nulls last, rid)'],
  ['rpt_global_accounts_employees', 'rpt_global_accounts (org_id, number_of_employees)'],
  ['rpt_global_accounts_match_date', 'rpt_global_accounts (org_id, partner_first_match_date)'],
  // "contains" on the account's name, from trigram matches (narrow-copies.ts, migration 0014).
  ...trigramIndexes(),
  // Free-text search of the accounts report (query.ts searchCondition): a LIKE on the
  // row's lower-cased search_text, or one of the by-value columns equal to a value that
  // contains the term (search-values.ts). Without it a term is a scan of every row's text:
  // 3-4 s at 2,000,000 rows, and minutes at ten clients; with it a term's rows come from
  // the index's matches. Its cost is the import's, and follows the distinct trigrams per
  // row (a larger maintenance_work_mem did not change it): 410 s at 2,100,000 rows with
  // every textual column's trigrams (docs/benchmarks.md, eleventh session), about half
  // that with the by-value columns held as whole values (fourteenth session). Only this
  // report: it is the one that reaches millions of rows a tenant and is searched
  // interactively; the others' searches stay scans, kept as bitsets once seen
  // (column-store.ts probes).
  searchIndex(),
];

/** The accounts report's search index: tenant first, the search text's trigrams, then one entry per by-value column. */
function searchIndex(): readonly [string, string] {
  const names = [...byValueNames(reportById('GLOBAL_VERTICAL_ACCOUNTS'))];
  // A GIN index takes at most 32 columns.
  if (names.length > 30) throw new Error(`GLOBAL_VERTICAL_ACCOUNTS lists ${names.length} searchByValue columns; the search index holds at most 30`);
  return ['rpt_global_accounts_search', `rpt_global_accounts using gin (org_id, search_text gin_trgm_ops${names.map((n) => `, ${n}`).join('')})`];
}

/** Tables with fresh statistics when materialize returns: analyzed after their last write, inside the transaction. */
const ANALYZED_BASE_TABLES = ['orgs', 'partnerships', 'opportunities', 'account_matches', 'events', 'event_types', 'custom_fields'] as const;
export const ANALYZED_IN_IMPORT: ReadonlySet<string> = new Set([...ANALYZED_BASE_TABLES, ...ANALYZED_REPORT_TABLES]);

/**
 * Sort and hash memory of the rebuild, per engine. PostgreSQL: the window sorts of the
 * report inserts carry whole rows (~1-2 KB each) and with the default 4 MB spilled
 * 240-270 MB to disk at 200,000 rows; index builds sort (org_id, key, rid) entries, and at
 * 2,000,000 rows per table the default 64 MB spills them. PGlite runs in this process, in
 * a WebAssembly heap that never shrinks: there the smaller settings took the import's
 * peak RSS from 1,074 to 864 MB at scale 100 in the same time (docs/benchmarks.md).
 */
const MEMORY: Record<Engine, { work: string; maintenance: string }> = {
  postgres: { work: '128MB', maintenance: '256MB' },
  pglite: { work: '32MB', maintenance: '64MB' },
};

/**
 * The import's sort and hash memory (`set local`: it ends with the import transaction).
 * On PostgreSQL it is set when the transaction starts, so the checks and upserts get it
 * too: their hash aggregates and anti-joins over a staged file of millions of keys
 * spilled to disk in batches at the default 4 MB (the duplicate check took 0.92-0.97 s
 * instead of 1.22-1.42 s at scale 100 with it; docs/benchmarks.md, thirteenth session).
 */
export async function setImportMemory(db: Kysely<any>, engine: Engine): Promise<void> {
  await sql.raw(`set local work_mem = '${MEMORY[engine].work}'`).execute(db);
  await sql.raw(`set local maintenance_work_mem = '${MEMORY[engine].maintenance}'`).execute(db);
}

/**
 * The edition of the rules materialize builds report tables by, stored with the tables
 * (`service_state.reports_format`). An import that changes no record skips the rebuild
 * only when the stored tables were built by these rules: a change to what materialize
 * writes for the same records (a column's value, a new table, a rule of masking) must
 * raise this number, so the next import rebuilds even when its bundle changes nothing.
 * 1: the first edition; 2: partnerFields custom keys without underscores, a standard
 * field's key winning over a custom one's (spec 2.10; migration 0018 renames them in
 * place meanwhile); 3: no partnerFields key for a custom key the partner defines no field
 * for, and none taking a standard key that is not shared; 4: ids in the default orders in
 * text order (lower-cased, then as written), and no hidden partner account id ordering rows.
 */
export const REPORTS_FORMAT = 4;

/** Whether the report tables were built by this edition's rules (REPORTS_FORMAT). */
export async function reportsAreCurrent(db: Kysely<any>): Promise<boolean> {
  const { rows } = await sql<{ value: string }>`select value from service_state where key = 'reports_format'`.execute(db);
  return rows[0]?.value === String(REPORTS_FORMAT);
}

/**
 * Rebuilds the report tables. Returns warnings for the import to show: the indexes left
 * out because a value was too long for them (`createReportIndex`).
 */
export async function materialize(db: Kysely<any>, engine: Engine): Promise<string[]> {
  const warnings: string[] = [];
  // Already set by the import; again here for a rebuild on its own (bench/materialize-timing.ts).
  await setImportMemory(db, engine);
  // accounts too: the planner needs its statistics for the builds below.
  await sql.raw(`analyze accounts, ${ANALYZED_BASE_TABLES.join(', ')}`).execute(db);
  for (const t of TEMPORARY_TABLES) await sql.raw(`drop table if exists ${t}`).execute(db);
  await computeTopParents(db);
  await buildTemporaryTables(db);
  const defs = await loadDefinitions(db);
  for (const table of REPORT_TABLES) {
    await sql.raw(`drop table if exists ${table}${NEXT}`).execute(db);
    // `including compression`: the line blocks are compressed with lz4 where the server has it (migration 0012).
    await sql.raw(`create table ${table}${NEXT} (like ${table} including defaults including compression)`).execute(db);
  }
  // Each build writes gigabytes at scale: PGlite's WAL is released between them (release-wal.ts).
  const steps = [
    () => buildGlobalAccounts(db, defs),
    () => buildCsvLines(db),
    () => buildGlobalOpportunities(db, defs),
    () => buildAttributionEvents(db, defs),
    () => buildPipelineAttribution(db, defs),
    () => buildConnectedPartners(db, defs),
    () => buildMatchedAccounts(db, defs),
  ];
  for (const step of steps) {
    await step();
    await releaseWal(db, engine);
  }
  for (const t of TEMPORARY_TABLES) await sql.raw(`drop table if exists ${t}`).execute(db);
  // Indexes after the bulk insert (cheaper than maintaining them row by row), then the swap.
  for (const table of REPORT_TABLES) {
    await sql.raw(`alter table ${table}${NEXT} add primary key (${PRIMARY_KEYS[table] ?? 'org_id, rid'})`).execute(db);
    await releaseWal(db, engine);
  }
  const built: string[] = [];
  for (const [name, definition] of REPORT_INDEXES) {
    if (await createReportIndex(db, name, definition, warnings)) built.push(name);
    await releaseWal(db, engine);
  }
  for (const table of REPORT_TABLES) {
    await sql.raw(`drop table ${table}`).execute(db);
    await sql.raw(`alter table ${table}${NEXT} rename to ${table}`).execute(db);
    await sql.raw(`alter index ${table}${NEXT}_pkey rename to ${table}_pkey`).execute(db);
  }
  for (const name of built) await sql.raw(`alter index ${name}${NEXT} rename to ${name}`).execute(db);
  await buildPrecomputed(db);
  await sql`insert into service_state (key, value) values ('reports_format', ${String(REPORTS_FORMAT)}) on conflict (key) do update set value = excluded.value`.execute(db);
  return warnings;
}

/**
 * One of REPORT_INDEXES, in a savepoint. A btree entry, and a GIN entry of a whole value
 * (the search index's by-value columns), holds at most about 2,700 bytes after
 * compression (PostgreSQL's "index row size ... exceeds maximum", SQLSTATE 54000): an
 * account whose city is 3,000 characters of text that does not compress is legal data,
 * and used to fail the whole import after its upsert. These indexes only speed answers
 * up (every query is right without them), so such an index is left out, with a warning,
 * until an import whose values all fit.
 */
async function createReportIndex(db: Kysely<any>, name: string, definition: string, warnings: string[]): Promise<boolean> {
  const space = definition.indexOf(' ');
  await sql`savepoint report_index`.execute(db);
  try {
    await sql.raw(`create index ${name}${NEXT} on ${definition.slice(0, space)}${NEXT} ${definition.slice(space + 1)}`).execute(db);
    await sql`release savepoint report_index`.execute(db);
    return true;
  } catch (err) {
    if ((err as { code?: unknown }).code !== PROGRAM_LIMIT_EXCEEDED) throw err;
    await sql`rollback to savepoint report_index`.execute(db);
    await sql`release savepoint report_index`.execute(db);
    warnings.push(`index ${name} was not built: ${(err as Error).message} (a text value too long to index); answers are the same without it, only slower on large tenants, until an import whose values all fit`);
    return false;
  }
}

/** SQLSTATE of an index entry too large (and of other size limits). */
export const PROGRAM_LIMIT_EXCEEDED = '54000';

/**
 * Every account's top parent (parentCrmAccountId followed to the root; import has already
 * rejected cycles and dangling parents), with the root's name: `tmp_top_parents`
 * (org_id, crm_account_id, top_id, top_name). A narrow temporary table rather than a
 * column of `accounts` (migration 0006): updating that column rewrote every account row
 * and index entry, 6+ minutes at 3.7 million accounts. The recursion walks a narrow copy
 * of the child rows, so each level scans tens of bytes per account, not the whole row.
 */
async function computeTopParents(db: Kysely<any>): Promise<void> {
  await sql`create temp table tmp_children as
    select org_id, crm_account_id, parent_crm_account_id from accounts where parent_crm_account_id is not null`.execute(db);
  await sql`analyze tmp_children`.execute(db);
  await sql`create unlogged table tmp_top_parents as
    with recursive tp as (
      select org_id, crm_account_id, crm_account_id as top_id, name as top_name from accounts where parent_crm_account_id is null
      union all
      select c.org_id, c.crm_account_id, tp.top_id, tp.top_name
      from tmp_children c join tp on c.org_id = tp.org_id and c.parent_crm_account_id = tp.crm_account_id
    )
    select * from tp`.execute(db);
  await sql`analyze tmp_top_parents`.execute(db);
}

/**
 * The build's scratch tables, dropped before the commit. Those createAs' statements read
 * (the matches, top parents, subtypes, partner counts and every numbering of numberRows)
 * are unlogged tables, the others temporary: PostgreSQL runs no part of a plan that
 * reads a temporary table in a parallel worker. Created and dropped inside the import
 * transaction, they are never seen by another session, and a rollback removes them like
 * the rest.
 */
const TEMPORARY_TABLES = ['tmp_children', 'tmp_top_parents', 'tmp_shares', 'tmp_matches', 'tmp_partner_counts', 'tmp_subtypes', 'tmp_account_rids', 'tmp_opp_rids', 'tmp_event_rids', 'tmp_links', 'tmp_match_rids'] as const;

async function buildTemporaryTables(db: Kysely<any>): Promise<void> {
  await sql.raw(`create temp table tmp_shares as\n  ${sharesSelect()}`).execute(db);
  const profiles = (await sql<{ profile: number; unshared: string[] }>`select distinct profile, unshared from tmp_shares order by profile`.execute(db)).rows;
  const pa = (path: string, as: string) => `${masked(byPath(path))} as ${as}`;
  // Matches with CONNECTED partners only: pending and disconnected partners contribute nothing.
  // `mid` names a match in one column, so the reports joined back to it by numberRows'
  // keys get one equality to estimate (four correlated ones gave the planner 1 row for
  // 200,000 and nested loops). Unlogged, not temporary: createAs' parallel workers read it.
  await sql
    .raw(
      `create unlogged table tmp_matches as
  select row_number() over () as mid, m.org_id, m.crm_account_id, m.partner_org_id, m.partner_crm_account_id, m.first_match_date,
    p.prm_record_id, p.crm_record_id, p.partner_type, p.owner_name as p_owner_name, p.owner_email as p_owner_email,
    p.owner_phone as p_owner_phone, p.average_referral_deal_size,
    po.public_id::text as partner_public_id, po.name as partner_name, po.website as partner_website, po.street as partner_street,
    po.city as partner_city, po.state as partner_state, po.zip_code as partner_zip_code, po.country as partner_country,
    ${pa('name', 'pa_name')}, ${pa('accountType', 'pa_account_type')}, ${pa('crmAccountId', 'pa_crm_account_id')},
    ${pa('accountAcv', 'pa_account_acv')}, ${pa('openPipelineAmount', 'pa_open_pipeline_amount')},
    ${pa('openOppCount', 'pa_open_opp_count')}, ${pa('closedOppCount', 'pa_closed_opp_count')},
    ${pa('closedWonOppCount', 'pa_closed_won_opp_count')}, ${pa('owner.name', 'pa_owner_name')},
    ${pa('owner.email', 'pa_owner_email')}, ${pa('owner.title', 'pa_owner_title')}, ${pa('owner.phone', 'pa_owner_phone')},
    ${pa('city', 'pa_city')}, ${pa('state', 'pa_state')}, ${pa('country', 'pa_country')},
    (pa.crm_account_id is not null and ${['city', 'state', 'country'].map((f) => shareFlag(byPath(f))).join(' and ')}) as location_shared,
    ${partnerFieldsExpression(profiles)} as partner_fields
  from account_matches m
  join partnerships p on p.org_id = m.org_id and p.partner_org_id = m.partner_org_id and p.status = 'CONNECTED'
  join tmp_shares s on s.org_id = m.org_id and s.partner_org_id = m.partner_org_id
  join orgs po on po.id = m.partner_org_id
  left join accounts pa on pa.org_id = m.partner_org_id and pa.crm_account_id = m.partner_crm_account_id`,
    )
    .execute(db);
  await sql`create unlogged table tmp_partner_counts as
    select org_id, crm_account_id, count(distinct partner_org_id) as n from tmp_matches group by org_id, crm_account_id`.execute(db);
  // Fresh statistics inside the transaction: without them the planner sees empty tables
  // and picks nested loops for the joins below.
  // The join columns only: the statistics of the other ~40 columns (most of the sampling
  // cost) would not change a plan's shape here.
  await sql`analyze tmp_matches (mid, org_id, crm_account_id)`.execute(db);
  await sql`analyze tmp_partner_counts`.execute(db);
  await sql`create unlogged table tmp_subtypes as
    select et.code, s->>'code' as subcode, s->>'displayName' as display_name
    from event_types et cross join lateral jsonb_array_elements(et.subtypes) as s`.execute(db);
}

/** tmp_matches `m` with its account `a`: the rows of the global accounts and matched accounts reports. */
const MATCHED_ACCOUNTS = `from tmp_matches m
  join accounts a on a.org_id = m.org_id and a.crm_account_id = m.crm_account_id`;

async function buildGlobalAccounts(db: Kysely<any>, defs: Definitions): Promise<void> {
  await numberRows(db, 'tmp_account_rids', 'm.mid, m.org_id', 'm.org_id',
    `${text('a.name')}, ${text('a.crm_account_id')}, ${text('m.partner_name')}, m.partner_public_id, ${partnerAccountOrder}`, MATCHED_ACCOUNTS);
  await createAs(
    db,
    defs,
    'rpt_global_accounts',
    [
      ['org_id', 'm.org_id'],
      ['rid', 'k.rid'],
      ['partner_org_id', 'm.partner_org_id'],
      ['account_name', 'a.name'], ['account_owner_name', 'a.owner_name'], ['account_owner_email', 'a.owner_email'],
      ['account_owner_title', 'a.owner_title'], ['is_customer', 'a.is_customer'],
      ...accountGlobal('a'),
      ...partnerGlobal,
      ['customownername', 'a.custom_owner_name'], ['customowneremail', 'a.custom_owner_email'], ['customownertitle', 'a.custom_owner_title'],
    ],
    `from tmp_account_rids k
  join tmp_matches m on m.mid = k.mid
  join accounts a on a.org_id = m.org_id and a.crm_account_id = m.crm_account_id
  join tmp_partner_counts pc on pc.org_id = m.org_id and pc.crm_account_id = m.crm_account_id`,
    { account: 'a' },
    NUMBERED_ORDER,
  );
  // The narrow copy that filtered counts read (src/reports/narrow-copies.ts).
  await insertCopy(db, 'rpt_account_facts', 'rpt_global_accounts', ACCOUNT_FACT_COLUMNS, 'org_id, rid');
}

async function buildGlobalOpportunities(db: Kysely<any>, defs: Definitions): Promise<void> {
  await numberRows(db, 'tmp_opp_rids', 'm.mid, o.org_id, o.crm_opportunity_id', 'm.org_id',
    `${text('a.name')}, ${text('o.name')}, ${text('o.crm_opportunity_id')}, ${text('m.partner_name')}, m.partner_public_id, ${partnerAccountOrder}`,
    `${MATCHED_ACCOUNTS}
  join opportunities o on o.org_id = m.org_id and o.crm_account_id = m.crm_account_id`);
  await createAs(
    db,
    defs,
    'rpt_global_opportunities',
    [
      ['org_id', 'm.org_id'],
      ['rid', 'k.rid'],
      ['partner_org_id', 'm.partner_org_id'],
      ['account_name', 'a.name'], ['org_name', 'org.name'], ['opportunity_name', 'o.name'], ['amount', 'o.amount'],
      ['crm_created_date', 'o.created_date'], ['stage_name', 'o.stage_name'], ['close_date', 'o.close_date'],
      ['opportunity_owner_name', 'o.owner_name'], ['opportunity_owner_email', 'o.owner_email'],
      ['opportunity_owner_title', 'o.owner_title'], ['opportunity_owner_phone', 'o.owner_phone'],
      ['opportunity_type', 'o.opportunity_type'], ['probability', 'o.probability'], ['expected_revenue', 'o.expected_revenue'],
      ['is_closed', 'o.is_closed'], ['is_won', 'o.is_won'], ['last_modified_date', 'o.last_modified_date'],
      ['crm_opportunity_id', 'o.crm_opportunity_id'],
      ...accountGlobal('a'),
      ...partnerGlobal,
    ],
    `from tmp_opp_rids k
  join tmp_matches m on m.mid = k.mid
  join accounts a on a.org_id = m.org_id and a.crm_account_id = m.crm_account_id
  join opportunities o on o.org_id = k.org_id and o.crm_opportunity_id = k.crm_opportunity_id
  join orgs org on org.id = m.org_id
  join tmp_partner_counts pc on pc.org_id = m.org_id and pc.crm_account_id = m.crm_account_id`,
    { opportunity: 'o' },
    NUMBERED_ORDER,
  );
}

/** Joins shared by the two event-based tables: event `e` with account `a`, top parent `tp`, type, subtype, partner. */
const EVENT_JOINS = `
  join accounts a on a.org_id = e.org_id and a.crm_account_id = e.crm_account_id
  join tmp_top_parents tp on tp.org_id = a.org_id and tp.crm_account_id = a.crm_account_id
  join partnerships p on p.org_id = e.org_id and p.partner_org_id = e.partner_org_id and p.status = 'CONNECTED'
  join orgs po on po.id = e.partner_org_id
  left join event_types et on et.code = e.event_type_code
  left join tmp_subtypes st on st.code = e.event_type_code and st.subcode = e.event_subtype_code`;

async function buildAttributionEvents(db: Kysely<any>, defs: Definitions): Promise<void> {
  await numberRows(db, 'tmp_event_rids', 'e.org_id, e.event_id', 'e.org_id', `e.event_date desc, ${text('e.event_id')}`, `from events e ${EVENT_JOINS}`);
  await createAs(
    db,
    defs,
    'rpt_attribution_events',
    [
      ['org_id', 'e.org_id'],
      ['rid', 'k.rid'],
      ['partner_org_id', 'e.partner_org_id'],
      ['account_name', 'a.name'], ['partner_org_name', 'po.name'], ['crm_account_id', 'a.crm_account_id'],
      ...eventColumns,
      ...groupC,
      ...groupA('a'),
      ...groupB,
    ],
    `from tmp_event_rids k
  join events e on e.org_id = k.org_id and e.event_id = k.event_id ${EVENT_JOINS}`,
    { event: 'e', account: 'a' },
    NUMBERED_ORDER,
  );
  // The narrow copy that context-only counts read (migration 0007), in (org_id, event_date)
  // order so that an event window is a contiguous range of pages.
  await insertCopy(db, 'rpt_event_facts', 'rpt_attribution_events', ['event_date', 'event_type_code'], 'org_id, event_date');
}

/**
 * Pipeline attribution (contract section 6): event E (account a, partner p, date d) is
 * linked to opportunity O of the same organization when both accounts share a top parent
 * and d <= O.createdDate <= d + W days. An opportunity with at least one link is new.
 */
async function buildPipelineAttribution(db: Kysely<any>, defs: Definitions): Promise<void> {
  await numberRows(db, 'tmp_links', 'org_id, event_id, crm_opportunity_id', 'org_id', `created_date desc, ${text('crm_opportunity_id')}, event_date desc, ${text('event_id')}`,
    `from (
      select e.org_id, e.event_id, e.event_date, o.crm_opportunity_id, o.created_date
      from events e
      join orgs org on org.id = e.org_id
      join partnerships p on p.org_id = e.org_id and p.partner_org_id = e.partner_org_id and p.status = 'CONNECTED'
      join tmp_top_parents ea on ea.org_id = e.org_id and ea.crm_account_id = e.crm_account_id
      join tmp_top_parents oa on oa.org_id = e.org_id and oa.top_id = ea.top_id
      join opportunities o on o.org_id = oa.org_id and o.crm_account_id = oa.crm_account_id
      where o.created_date >= e.event_date
        and o.created_date <= e.event_date + org.attribution_window_days::bigint * 86400) x`);

  await insert(
    db,
    defs,
    'rpt_new_opportunities',
    [
      ['org_id', 'o.org_id'],
      ['rid', `row_number() over (partition by o.org_id order by o.created_date desc, ${text('o.crm_opportunity_id')})`],
      ['top_parent_crm_account_id', 'tp.top_id'], ['top_parent_crm_account_name', 'tp.top_name'],
      ...oppColumns,
    ],
    `from opportunities o
  join accounts oa on oa.org_id = o.org_id and oa.crm_account_id = o.crm_account_id
  join tmp_top_parents tp on tp.org_id = oa.org_id and tp.crm_account_id = oa.crm_account_id
  where exists (select 1 from tmp_links l where l.org_id = o.org_id and l.crm_opportunity_id = o.crm_opportunity_id)`,
    { opportunity: 'o' },
  );

  // For the join below only (the whole table is analyzed after the commit).
  await sql.raw(`analyze rpt_new_opportunities${NEXT} (org_id, opp_crm_opportunity_id)`).execute(db);
  // Not written in rid order: every request carries a context (partners, event types,
  // windows) that picks rows across the order, so a page seldom reads one range of rids,
  // and the order cost 15-35 s at scale 1000 (docs/benchmarks.md).
  await createAs(
    db,
    defs,
    'rpt_attribution_links',
    [
      ['org_id', 'e.org_id'],
      ['rid', 'l.rid'],
      ['opp_rid', 'n.rid'],
      ['partner_org_id', 'e.partner_org_id'],
      ['account_name', 'oa.name'], ['partner_org_name', 'po.name'],
      ['number_days_to_new_opp', 'floor((o.created_date - e.event_date) / 86400.0)::bigint'],
      ...eventColumns,
      ...oppColumns,
      ...groupC,
      ...groupA('oa'),
      ...groupB,
    ],
    `from tmp_links l
  join events e on e.org_id = l.org_id and e.event_id = l.event_id
  join opportunities o on o.org_id = l.org_id and o.crm_opportunity_id = l.crm_opportunity_id
  join accounts oa on oa.org_id = o.org_id and oa.crm_account_id = o.crm_account_id
  join rpt_new_opportunities${NEXT} n on n.org_id = o.org_id and n.opp_crm_opportunity_id = o.crm_opportunity_id
  ${EVENT_JOINS}`,
    { opportunity: 'o', account: 'oa', event: 'e' },
  );
  // The narrow copy the pipeline summary aggregates per request (migration 0004), in
  // (org_id, event_date) order so that an event window is a contiguous range of pages.
  await insertCopy(db, 'rpt_attribution_facts', 'rpt_attribution_links', ['opp_rid', 'event_date', 'opp_created_date', 'event_type_code', 'event_subtype_code'], 'org_id, event_date');
}

/**
 * The ready CSV lines of the reports that keep them (src/reports/csv-lines.ts) and their
 * blocks, one statement each per organization (each has its own custom columns), and the
 * fingerprint of the SQL that wrote them. Built from the rebuilt report rows; the plan's columns depend
 * only on the organization's custom fields, which are already imported (the metadata's
 * partner list still comes from the live tables, and the line plan does not use it).
 */
async function buildCsvLines(db: Kysely<any>): Promise<void> {
  await sql`delete from rpt_csv_formats`.execute(db);
  const orgs = (await sql<{ id: number }>`select id from orgs order by id`.execute(db)).rows;
  for (const copy of LINE_COPIES) {
    for (const { id } of orgs) {
      const plan = defaultLinePlan(copy, await loadOrgMetadata(db, id));
      await insertLines(plan, `${copy.table}${NEXT}`, `${copy.source}${NEXT}`).execute(db);
      await insertLineBlocks(id, `${copy.blocks}${NEXT}`, `${copy.table}${NEXT}`).execute(db);
      await sql`insert into rpt_csv_formats (org_id, tbl, format) values (${id}, ${copy.source}, ${lineFingerprint(db, plan)})`.execute(db);
    }
  }
}

/** Fills the rebuilt narrow copy `target` from the rebuilt report table `source`: the keys, the partner and `columns`, in `order`. */
async function insertCopy(db: Kysely<any>, target: string, source: string, columns: readonly string[], order: string): Promise<void> {
  const list = ['org_id', 'rid', 'partner_org_id', ...columns].join(', ');
  await sql.raw(`insert into ${target}${NEXT} (${list}) select ${list} from ${source}${NEXT} order by ${order}`).execute(db);
}

async function buildConnectedPartners(db: Kysely<any>, defs: Definitions): Promise<void> {
  // MUTUAL: connected in both directions. The partner's own partnership record decides
  // when the bundle has one; otherwise the caller's `mutual` flag does.
  await insert(
    db,
    defs,
    'rpt_connected_partners',
    [
      ['org_id', 'p.org_id'],
      ['rid', `row_number() over (partition by p.org_id order by ${text('po.name')}, po.public_id)`],
      ['partner_org_id', 'p.partner_org_id'],
      ['mutual', `coalesce(case when r.status is not null then r.status = 'CONNECTED' end, p.mutual, false)`],
      ['partner_name', 'po.name'], ['partner_website', 'po.website'], ['company_partner_public_id', 'po.public_id::text'],
      ['partner_type', 'p.partner_type'], ['recommended', 'p.recommended'], ['first_connected_date', 'p.first_connected_date'],
      ['most_recent_connected_date', 'p.most_recent_connected_date'], ['last_partner_sheet_upload_date', 'p.last_partner_sheet_upload_date'],
      ['active_connections', 'p.active_connections'], ['spreadsheets_shared', 'p.spreadsheets_shared'],
      ['partner_owner', 'p.owner_name'], ['partner_owner_email', 'p.owner_email'], ['partner_owner_phone', 'p.owner_phone'],
    ],
    `from partnerships p
  join orgs po on po.id = p.partner_org_id
  left join partnerships r on r.org_id = p.partner_org_id and r.partner_org_id = p.org_id
  where p.status = 'CONNECTED'`,
  );
}

async function buildMatchedAccounts(db: Kysely<any>, defs: Definitions): Promise<void> {
  // mapByLocations compares with the partner's SHARED city/state/country only: matching
  // on an unshared value would let a filter reveal it. Two missing values are the same
  // (an Irish account without a state matches its Dublin partner account without one);
  // a missing partner account never matches.
  await numberRows(db, 'tmp_match_rids', 'm.mid, m.org_id', 'm.org_id', `${text('a.name')}, ${text('a.crm_account_id')}, m.partner_public_id, ${partnerAccountOrder}`, MATCHED_ACCOUNTS);
  await createAs(
    db,
    defs,
    'rpt_matched_accounts',
    [
      ['org_id', 'm.org_id'],
      ['rid', 'k.rid'],
      ['partner_org_id', 'm.partner_org_id'],
      ['same_location', `m.location_shared and lower(a.country) is not distinct from lower(m.pa_country) and lower(a.state) is not distinct from lower(m.pa_state) and lower(a.city) is not distinct from lower(m.pa_city)`],
      ['account_name', 'a.name'], ['duns_number', 'a.duns_number'], ['company_partner_public_id', 'm.partner_public_id'],
      ['crm_record_id', 'm.crm_record_id'], ['prm_record_id', 'm.prm_record_id'], ['partner_type', 'm.partner_type'],
      ['account_type', 'a.account_type'], ['city', 'a.city'], ['country', 'a.country'], ['crm_account_id', 'a.crm_account_id'],
      ['parent_account_id', 'a.parent_crm_account_id'], ['divisions', 'a.divisions'], ['industry', 'a.industry'],
      ['naics_code', 'a.naics_code'], ['nces_id', 'a.nces_id'], ['sic_code', 'a.sic_code'], ['state', 'a.state'],
      ['street', 'a.street'], ['territory', 'a.territory'], ['website', 'a.website'], ['zip_code', 'a.zip_code'],
      ['company_partner_name', 'm.partner_name'], ['partner_owner', 'm.p_owner_name'], ['avg_deal_size', 'm.average_referral_deal_size'],
      ['annual_revenue', 'a.annual_revenue'], ['is_customer', 'a.is_customer'], ['number_of_employees', 'a.number_of_employees'],
      ['open_opp_count', 'a.open_opp_count'], ['closed_opp_count', 'a.closed_opp_count'],
      ['partner_fields', 'm.partner_fields'],
    ],
    `from tmp_match_rids k
  join tmp_matches m on m.mid = k.mid
  join accounts a on a.org_id = m.org_id and a.crm_account_id = m.crm_account_id`,
    { account: 'a' },
    NUMBERED_ORDER,
  );
}
