import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reportById } from '../../src/reports/catalog/index.js';
import { buildPlan, type PlanInput } from '../../src/reports/plan.js';
import type { OrgMetadata } from '../../src/reports/metadata.js';
import { ApiError } from '../../src/server/errors.js';

const ALPHA = 'aaaaaaaa-0000-4000-8000-000000000001';
const BETA = 'aaaaaaaa-0000-4000-8000-000000000002';
const NOW = 1_700_000_000;

const meta: OrgMetadata = {
  orgId: 7,
  customFields: [
    { entity: 'account', key: 'tier', title: 'Tier', type: 'string', classification: 'CUSTOM_CRM_FIELD' },
    { entity: 'opportunity', key: 'tier', title: 'Opp Tier', type: 'number', classification: 'CUSTOM_CRM_OBJECT' },
    { entity: 'opportunity', key: 'source', title: 'Source', type: 'string', classification: 'CUSTOM_CRM_FIELD' },
  ],
  partners: new Map([
    [ALPHA, { orgId: 11, publicId: ALPHA, name: 'Alpha', mutual: true, sharedFields: ['name', 'owner', 'custom.segment'] }],
    [BETA, { orgId: 12, publicId: BETA, name: 'Beta', mutual: false, sharedFields: [] }],
  ]),
  eventTypeCodes: new Set(['ACTION_LIST', 'WORKFLOW']),
  partnerCustomFields: new Map([[11, [{ entity: 'account', key: 'segment', title: 'Segment', type: 'string', classification: 'CUSTOM_CRM_FIELD' }]]]),
};

function input(reportId: Parameters<typeof reportById>[0], body: Partial<PlanInput['body']> = {}, extra: Partial<PlanInput> = {}): PlanInput {
  return {
    report: reportById(reportId),
    meta,
    body: { filters: {}, search: '', columns: undefined, context: undefined, ...body },
    paging: { page: 0, size: 20, sort: [] },
    nowSeconds: NOW,
    ...extra,
  };
}

function problems(fn: () => unknown): Array<{ field: string; message: string }> {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 400);
    return err.errors ?? [];
  }
  assert.fail('expected a 400');
}

const CONTEXT = { partnerPublicIds: [ALPHA], eventTypeCodes: ['ACTION_LIST'] };

test('custom columns follow the entity precedence of the report; the first key wins', () => {
  const detail = buildPlan(input('PIPELINE_ATTRIBUTION_DETAIL', { context: CONTEXT }));
  // The organization's custom fields (read from the row's `custom` object); Group C's fixed custom columns are stored columns.
  const custom = detail.columns.filter((c) => c.source === 'custom' && c.json);
  assert.deepEqual(custom.map((c) => [c.key, c.type]), [
    ['custom_tier', 'number'],
    ['custom_source', 'string'],
  ]);
  const accounts = buildPlan(input('GLOBAL_VERTICAL_ACCOUNTS'));
  assert.deepEqual(accounts.columns.filter((c) => c.source === 'custom').map((c) => [c.key, c.type]), [['custom_tier', 'string']]);
  assert.equal(detail.columns.filter((c) => c.source === 'custom' && !c.json).length, 7, "Group C's seven custom event columns");
});

test('unsupported operations name the column, its type and what it supports', () => {
  const errs = problems(() => buildPlan(input('GLOBAL_VERTICAL_OPPORTUNITIES', { filters: { annual_revenue: 'big', is_won: 'yes', account_name: '1<->2', nope: 'x' } })));
  assert.deepEqual(errs.map((e) => e.field), ['filters.annual_revenue', 'filters.is_won', 'filters.account_name', 'filters.nope']);
  assert.match(errs[0]!.message, /currency: it supports range/);
  assert.match(errs[1]!.message, /"true" or "false"/);
  assert.match(errs[2]!.message, /string: it supports exact match, not equal/);
  assert.match(errs[3]!.message, /unknown column "nope"/);
  // A uuid column is a string to the API (spec 2.3 has no uuid type), in messages as in /columns.
  const [id] = problems(() => buildPlan(input('GLOBAL_VERTICAL_ACCOUNTS', { filters: { partnerOrgPublicId: '1<->2' } })));
  assert.match(id!.message, /"partnerOrgPublicId" is string: it supports exact match/);
});

test('context: missing lists, unknown partners and event types, pairing and order of bounds', () => {
  // A body without a context misses both lists: each is named (contract section 4, "listing which").
  assert.deepEqual(problems(() => buildPlan(input('ATTRIBUTION_EVENTS'))).map((e) => e.field), ['context.partnerPublicIds', 'context.eventTypeCodes']);
  assert.deepEqual(problems(() => buildPlan(input('ATTRIBUTION_EVENTS', { context: {} }))).map((e) => e.field), ['context.partnerPublicIds', 'context.eventTypeCodes']);
  const errs = problems(() =>
    buildPlan(input('PIPELINE_ATTRIBUTION_SUMMARY', { context: { partnerPublicIds: [ALPHA, 'bbbbbbbb-0000-4000-8000-000000000009', 'x'], eventTypeCodes: ['NOPE'], eventDateStart: '10', oppCreatedDateStart: '9', oppCreatedDateEnd: '1', dateRangeDays: -1 } })),
  );
  assert.deepEqual(errs.map((e) => e.field), [
    'context.partnerPublicIds[1]',
    'context.partnerPublicIds[2]',
    'context.eventTypeCodes[0]',
    'context.eventDateEnd',
    'context.dateRangeDays',
    'context.oppCreatedDateStart',
  ]);
  // An unpaired bound that is also malformed gets both problems in the same answer.
  const unpaired = problems(() => buildPlan(input('ATTRIBUTION_EVENTS', { context: { ...CONTEXT, eventDateEnd: 'soon' } })));
  assert.deepEqual(unpaired.map((e) => [e.field, e.message.slice(0, 20)]), [['context.eventDateStart', 'is required when con'], ['context.eventDateEnd', 'must be epoch second']]);
  assert.match(errs[0]!.message, /not a partner connected to your organization/);
  assert.equal(errs[0]!.message.replace('bbbbbbbb-0000-4000-8000-000000000009', 'ID'), errs[1]!.message.replace('"x"', '"ID"'));
});

test('date windows: both bounds win over day counts; days count back from now', () => {
  const both = buildPlan(input('PIPELINE_ATTRIBUTION_DETAIL', { context: { ...CONTEXT, dateRangeDays: 5, eventDateStart: '100', eventDateEnd: 200, oppCreatedDateDays: 2 } }));
  assert.deepEqual(both.scope.eventDate, { min: 100, max: 200 });
  assert.deepEqual(both.scope.oppCreatedDate, { min: NOW - 2 * 86400, max: null });
  const none = buildPlan(input('ATTRIBUTION_EVENTS', { context: { ...CONTEXT, oppCreatedDateDays: 3 } }));
  assert.equal(none.scope.eventDate, undefined);
  assert.equal(none.scope.oppCreatedDate, undefined, 'the events report has no opportunity window');
  // ... but its bad values are refused there too (contract section 4).
  for (const bad of [{ oppCreatedDateStart: '1' }, { oppCreatedDateStart: 2, oppCreatedDateEnd: 1 }, { oppCreatedDateStart: 'abc', oppCreatedDateEnd: 'x' }, { oppCreatedDateDays: -3 }]) {
    const errs = problems(() => buildPlan(input('ATTRIBUTION_EVENTS', { context: { ...CONTEXT, ...bad } })));
    assert.ok(errs.length > 0 && errs.every((e) => e.field.startsWith('context.oppCreatedDate')), JSON.stringify([bad, errs]));
  }
  assert.deepEqual(none.scope.partnerOrgIds, [11]);
});

test('epoch bounds become the whole seconds that select the same rows, within the safe integer range', () => {
  const fractional = buildPlan(input('PIPELINE_ATTRIBUTION_DETAIL', { context: { ...CONTEXT, eventDateStart: '1.5', eventDateEnd: 2.5, oppCreatedDateStart: '99999999999999999999', oppCreatedDateEnd: 1e30 } }));
  assert.deepEqual(fractional.scope.eventDate, { min: 2, max: 2 });
  assert.deepEqual(fractional.scope.oppCreatedDate, { min: Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER });
  const days = buildPlan(input('ATTRIBUTION_EVENTS', { context: { ...CONTEXT, dateRangeDays: 9007199254740991 } }));
  assert.deepEqual(days.scope.eventDate, { min: -Number.MAX_SAFE_INTEGER, max: null });
  const range = buildPlan(input('ATTRIBUTION_EVENTS', { context: CONTEXT, filters: { event_date: '1.5<->99999999999999999999', number_of_employees: '1.5<->2.5' } }));
  assert.deepEqual(range.filters.map((f) => f.filter), [
    { operation: 'range', min: 2, max: Number.MAX_SAFE_INTEGER },
    { operation: 'range', min: 1.5, max: 2.5 },
  ], 'numbers keep their decimals; dates are whole seconds');
});

test('an epoch string takes the grammar of a range bound: the same numbers in both places', () => {
  for (const [text, seconds] of [['1e3', 1000], [' 1000 ', 1000], ['-100', -100], ['+7', 7], ['.5e1', 5], ['1.7E9', 1_700_000_000]] as const) {
    const plan = buildPlan(input('ATTRIBUTION_EVENTS', { context: { ...CONTEXT, eventDateStart: text, eventDateEnd: '2e9' }, filters: { event_date: `${text}<->2e9` } }));
    assert.deepEqual(plan.scope.eventDate, { min: seconds, max: 2_000_000_000 }, text);
    assert.deepEqual(plan.filters[0]!.filter, { operation: 'range', min: seconds, max: 2_000_000_000 }, `${text} as a range bound`);
  }
  for (const text of ['', 'abc', '0x10', '1e', '1e400', '1,5', 'Infinity']) {
    const errs = problems(() => buildPlan(input('ATTRIBUTION_EVENTS', { context: { ...CONTEXT, eventDateStart: text, eventDateEnd: '2e9' } })));
    assert.deepEqual(errs.map((e) => e.field), ['context.eventDateStart'], JSON.stringify(text));
    assert.match(errs[0]!.message, /^must be epoch seconds: a number, or a string holding one/);
    // (An empty range side is an open one.)
    if (text !== '') assert.deepEqual(problems(() => buildPlan(input('ATTRIBUTION_EVENTS', { context: CONTEXT, filters: { event_date: `${text}<->2e9` } }))).map((e) => e.field), ['filters.event_date'], `${text} as a range bound`);
  }
});

test('matched accounts: partner columns are exactly the shared fields', () => {
  const p = buildPlan(input('PARTNER_ORG_MATCHED_ACCOUNTS', {}, { channel: { matchingType: 'MUTUAL', companyPartnerPublicId: ALPHA.toUpperCase() } }));
  assert.deepEqual(
    p.columns.filter((c) => c.source === 'partner').map((c) => c.key),
    ['partneraccountname', 'partnerowneridname', 'partnerowneridemail', 'partnerowneridtitle', 'partnerowneridphone', 'partnerowneriddivision', 'partnersegment'],
  );
  const nothing = buildPlan(input('PARTNER_ORG_MATCHED_ACCOUNTS', {}, { channel: { matchingType: 'MUTUAL', companyPartnerPublicId: BETA } }));
  assert.equal(nothing.columns.filter((c) => c.source === 'partner').length, 0);
  const errs = problems(() => buildPlan(input('PARTNER_ORG_MATCHED_ACCOUNTS', { filters: { partnersecret: 'x' } }, { channel: { matchingType: 'ALL' } })));
  assert.deepEqual(errs.map((e) => e.field), ['matchingType', 'companyPartnerPublicId', 'filters.partnersecret']);
});

test('columns selection keeps the given order and rejects unknown keys; aliases resolve', () => {
  const p = buildPlan(input('PARTNER_ORG_CONNECTED_PARTNER_ORGS', { columns: ['partnerOrgName', 'recommended'] }));
  assert.deepEqual(p.output.map((o) => [o.key, o.column.key]), [
    ['partnerOrgName', 'partnerName'],
    ['recommended', 'recommended'],
  ]);
  assert.deepEqual(problems(() => buildPlan(input('GLOBAL_VERTICAL_ACCOUNTS', { columns: ['account_name', 'nope'] }))).map((e) => e.field), ['columns[1]']);
});

test('sort resolves keys and rejects unknown ones; the filter on filterField is left out', () => {
  const p = buildPlan({ ...input('GLOBAL_VERTICAL_ACCOUNTS', { filters: { account_name: 'x', city: 'y' } }), paging: { page: 0, size: 20, sort: [{ key: 'custom_tier', direction: 'desc' }] }, excludeFilterOn: 'account_name' });
  assert.deepEqual(p.filters.map((f) => f.column.key), ['city']);
  assert.deepEqual(p.sort.map((s) => [s.column.key, s.direction]), [['custom_tier', 'desc']]);
  assert.equal(p.sorted, true);
  assert.deepEqual(problems(() => buildPlan({ ...input('GLOBAL_VERTICAL_ACCOUNTS'), paging: { page: 0, size: 20, sort: [{ key: 'zzz', direction: 'asc' }] } })).map((e) => e.field), ['sort']);
});

test('an unknown key written in another case or with other separators names the column it is near', () => {
  const errs = problems(() =>
    buildPlan(input('GLOBAL_VERTICAL_ACCOUNTS', { filters: { Account_Name: 'x', zzz: 'y' }, columns: ['accountName'] }, { paging: { page: 0, size: 20, sort: [{ key: 'CITY', direction: 'asc' }] } })),
  );
  assert.deepEqual(errs.map((e) => e.field), ['filters.Account_Name', 'filters.zzz', 'sort', 'columns[0]']);
  assert.match(errs[0]!.message, /^unknown column "Account_Name"; did you mean "account_name"\?; filterable columns of GLOBAL_VERTICAL_ACCOUNTS \(all of them: \/columns\): account_name, /);
  assert.match(errs[1]!.message, /^unknown column "zzz"; filterable columns of /);
  assert.match(errs[2]!.message, /^unknown sort property "CITY"; did you mean "city"\?; sortable columns of /);
  assert.match(errs[3]!.message, /^unknown column "accountName"; did you mean "account_name"\?; columns of /);
});
