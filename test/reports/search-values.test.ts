/**
 * The catalog's `searchByValue` lists (search-values.ts): only stored textual columns, and
 * few enough for the accounts report's search index (a GIN index takes 32 columns:
 * org_id, search_text and at most 30 more).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANALYTICS_REPORTS, CHANNEL_REPORTS, reportById } from '../../src/reports/catalog/index.js';
import { byValueColumns } from '../../src/reports/search-values.js';

test('every report that lists by-value columns lists stored textual columns; the accounts report at most 30', () => {
  for (const report of [...ANALYTICS_REPORTS, ...CHANNEL_REPORTS]) {
    const columns = byValueColumns(report);
    assert.equal(columns.length, report.searchByValue?.length ?? 0, report.id);
  }
  const accounts = byValueColumns(reportById('GLOBAL_VERTICAL_ACCOUNTS'));
  assert.ok(accounts.length > 0 && accounts.length <= 30, String(accounts.length));
  assert.ok(accounts.some((c) => c.name === 'partner_org_public_id'), 'a key that differs from its stored name maps to the stored name');
});

test('a list naming an unknown, unstored or non-textual column is refused', () => {
  const base = reportById('GLOBAL_VERTICAL_ACCOUNTS');
  for (const bad of ['no_such_column', 'annual_revenue', 'recent_open_opp_date']) {
    assert.throws(() => byValueColumns({ ...base, searchByValue: ['city', bad] }), new RegExp(`searchByValue lists ${bad}`));
  }
});
