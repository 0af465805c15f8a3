/**
 * CSV cells are text converted by the field's type: a number beyond a double's range
 * (`1e400`) would read as Infinity, and is refused, as the same value is in NDJSON.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ENTITY_BY_NAME } from '../../src/ingest/bundle-spec.js';
import { validateRecord } from '../../src/ingest/validate-record.js';
import { ORG } from '../fixtures/small-bundle.js';

const accounts = ENTITY_BY_NAME.get('accounts')!;
const types = () => new Map([['arr', 'currency' as const]]);
const problems = (record: Record<string, unknown>, fromCsv: boolean) =>
  validateRecord(accounts, { org: ORG.ACME, crmAccountId: 'X', name: 'X', ...record }, fromCsv, types).problems.map((p) => `${p.field}: ${p.problem}`);

test('a CSV number beyond the double range is a problem, as in NDJSON; one within it converts', () => {
  for (const cell of ['1e400', '-1e400', '1e309']) {
    assert.deepEqual(problems({ openPipelineAmount: cell }, true), [`openPipelineAmount: must be a number, got the string "${cell}"`], cell);
    assert.equal(problems({ 'custom.arr': cell }, true).length, 1, `custom ${cell}`);
  }
  assert.deepEqual(problems({ openPipelineAmount: Infinity }, false), ['openPipelineAmount: must be a number, got number Infinity']);
  for (const cell of ['1e300', '-1.7976931348623157e308', ' 2.5 ']) {
    const v = validateRecord(accounts, { org: ORG.ACME, crmAccountId: 'X', name: 'X', openPipelineAmount: cell }, true, types);
    assert.deepEqual(v.problems, [], cell);
  }
});

const check = (entity: string, record: Record<string, unknown>) =>
  validateRecord(ENTITY_BY_NAME.get(entity)!, record, false, () => undefined).problems.map((p) => `${p.field}: ${p.problem}`);

test('counts stored in integer columns are at most 2^31 - 1 (larger ones failed the load)', () => {
  assert.deepEqual(check('orgs', { publicId: ORG.ACME, name: 'A', attributionWindowDays: 2 ** 31 }), ['attributionWindowDays: must be at most 2147483647, got 2147483648']);
  assert.deepEqual(check('orgs', { publicId: ORG.ACME, name: 'A', attributionWindowDays: 2 ** 31 - 1 }), []);
  assert.deepEqual(check('partnerships', { org: ORG.ACME, partner: ORG.ALPHA, status: 'CONNECTED', activeConnections: 3e9, spreadsheetsShared: -1 }), [
    'activeConnections: must be at most 2147483647, got 3000000000',
    'spreadsheetsShared: must not be negative, got -1',
  ]);
  // Counts in bigint columns keep their range.
  assert.deepEqual(check('accounts', { org: ORG.ACME, crmAccountId: 'X', name: 'X', numberOfEmployees: 3e9 }), []);
});

test('an event type lists each subtype code once', () => {
  const subtypes = [{ code: 'A', displayName: 'A' }, { code: 'B', displayName: 'B' }, { code: 'A', displayName: 'Again' }];
  assert.deepEqual(check('event_types', { code: 'T', displayName: 'T', group: 'G', subtypes }), ['subtypes: lists the subtype code "A" more than once']);
  assert.deepEqual(check('event_types', { code: 'T', displayName: 'T', group: 'G', subtypes: subtypes.slice(0, 2) }), []);
});

test('an event type carries its subtypes, an empty list when it has none (contract 7 marks the field required)', () => {
  assert.deepEqual(check('event_types', { code: 'T', displayName: 'T', group: 'G', subtypes: [] }), []);
  assert.deepEqual(check('event_types', { code: 'T', displayName: 'T', group: 'G' }), ['subtypes: missing required field']);
});

test("an event's named custom details are strings; its other custom keys are kept as given", () => {
  const event = (custom: object) => ({ org: ORG.ACME, eventId: 'E', eventDate: 1, eventTypeCode: 'T', crmAccountId: 'X', partner: ORG.ALPHA, custom });
  assert.deepEqual(check('events', event({ note: 5, detail1: true, campaignId: 'C-1', leadId: null, other: 7 })), [
    'custom.note: must be a string, got number 5 (shown as the string column custom_event_note)',
    'custom.detail1: must be a string, got boolean true (shown as the string column custom_event_detail_1)',
  ]);
  assert.deepEqual(check('events', event({ note: 'n', other: 7 })), []);
});

test('a CSV integer or date takes the number grammar when the value is whole, as the same JSON number does', () => {
  for (const [cell, n] of [['1e3', 1000], ['1.0', 1], [' 42 ', 42], ['-5', -5]] as const) {
    const v = validateRecord(accounts, { org: ORG.ACME, crmAccountId: 'X', name: 'X', recentOpenOppDate: cell }, true, types);
    assert.deepEqual([v.problems, v.row.includes(n)], [[], true], cell);
  }
  for (const cell of ['1.5', '1e400', '9007199254740993', 'abc']) assert.equal(problems({ recentOpenOppDate: cell }, true).length, 1, cell);
});

test('a CSV boolean in any letter case (Python writes True/False, spreadsheets TRUE/FALSE), spaces around it read past as around a number; NDJSON keeps JSON booleans', () => {
  for (const [cell, b] of [['true', true], ['True', true], ['TRUE', true], ['false', false], ['False', false], ['FALSE', false], [' true ', true], ['\tFALSE', false]] as const) {
    const v = validateRecord(accounts, { org: ORG.ACME, crmAccountId: 'X', name: 'X', isCustomer: cell }, true, types);
    assert.deepEqual([v.problems, v.row.includes(b)], [[], true], cell);
  }
  for (const cell of ['yes', '1', 'T', 'truee']) assert.deepEqual(problems({ isCustomer: cell }, true), [`isCustomer: must be true or false, got the string "${cell}"`], cell);
  assert.equal(problems({ isCustomer: 'True' }, false).length, 1, 'an NDJSON string is no boolean');
});

test('a value under an empty CSV header cell is named as such, not as a field with no name', () => {
  assert.deepEqual(problems({ '': 'x' }, true), ['-: a value in a column whose header cell is empty']);
  assert.deepEqual(problems({ '': 'x' }, false), ['-: a field with an empty name']);
});
