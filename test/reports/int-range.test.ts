/**
 * The range test of held whole-number columns (src/reports/int-range.ts): the SIMD pass
 * over a column in a WebAssembly memory and the JavaScript loop mark exactly the values
 * in the range, in whole words and in the partial last one, and the embedded module is
 * the assembled int-range.wat.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assemble } from '../../scripts/assemble-wasm.js';
import { INT_RANGE_WASM, SIMD_MIN_ROWS, intBits, intColumn, isSimdColumn } from '../../src/reports/int-range.js';
import { nthSetBits } from '../../src/reports/column-store.js';

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

/** `length` values around the bounds below, with the Int32 extremes (NULL is INT_MIN) sprinkled in. */
function fill(data: Int32Array): Int32Array {
  let seed = 7;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  for (let i = 0; i < data.length; i++) data[i] = i % 97 === 0 ? (i % 2 ? INT_MAX : INT_MIN) : (next() % 2001) - 1000;
  return data;
}

function checkRanges(data: Int32Array): void {
  const n = data.length;
  const ranges: Array<[number, number]> = [
    [-1000, 1000], [data[5]!, data[5]!], [data[n - 2]!, data[n - 2]!], [-5, 5], [10, 20],
    [INT_MIN, INT_MAX], [INT_MIN, -1], [1, INT_MAX], [980, 1000], [INT_MIN + 1, -999],
  ];
  for (const [lo, hi] of ranges) {
    // Filled with ones first: every word must be written.
    const bits = new Uint32Array(Math.ceil(n / 32)).fill(0xffffffff);
    const passing = intBits(lo, hi - lo, data, bits);
    const expected = [...data.keys()].filter((i) => data[i]! >= lo && data[i]! <= hi);
    assert.deepEqual(nthSetBits(bits, 0, n + 32), expected, `${lo}..${hi} over ${n} values`);
    assert.equal(passing, expected.length, `${lo}..${hi} over ${n} values`);
    assert.ok(expected.length > 0, `${lo}..${hi}`);
  }
}

test('the embedded module is int-range.wat assembled', async () => {
  assert.equal(await assemble('src/reports/int-range.wat'), INT_RANGE_WASM);
});

test('the JavaScript loop marks exactly the values in the range, in whole words and in the partial last one', () => {
  // 1,000 values: 31 whole words and a partial one.
  const data = fill(intColumn(1000));
  assert.equal(isSimdColumn(data), false);
  checkRanges(data);
});

test('a large column is tested with SIMD and marks exactly what the loop marks', () => {
  for (const rows of [SIMD_MIN_ROWS, SIMD_MIN_ROWS + 1, SIMD_MIN_ROWS + 31, 100_000]) {
    const data = fill(intColumn(rows));
    assert.equal(isSimdColumn(data), true, `${rows} rows`);
    assert.equal(data.length, rows);
    // The values, the scratch words after them and the rest of the last 64 KB page.
    assert.ok(data.buffer.byteLength >= rows * 4 + (rows >>> 5) * 4 && data.buffer.byteLength < rows * 4 + (rows >>> 5) * 4 + 65_536, `${rows} rows`);
    checkRanges(data);
    const plain = Int32Array.from(data);
    assert.equal(isSimdColumn(plain), false);
    for (const [lo, hi] of [[-300, 450], [INT_MIN + 1, 0]] as const) {
      const a = new Uint32Array(Math.ceil(rows / 32));
      const b = new Uint32Array(Math.ceil(rows / 32));
      assert.equal(intBits(lo, hi - lo, data, a), intBits(lo, hi - lo, plain, b));
      assert.deepEqual(a, b, `${lo}..${hi} over ${rows} values`);
    }
  }
});

test('a column below the threshold is a plain array', () => {
  assert.equal(isSimdColumn(intColumn(SIMD_MIN_ROWS - 1)), false);
  assert.equal(isSimdColumn(intColumn(100, 64)), true);
  assert.equal(intColumn(100).buffer.byteLength, 400);
});
