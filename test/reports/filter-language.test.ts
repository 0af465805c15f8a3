import { test } from 'node:test';
import assert from 'node:assert/strict';
import { likeContains, operationOf, parseFilter } from '../../src/reports/filter-language.js';

test('exact match splits values on -,-', () => {
  assert.deepEqual(parseFilter('a-,-b-,-c d'), { ok: true, filter: { operation: 'exact', values: ['a', 'b', 'c d'] } });
});

test('suffixes select not equal, contains and does not contain', () => {
  assert.deepEqual(parseFilter('x-,-y-!-'), { ok: true, filter: { operation: 'notEqual', values: ['x', 'y'] } });
  assert.deepEqual(parseFilter('foo-?-'), { ok: true, filter: { operation: 'contains', values: ['foo'] } });
  assert.deepEqual(parseFilter('foo-,-bar-^-'), { ok: true, filter: { operation: 'doesNotContain', values: ['foo', 'bar'] } });
});

test('a suffix wins over a range delimiter inside the value', () => {
  assert.equal(operationOf('1<->2-?-'), 'contains');
  assert.equal(operationOf('1<->2'), 'range');
  assert.equal(operationOf('plain'), 'exact');
});

test('ranges are inclusive numbers with open sides', () => {
  assert.deepEqual(parseFilter('10<->20.5'), { ok: true, filter: { operation: 'range', min: 10, max: 20.5 } });
  assert.deepEqual(parseFilter('100<->'), { ok: true, filter: { operation: 'range', min: 100, max: null } });
  assert.deepEqual(parseFilter('<->100'), { ok: true, filter: { operation: 'range', min: null, max: 100 } });
  assert.deepEqual(parseFilter('-5<->5'), { ok: true, filter: { operation: 'range', min: -5, max: 5 } });
});

test('bad ranges are rejected with a reason', () => {
  for (const raw of ['<->', 'a<->1', '1<->b', '5<->1', '1<->2<->3']) {
    const r = parseFilter(raw);
    assert.equal(r.ok, false, raw);
  }
  const r = parseFilter('5<->1');
  assert.match(r.ok ? '' : r.message, /greater than max/);
});

test('empty value lists and empty values are rejected', () => {
  for (const raw of ['', '-!-', '-?-', 'a-,--,-b', 'a-,-', '-,-a-^-']) assert.equal(parseFilter(raw).ok, false, JSON.stringify(raw));
});

test('LIKE metacharacters are escaped so they are literal', () => {
  assert.equal(likeContains('100%'), '%100\\%%');
  assert.equal(likeContains('a_b'), '%a\\_b%');
  assert.equal(likeContains('back\\slash'), '%back\\\\slash%');
});
