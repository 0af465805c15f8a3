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
