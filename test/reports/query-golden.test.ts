/**
 * Golden `{ sql, parameters }` of the query stage: the SQL of each operation stays
 * reviewable, and a change to it shows up here. Request values are always parameters.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reportById } from '../../src/reports/catalog/index.js';
import { buildPlan, type PlanInput } from '../../src/reports/plan.js';
import type { OrgMetadata } from '../../src/reports/metadata.js';
import { batchQuery, countQuery, csvBatchQuery, dictionaryCountQuery, dictionaryValuesQuery, distinctValuesQuery, rangeQuery, recordsQuery } from '../../src/reports/query.js';
import { compile } from '../helpers/compile.js';

const ALPHA = 'aaaaaaaa-0000-4000-8000-000000000001';
const meta: OrgMetadata = {
  orgId: 7,
  customFields: [{ entity: 'account', key: 'score', title: 'Score', type: 'number', classification: 'CUSTOM_CRM_FIELD' }],
  partners: new Map([[ALPHA, { orgId: 11, publicId: ALPHA, name: 'Alpha', mutual: true, sharedFields: ['name'] }]]),
  eventTypeCodes: new Set(['ACTION_LIST']),
  partnerCustomFields: new Map(),
};

function plan(reportId: Parameters<typeof reportById>[0], body: Partial<PlanInput['body']>, sort: PlanInput['paging']['sort'] = [], page = 0) {
  return buildPlan({
    report: reportById(reportId),
    meta,
    body: { filters: {}, search: '', columns: undefined, context: undefined, ...body },
    paging: { page, size: 10, sort },
    nowSeconds: 1_700_000_000,
  });
}

test('records: every filter operation, search and sort compile to parameterised SQL', () => {
  const p = plan(
    'GLOBAL_VERTICAL_ACCOUNTS',
    {
      columns: ['account_name', 'custom_score'],
      filters: { account_name: 'a-,-b', city: 'x-!-', industry: '50%-?-', state: 'q-^-', custom_score: '1<->', annual_revenue: '<->2.5' },
      search: "o'brien",
    },
    [{ key: 'account_name', direction: 'desc' }, { key: 'annual_revenue', direction: 'asc' }],
    2,
  );
  const { sql, parameters } = compile(recordsQuery(p));
  assert.equal(
    sql.slice(0, sql.indexOf(' and (r.search_text like lower($10)')),
    'select r.account_name as c0, (r.custom ->> $1)::double precision as c1 from "rpt_global_accounts" r where (r.org_id = $2' +
      ' and r.account_name = any($3::text[]) and (r.city is null or not (r.city = any($4::text[]))) and r.industry ilike $5' +
      ' and (r.state is null or not (r.state ilike any($6::text[]))) and (r.custom ->> $7)::double precision >= $8::double precision' +
      ' and r.annual_revenue <= $9::double precision',
  );
  assert.ok(sql.endsWith('order by lower(r.account_name) collate "C" desc nulls last, r.account_name collate "C" desc nulls last, r.annual_revenue asc nulls last, r.rid asc nulls last limit $' + (parameters.length - 1) + ' offset $' + parameters.length));
  assert.deepEqual(parameters.slice(0, 9), ['score', 7, ['a', 'b'], ['x'], '%50\\%%', ['%q%'], 'score', 1, 2.5]);
  assert.equal(parameters[9], "%o'brien%", 'the search term is a parameter matched against search_text');
  // Unresolved (no values looked up): the by-value columns are tested on the row.
  assert.match(sql, / and \(r\.search_text like lower\(\$10\) or r\.account_type ilike \$11 or r\.account_owner_name ilike \$12 or .* or r\.partner_org_public_id ilike \$40\)\) order by /);
  assert.deepEqual(parameters.slice(-2), [10, 20]);
  assert.ok(!sql.includes("o'brien"));
});

test('records: a search term resolved to by-value columns tests those columns against the values only', () => {
  const p = plan('GLOBAL_VERTICAL_ACCOUNTS', { columns: ['account_name'], search: 'lyon tech' });
  const resolved = { ...p, searchValues: [new Map([['city', ['Lyon']], ['partner_city', ['Lyon', 'lyon']]]), new Map()] };
  assert.deepEqual(compile(recordsQuery(resolved)), {
    sql:
      'select r.account_name as c0 from "rpt_global_accounts" r where (r.org_id = $1 and ((r.search_text like lower($2) or r.city = any($3::text[]) or r.partner_city = any($4::text[]))' +
      ' and r.search_text like lower($5))) order by r.rid asc nulls last limit $6 offset $7',
    parameters: [7, '%lyon%', ['Lyon'], ['Lyon', 'lyon'], '%tech%', 10, 0],
  });
});

test('count uses the same conditions as the page (on the narrow copy when it holds the column)', () => {
  const p = plan('GLOBAL_VERTICAL_ACCOUNTS', { filters: { street: 'a' } });
  assert.deepEqual(compile(countQuery(p)), {
    sql: 'select count(*) as n from "rpt_global_accounts" r where (r.org_id = $1 and r.street = any($2::text[]))',
    parameters: [7, ['a']],
  });
  const named = plan('GLOBAL_VERTICAL_ACCOUNTS', { filters: { account_name: 'a' } });
  assert.deepEqual(compile(countQuery(named)), {
    sql: 'select count(*) as n from "rpt_account_facts" r where (r.org_id = $1 and r.account_name = any($2::text[]))',
    parameters: [7, ['a']],
  });
});

test('summary: the context scopes the counted links inside the aggregate', () => {
  const p = plan('PIPELINE_ATTRIBUTION_SUMMARY', { context: { partnerPublicIds: [ALPHA], eventTypeCodes: ['ACTION_LIST'], eventDateStart: '100', eventDateEnd: '200', oppCreatedDateDays: 1 } });
  const { sql, parameters } = compile(recordsQuery(p));
  assert.match(sql, /from rpt_attribution_facts l where \(l\.org_id = \$1 and l\.partner_org_id = any\(\$2::int\[\]\) and l\.event_type_code = any\(\$3::text\[\]\) and l\.event_date >= \$4 and l\.event_date <= \$5 and l\.opp_created_date >= \$6\) group by l\.opp_rid/);
  assert.match(sql, /join rpt_new_opportunities o on o\.org_id = \$7 and o\.rid = c\.opp_rid\) r where true order by r\.rid asc nulls last limit \$8 offset \$9$/);
  assert.deepEqual(parameters, [7, [11], ['ACTION_LIST'], 100, 200, 1_700_000_000 - 86400, 7, 10, 0]);
});

test('summary count: distinct counted opportunities without filters, the joined relation with them', () => {
  const context = { partnerPublicIds: [ALPHA], eventTypeCodes: ['ACTION_LIST'], eventDateStart: '100', eventDateEnd: '200' };
  assert.deepEqual(compile(countQuery(plan('PIPELINE_ATTRIBUTION_SUMMARY', { context }))), {
    sql: 'select count(distinct l.opp_rid) as n from rpt_attribution_facts l where (l.org_id = $1 and l.partner_org_id = any($2::int[]) and l.event_type_code = any($3::text[]) and l.event_date >= $4 and l.event_date <= $5)',
    parameters: [7, [11], ['ACTION_LIST'], 100, 200],
  });
  const filtered = compile(countQuery(plan('PIPELINE_ATTRIBUTION_SUMMARY', { context, filters: { total_partners: '2<->' } })));
  assert.match(filtered.sql, /^select count\(\*\) as n from \(select o\.\*, .* from rpt_attribution_facts l where .* join rpt_new_opportunities o on o\.org_id = \$6 and o\.rid = c\.opp_rid\) r where r\.total_partners >= \$7::double precision$/s);
});

test('attribution events and detail: a context-only count reads the narrow copy, a filtered one the report rows', () => {
  const context = { partnerPublicIds: [ALPHA], eventTypeCodes: ['ACTION_LIST'], dateRangeDays: 90, oppCreatedDateDays: 30 };
  assert.deepEqual(compile(countQuery(plan('ATTRIBUTION_EVENTS', { context: { ...context, oppCreatedDateDays: undefined } }))), {
    sql: 'select count(*) as n from "rpt_event_facts" r where (r.org_id = $1 and r.partner_org_id = any($2::int[]) and r.event_type_code = any($3::text[]) and r.event_date >= $4)',
    parameters: [7, [11], ['ACTION_LIST'], 1_700_000_000 - 90 * 86400],
  });
  assert.deepEqual(compile(countQuery(plan('PIPELINE_ATTRIBUTION_DETAIL', { context }))), {
    sql: 'select count(*) as n from "rpt_attribution_facts" r where (r.org_id = $1 and r.partner_org_id = any($2::int[]) and r.event_type_code = any($3::text[]) and r.event_date >= $4 and r.opp_created_date >= $5)',
    parameters: [7, [11], ['ACTION_LIST'], 1_700_000_000 - 90 * 86400, 1_700_000_000 - 30 * 86400],
  });
  const filtered = compile(countQuery(plan('ATTRIBUTION_EVENTS', { context: { ...context, oppCreatedDateDays: undefined }, filters: { event_name: 'x-?-' } })));
  assert.match(filtered.sql, /^select count\(\*\) as n from "rpt_attribution_events" r where /);
  const searched = compile(countQuery(plan('PIPELINE_ATTRIBUTION_DETAIL', { context, search: 'acme' })));
  assert.match(searched.sql, /^select count\(\*\) as n from "rpt_attribution_links" r where /);
});

test('filter values: distinct non-null values ordered like a text sort; ranges are min/max (from the narrow copy when it holds the column)', () => {
  const p = plan('GLOBAL_VERTICAL_ACCOUNTS', {});
  const column = p.columns.find((c) => c.key === 'city')!;
  const q = distinctValuesQuery(p, column, 'san', 1, 5);
  const { sql: text, parameters } = compile(q);
  assert.equal(
    text.replace(/\s+/g, ' '),
    'with d as (select distinct r.city as v from "rpt_account_facts" r where (r.org_id = $1 and r.city is not null and (r.city <> \'\' and r.city not like \'%-,-%\' and r.city not like \'%<->%\' and r.city not like \'%-!-\' and r.city not like \'%-?-\' and r.city not like \'%-^-\') and r.city ilike $2)) select c.n, p.v from (select count(*) as n from d) c left join lateral (select v from d order by lower(v) collate "C", v collate "C" limit $3 offset $4) p on true',
  );
  assert.deepEqual(parameters, [7, '%san%', 5, 5]);
  const amount = p.columns.find((c) => c.key === 'open_pipeline_amount')!;
  assert.equal(compile(rangeQuery(p, amount)).sql, 'select min(r.open_pipeline_amount) as min, max(r.open_pipeline_amount) as max from "rpt_account_facts" r where r.org_id = $1');
});

test('keyset batches seek after the last row with NULLs last in both directions', () => {
  const p = plan('GLOBAL_VERTICAL_ACCOUNTS', { columns: ['account_name'] }, [{ key: 'annual_revenue', direction: 'desc' }]);
  const { sql, parameters } = compile(batchQuery(p, [5, 42], 100));
  assert.equal(
    sql,
    'select r.account_name as c0, r.annual_revenue as k0, r.rid as k1 from "rpt_global_accounts" r where (r.org_id = $1 and ((r.annual_revenue < $2 or r.annual_revenue is null) or (r.annual_revenue = $3 and r.rid > $4))) order by r.annual_revenue desc nulls last, r.rid asc nulls last limit $5',
  );
  assert.deepEqual(parameters, [7, 5, 5, 42, 100]);
  const afterNull = compile(batchQuery(p, [null, 42], 100));
  assert.match(afterNull.sql, /\(r\.annual_revenue is null and r\.rid > \$2\)/);
});

// ---- fast paths (precomputed at import) -------------------------------------------------

const withDictionary = <P extends object>(p: P, ...names: string[]) => Object.assign(p, { accel: { dictionary: new Set(names) } });

test('contains / does-not-contain on a dictionary column test its distinct values, then the rows by equality', () => {
  const p = withDictionary(plan('GLOBAL_VERTICAL_ACCOUNTS', { columns: ['city'], filters: { city: 'san-,-fran-?-', state: 'x-^-', industry: 'soft-?-' } }), 'city', 'state');
  assert.deepEqual(compile(countQuery(p)), {
    sql:
      'select count(*) as n from "rpt_account_facts" r where (r.org_id = $1' +
      ' and r.city in (select d.value from rpt_value_counts d where d.org_id = $2 and d.tbl = $3 and d.col = $4 and (d.value ilike $5 and d.value ilike $6))' +
      ' and (r.state is null or r.state not in (select d.value from rpt_value_counts d where d.org_id = $7 and d.tbl = $8 and d.col = $9 and d.value ilike any($10::text[])))' +
      ' and r.industry ilike $11)',
    parameters: [7, 7, 'rpt_global_accounts', 'city', '%san%', '%fran%', 7, 'rpt_global_accounts', 'state', ['%x%'], '%soft%'],
  });
});

test('a count over one dictionary column sums its stored counts (NULL rows counted when the filter keeps them)', () => {
  const p = withDictionary(plan('GLOBAL_VERTICAL_ACCOUNTS', { filters: { country: 'US-!-' } }), 'country');
  assert.deepEqual(compile(dictionaryCountQuery(p, 1000)!), {
    sql:
      'select coalesce(sum(d.n), 0) as n from ( select value as v, n from rpt_value_counts where org_id = $1 and tbl = $2 and col = $3' +
      ' union all select null, $4::bigint - coalesce(sum(n), 0) from rpt_value_counts where org_id = $5 and tbl = $6 and col = $7 )' +
      ' d where (d.v is null or not (d.v = any($8::text[])))',
    parameters: [7, 'rpt_global_accounts', 'country', 1000, 7, 'rpt_global_accounts', 'country', ['US']],
  });
  // Not of that shape: two columns, a search, or a column without a dictionary.
  assert.equal(dictionaryCountQuery(withDictionary(plan('GLOBAL_VERTICAL_ACCOUNTS', { filters: { country: 'US', city: 'x' } }), 'country', 'city'), 1000), null);
  assert.equal(dictionaryCountQuery(withDictionary(plan('GLOBAL_VERTICAL_ACCOUNTS', { filters: { country: 'US' }, search: 'a' }), 'country'), 1000), null);
  assert.equal(dictionaryCountQuery(withDictionary(plan('GLOBAL_VERTICAL_ACCOUNTS', { filters: { city: 'x' } }), 'country'), 1000), null);
});

test('filter values of a dictionary column read the stored values in their stored text order', () => {
  const p = plan('GLOBAL_VERTICAL_ACCOUNTS', {});
  const q = dictionaryValuesQuery(p, 'city', undefined, 2, 5);
  // Only values a filter can name as themselves (readsAsItselfSql), paged in stored order and counted.
  const filtered = "from rpt_value_counts d where d.org_id = $1 and d.tbl = $2 and d.col = $3 and (d.value <> '' and d.value not like '%-,-%' and d.value not like '%<->%' and d.value not like '%-!-' and d.value not like '%-?-' and d.value not like '%-^-')";
  assert.deepEqual(compile(q.rows), { sql: `select d.value as v ${filtered} order by d.pos limit $4 offset $5`, parameters: [7, 'rpt_global_accounts', 'city', 5, 10] });
  assert.deepEqual(compile(q.count), { sql: `select count(*) as n ${filtered}`, parameters: [7, 'rpt_global_accounts', 'city'] });
  const searched = dictionaryValuesQuery(p, 'city', 'san', 0, 5);
  assert.equal(compile(searched.count).sql, `select count(*) as n ${filtered} and d.value ilike $4`);
});

test('CSV batches: one ready line per row, keyset seek like any batch', () => {
  const p = plan('GLOBAL_VERTICAL_ACCOUNTS', { columns: ['account_name', 'annual_revenue', 'custom_score'] });
  const { sql, parameters } = compile(csvBatchQuery(p, [42], 10_000));
  // Rows without a quote, comma, CR or LF in their text take the cheap cells (formula guard only).
  assert.match(sql, /^select case when concat\(r\.account_name\) ~ '\[",\\r\\n\]' then case when r\.account_name is null then '' /);
  assert.match(sql, /else case when ascii\(r\.account_name\) in \(61, 43, 45, 64, 9, 13\) then '''' \|\| r\.account_name else coalesce\(r\.account_name, ''\) end \|\| ',' \|\| case when \(r\.annual_revenue\)::double precision is null/);
  assert.match(sql, / as line, r\.rid as k0 from "rpt_global_accounts" r where \(r\.org_id = \$\d+ and r\.rid > \$\d+\) order by r\.rid asc nulls last limit \$\d+$/);
  assert.deepEqual(parameters.slice(-3), [7, 42, 10_000]);
  assert.ok(parameters.includes('score'), 'custom keys stay parameters');
});

test('records: select lists are shared by output shape only (another order, type or report gets its own)', () => {
  const select = (q: ReturnType<typeof recordsQuery>) => compile(q).sql.split(' from ')[0];
  const columns = (cols: string[], m: OrgMetadata = meta) =>
    buildPlan({ report: reportById('GLOBAL_VERTICAL_ACCOUNTS'), meta: m, body: { filters: {}, search: '', columns: cols, context: undefined }, paging: { page: 0, size: 10, sort: [] }, nowSeconds: 1_700_000_000 });
  const textScore: OrgMetadata = { ...meta, customFields: [{ ...meta.customFields[0]!, type: 'string' }] };
  assert.equal(select(recordsQuery(columns(['account_name', 'custom_score']))), 'select r.account_name as c0, (r.custom ->> $1)::double precision as c1');
  assert.equal(select(recordsQuery(columns(['account_name', 'custom_score'], textScore))), 'select r.account_name as c0, (r.custom ->> $1) as c1');
  assert.equal(select(recordsQuery(columns(['custom_score', 'account_name']))), 'select (r.custom ->> $1)::double precision as c0, r.account_name as c1');
  assert.equal(select(recordsQuery(columns(['account_name', 'custom_score']))), 'select r.account_name as c0, (r.custom ->> $1)::double precision as c1');
});
