/**
 * A page's JSON text written from SQL rows as arrays (render/rows.ts, render/page.ts) is
 * byte for byte what JSON.stringify writes for the page envelope of the rows as objects
 * keyed by API name, which is how pages were rendered before: for every report, with
 * its default and an explicit column list, for values of every kind a row can hold.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANALYTICS_REPORTS, CHANNEL_REPORTS } from '../../src/reports/catalog/index.js';
import type { ReportDefinition } from '../../src/reports/catalog/index.js';
import { buildPlan, type Plan } from '../../src/reports/plan.js';
import type { OrgMetadata } from '../../src/reports/metadata.js';
import { pageEnvelope, pageEnvelopeJson } from '../../src/reports/render/page.js';
import { rowsJson } from '../../src/reports/render/rows.js';

const ALPHA = 'aaaaaaaa-0000-4000-8000-000000000001';
const meta: OrgMetadata = {
  orgId: 7,
  customFields: [{ entity: 'account', key: 'tier', title: 'Tier', type: 'string', classification: 'CUSTOM_CRM_FIELD' }],
  partners: new Map([[ALPHA, { orgId: 11, publicId: ALPHA, name: 'Alpha', mutual: true, sharedFields: ['name', 'owner', 'custom.segment'] }]]),
  eventTypeCodes: new Set(['ACTION_LIST']),
  partnerCustomFields: new Map([[11, [{ entity: 'account', key: 'segment', title: 'Segment', type: 'string', classification: 'CUSTOM_CRM_FIELD' }]]]),
};
const CONTEXT = { partnerPublicIds: [ALPHA], eventTypeCodes: ['ACTION_LIST'], dateRangeDays: 30 };

function plan(report: ReportDefinition, columns?: string[]): Plan {
  const channel = report.id.startsWith('PARTNER_ORG_') ? { channel: { companyPartnerPublicId: ALPHA, matchingType: 'MUTUAL' } } : {};
  return buildPlan({
    report,
    meta,
    body: { filters: {}, search: '', columns, context: report.id.startsWith('PIPELINE_') || report.id === 'ATTRIBUTION_EVENTS' ? CONTEXT : undefined },
    paging: { page: 0, size: 20, sort: [] },
    nowSeconds: 1_700_000_000,
    ...channel,
  });
}

/** What pages were rendered as: one object per row, keyed by API name, in output order. */
function reference(p: Plan, rows: unknown[][]): Array<Record<string, unknown>> {
  const keys = p.output.filter((o) => o.column.source !== 'partner').map((o) => o.key);
  const partnerKeys = p.output.filter((o) => o.column.source === 'partner').map((o) => o.column.key);
  // partnerFields: last without a column list; with one, where its first partner key is, or not at all.
  const matched = p.report.id === 'PARTNER_ORG_MATCHED_ACCOUNTS';
  const firstPartner = p.output.findIndex((o) => o.column.source === 'partner');
  const partnerAt = !matched ? -1 : !p.explicitColumns ? keys.length : firstPartner;
  return rows.map((row) => {
    const out: Record<string, unknown> = {};
    keys.forEach((k, i) => {
      if (i === partnerAt) out.partnerFields = shared(row);
      const v = row[i];
      out[k] = v === undefined ? null : typeof v === 'bigint' ? Number(v) : v;
    });
    if (partnerAt === keys.length) out.partnerFields = shared(row);
    return out;
  });
  function shared(row: unknown[]): Record<string, unknown> {
    const fields = (row[keys.length] ?? {}) as Record<string, unknown>;
    return p.explicitColumns ? Object.fromEntries(partnerKeys.filter((k) => k in fields).map((k) => [k, fields[k]])) : fields;
  }
}

const VALUES: unknown[] = ['plain', 'lone \ud800 surrogate', -0, NaN, Infinity, 'quote " backslash \\ slash /', 'line\nbreak\ttab\u0001ctl', 'é ü 東京 😀 \u2028', '', 0, -1.5, 1e21, 123456789.125, 9007199254740993n, true, false, null, undefined, { a: 1, 'b"': [1, 'x'] }];

function rowsFor(p: Plan, n: number, seed: number): unknown[][] {
  const width = p.output.filter((o) => o.column.source !== 'partner').length;
  return Array.from({ length: n }, (_, r) => {
    const row: unknown[] = Array.from({ length: width }, (_, i) => VALUES[(seed + r * 7 + i * 3) % VALUES.length]);
    if (p.report.id === 'PARTNER_ORG_MATCHED_ACCOUNTS') row.push(r % 3 === 2 ? null : { name: `P${r}`, owner: 'O "x"', segment: r % 2 ? 'Mid' : null });
    return row;
  });
}

test('every report: the written page is the JSON of the page envelope of the rows as objects', () => {
  let pages = 0;
  for (const report of [...ANALYTICS_REPORTS, ...CHANNEL_REPORTS]) {
    const all = plan(report);
    const keys = all.output.map((o) => o.key);
    // An explicit list in another order, with a partner column where the report has them.
    const explicit = plan(report, [keys[keys.length - 1]!, ...keys.slice(0, 2)]);
    for (const p of [all, explicit]) {
      for (const n of [0, 1, 5]) {
        const rows = rowsFor(p, n, pages);
        const total = n === 0 ? 0 : 41;
        const written = pageEnvelopeJson(rowsJson(p, rows), rows.length, total, 2, 20, pages % 2 === 0);
        assert.equal(written, JSON.stringify(pageEnvelope(reference(p, rows), total, 2, 20, pages % 2 === 0)), `${report.id} ${p.explicitColumns ? 'explicit' : 'default'} ${n} rows`);
        pages++;
      }
    }
  }
  assert.ok(pages >= 6 * (ANALYTICS_REPORTS.length + CHANNEL_REPORTS.length));
});

test('the matched accounts keep only the partner columns an explicit list names, and every shared field otherwise', () => {
  const report = CHANNEL_REPORTS.find((r) => r.id === 'PARTNER_ORG_MATCHED_ACCOUNTS')!;
  const all = plan(report);
  const partnerKey = all.output.find((o) => o.column.source === 'partner')!.key;
  const explicit = plan(report, [partnerKey]);
  const fields = { [partnerKey]: 'kept', other: 'dropped' };
  assert.deepEqual(JSON.parse(rowsJson(explicit, [[fields]])), [{ partnerFields: { [partnerKey]: 'kept' } }]);
  const width = all.output.filter((o) => o.column.source !== 'partner').length;
  const [row] = JSON.parse(rowsJson(all, [[...Array<null>(width).fill(null), fields]])) as Array<Record<string, unknown>>;
  assert.deepEqual(row!.partnerFields, fields);
  // Asked for by an alias, a partner column is still read by its stored key.
  const aliased = plan({ ...report, aliases: { ...report.aliases, sharedAlias: partnerKey } }, ['sharedAlias']);
  assert.deepEqual(JSON.parse(rowsJson(aliased, [[fields]])), [{ partnerFields: { [partnerKey]: 'kept' } }]);
  // A list without partner keys: exactly its keys, no partnerFields; with one, partnerFields where the first partner key is.
  assert.equal(rowsJson(plan(report, ['crmAccountId']), [['A1', fields]]), '[{"crmAccountId":"A1"}]');
  assert.equal(rowsJson(plan(report, ['crmAccountId', partnerKey, 'name']), [['A1', 'One', fields]]), `[{"crmAccountId":"A1","partnerFields":{"${partnerKey}":"kept"},"name":"One"}]`);
});
