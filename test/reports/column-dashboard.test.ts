/**
 * The accounts dashboard over held columns (src/reports/column-dashboard.ts), on rows
 * built by hand for the cases the imported fixtures do not have: an account with two rows
 * of one partner, rows without an account, NULL amounts and flags, unselected rows, and
 * partners ordered by overlaps, then name (lower-cased, then as written), then id.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accountsDashboard } from '../../src/reports/column-dashboard.js';

const N = -2147483648; // NULL of an Int32 column

test('per-account, per-partner and total figures follow the SQL grouping', () => {
  // rows:        0    1    2    3    4    5    6    7
  // account:     A    A    A    B    -    -    C    D   (runs: A 0-2, B 3, C 6, D 7; 4-5 no account)
  // partner:     p1   p1   p2   p2   p1   p2   p3   p1
  const runs = Uint8Array.from([1, 2, 2, 1, 0, 0, 1, 1]);
  const customer = Uint8Array.from([1, 2, 0, 1, 2, 2, 0, 1]);
  // Dictionary positions: ids 1 'b-id', 2 'a-id', 3 'c-id'; names 1 'Alpha', 2 'alpha', 3 'Zed'.
  const partnerPublicId = Uint16Array.from([1, 1, 2, 2, 1, 2, 3, 1]);
  const partnerName = Uint16Array.from([1, 1, 2, 2, 1, 2, 3, 1]);
  const pipeline = Int32Array.from([100, 100, 100, 50, 7, N, N, 30]);
  const acv = Int32Array.from([10, 10, 10, N, 3, 4, N, 5]);
  const names = { publicIds: ['', 'b-id', 'a-id', 'c-id'], names: ['', 'Alpha', 'alpha', 'Zed'], nameLowerRank: [0, 1, 1, 2] };
  const all = accountsDashboard({ rows: 8, bits: null, runs, customer, partnerPublicId, partnerName, pipeline, acv }, names);
  assert.ok(all);
  assert.deepEqual(all.totals, {
    overlapping_accounts: 4, // A B C D (rows without an account are one group, not an account)
    overlaps: 8,
    partners: 3,
    customers: 1, // A (row 1); the account-less rows' flags do not count
    open_pipeline_amount: 100 + 50 + 30 + 7, // max per account; C has none; the account-less group's max 7
    account_acv: 10 + 5 + 4, // B and C have none; the account-less group's max 4
  });
  assert.deepEqual(all.byPartner, [
    // b-id/Alpha: rows 0,1,4,7 (4), accounts A and D (row 4 has none); a-id/alpha: rows 2,3,5 (3), accounts A and B.
    // A's amount counts once for b-id, though two of its rows are b-id's: 100 + 30 + 7 (row 4's group).
    { partner_public_id: 'b-id', partner_name: 'Alpha', overlaps: 4, overlapping_accounts: 2, open_pipeline_amount: 137 },
    { partner_public_id: 'a-id', partner_name: 'alpha', overlaps: 3, overlapping_accounts: 2, open_pipeline_amount: 150 },
    { partner_public_id: 'c-id', partner_name: 'Zed', overlaps: 1, overlapping_accounts: 1, open_pipeline_amount: 0 },
  ]);

  // Only rows 2, 3 and 5 (bits): one partner pair, accounts A and B, the account-less row 5.
  const bits = Uint32Array.from([(1 << 2) | (1 << 3) | (1 << 5)]);
  const some = accountsDashboard({ rows: 8, bits, runs, customer, partnerPublicId, partnerName, pipeline, acv }, names);
  assert.deepEqual(some?.totals, { overlapping_accounts: 2, overlaps: 3, partners: 1, customers: 0, open_pipeline_amount: 150, account_acv: 14 });
  assert.deepEqual(some?.byPartner, [{ partner_public_id: 'a-id', partner_name: 'alpha', overlaps: 3, overlapping_accounts: 2, open_pipeline_amount: 150 }]);

  // Equal overlaps and equal lower-cased names: the name as written decides ("Alpha" before
  // "alpha", contract section 2's text order), though b-id is the greater id.
  const pair = (partnerName: Uint16Array) =>
    accountsDashboard({ rows: 2, bits: null, runs: Uint8Array.from([1, 1]), customer: Uint8Array.from([0, 0]), partnerPublicId: Uint16Array.from([1, 2]), partnerName, pipeline: Int32Array.from([N, N]), acv: Int32Array.from([N, N]) }, names);
  assert.deepEqual(pair(Uint16Array.from([1, 2]))?.byPartner.map((p) => p.partner_public_id), ['b-id', 'a-id']);
  // Equal names: the id decides (code point order).
  assert.deepEqual(pair(Uint16Array.from([2, 2]))?.byPartner.map((p) => p.partner_public_id), ['a-id', 'b-id']);
  // No row selected: zeros and no partner.
  const none = accountsDashboard({ rows: 8, bits: Uint32Array.from([0]), runs, customer, partnerPublicId, partnerName, pipeline, acv }, names);
  assert.deepEqual(none, { totals: { overlapping_accounts: 0, overlaps: 0, partners: 0, customers: 0, open_pipeline_amount: 0, account_acv: 0 }, byPartner: [] });
});
