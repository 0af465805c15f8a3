import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePaging, parseSort, searchTerms } from '../../src/reports/request.js';
import type { FieldError } from '../../src/server/errors.js';

test('paging defaults and clamping', () => {
  const errors: FieldError[] = [];
  assert.deepEqual(parsePaging({}, errors), { page: 0, size: 20, sort: [] });
  assert.deepEqual(parsePaging({ page: '3', size: '5000' }, errors), { page: 3, size: 2000, sort: [] });
  // Any larger integer too, past 2^53 or past a double's range: clamped, not refused.
  for (const size of ['9007199254740992', '99999999999999999999', '9'.repeat(400)]) assert.equal(parsePaging({ size }, errors).size, 2000, size);
  assert.deepEqual(errors, []);
});

test('page and size must be non-negative integers, size >= 1; every problem is reported', () => {
  const errors: FieldError[] = [];
  parsePaging({ page: '-1', size: '0' }, errors);
  assert.deepEqual(errors.map((e) => e.field), ['page', 'size']);
  const more: FieldError[] = [];
  parsePaging({ page: '1.5', size: 'ten' }, more);
  assert.equal(more.length, 2);
  const twice: FieldError[] = [];
  parsePaging({ page: ['1', '2'] }, twice);
  assert.match(twice[0]!.message, /more than once/);
  // A page far past any data is fine (an empty page), until page * size leaves the exact integers.
  const far: FieldError[] = [];
  assert.equal(parsePaging({ page: '4503599627370', size: '2000' }, far).page, 4503599627370);
  assert.equal(far.length, 0);
  parsePaging({ page: '4503599627371', size: '2000' }, far);
  assert.deepEqual(far, [{ field: 'page', message: 'must be at most 4503599627370 with size 2000, got 4503599627371' }]);
  // An integer past the exact integers is told the same, not that it is no integer.
  const huge: FieldError[] = [];
  parsePaging({ page: '99999999999999999999' }, huge);
  assert.deepEqual(huge, [{ field: 'page', message: `must be at most ${Math.floor(Number.MAX_SAFE_INTEGER / 20)} with size 20, got 99999999999999999999` }]);
  // Problems are listed page first, then size.
  const both: FieldError[] = [];
  parsePaging({ page: 'x', size: 'y' }, both);
  assert.deepEqual(both.map((e) => e.field), ['page', 'size']);
});

test('sort: repeatable, direction defaults to asc, Spring-style property lists', () => {
  const errors: FieldError[] = [];
  assert.deepEqual(parseSort(['a,desc', 'b'], errors), [
    { key: 'a', direction: 'desc' },
    { key: 'b', direction: 'asc' },
  ]);
  assert.deepEqual(parseSort('a,b,DESC', errors), [
    { key: 'a', direction: 'desc' },
    { key: 'b', direction: 'desc' },
  ]);
  // The last of several parts without a direction may have been meant as one.
  assert.deepEqual(parseSort('a,up', errors), [
    { key: 'a', direction: 'asc' },
    { key: 'up', direction: 'asc', orDirection: true },
  ]);
  assert.deepEqual(errors, []);
  parseSort(',asc', errors);
  assert.equal(errors.length, 1);
});

test('search splits on white space', () => {
  assert.deepEqual(searchTerms('  acme   west\tco '), ['acme', 'west', 'co']);
  assert.deepEqual(searchTerms(''), []);
});
