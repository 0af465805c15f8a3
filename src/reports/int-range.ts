/**
 * The range test of whole-number columns held by the column store: which rows hold a
 * value in [lo, lo + span], as a bitset (bit i of word i >> 5 for row i), and how many.
 *
 * A first-seen range filter is one such pass per range column over every row of the
 * tenant, and at 2,000,000 rows the JavaScript loop (3.2 ms a column) was most of the
 * request's CPU. A large column therefore lives in a WebAssembly memory of its own, where
 * int-range.wat tests four values per instruction (SIMD: 0.4 ms for the same pass,
 * docs/benchmarks.md, twelfth session). Small columns, and runtimes without WebAssembly
 * SIMD, use the loop; both give the same bits (test/reports/int-range.test.ts).
 *
 * Written by hand: no library tests a typed array against a range into a bitset. The
 * bytes below are int-range.wat assembled by wabt's wat2wasm (`npm run wasm` prints
 * them); the test assembles the .wat again and compares.
 */
import { popcount } from './bitset.js';

/** int-range.wat, assembled. */
export const INT_RANGE_WASM =
  'AGFzbQEAAAABCQFgBH9/f38BfwIPAQNlbnYGbWVtb3J5AgABAwIBAAcJAQVyYW5nZQAACvkBAfYBAgR/AnsgAf0RIQggAv0RIQkgAEEHdCEFAkADQCAEIAVPDQEgBP0ABAAgCP2xASAJ/T79pAEgBP0ABBAgCP2xASAJ/T79pAFBBHRyIAT9AAQgIAj9sQEgCf0+/aQBQQh0IAT9AAQwIAj9sQEgCf0+/aQBQQx0cnIgBP0ABEAgCP2xASAJ/T79pAFBEHQgBP0ABFAgCP2xASAJ/T79pAFBFHRyIAT9AARgIAj9sQEgCf0+/aQBQRh0IAT9AARwIAj9sQEgCf0+/aQBQRx0cnJyIQYgAyAGNgIAIAcgBmlqIQcgA0EEaiEDIARBgAFqIQQMAAsLIAcL';

/**
 * Rows from which a column gets a memory of its own. Each memory reserves address space
 * (not RAM) and costs an instance; below this the loop's pass is short anyway (about 0.1
 * ms, from 3.2 ms at 2,000,000 values).
 */
export const SIMD_MIN_ROWS = 65_536;

const PAGE = 65_536;

/** A column's compiled test and the scratch words it writes, in the column's memory after its values. */
interface Kernel {
  range: (words: number, lo: number, span: number, out: number) => number;
  at: number;
  out: Uint32Array;
}

/** By the column's buffer (its memory's, which never grows). */
const kernels = new WeakMap<ArrayBufferLike, Kernel>();

/** The part of the WebAssembly JavaScript API used here (Node 20's type declarations lack it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
}
/** Undefined under `node --jitless`. */
const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

let compiled: object | null | undefined;
/** The module, once; null where WebAssembly or its SIMD instructions are unavailable. */
function wasmModule(): object | null {
  if (compiled === undefined) {
    try {
      compiled = wasm ? new wasm.Module(Buffer.from(INT_RANGE_WASM, 'base64')) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/**
 * An Int32 column of `rows` values (zeros): in a WebAssembly memory when it is large
 * enough to gain from the SIMD test, else a plain array.
 */
export function intColumn(rows: number, minRows = SIMD_MIN_ROWS): Int32Array {
  const module = rows >= minRows ? wasmModule() : null;
  if (module && wasm) {
    const words = rows >>> 5;
    const at = rows * 4;
    try {
      const memory = new wasm.Memory({ initial: Math.max(1, Math.ceil((at + words * 4) / PAGE)) });
      const instance = new wasm.Instance(module, { env: { memory } });
      kernels.set(memory.buffer, { range: instance.exports.range as Kernel['range'], at, out: new Uint32Array(memory.buffer, at, words) });
      return new Int32Array(memory.buffer, 0, rows);
    } catch {
      // No address space left for another memory (a `ulimit -v`, say): the plain array.
    }
  }
  return new Int32Array(rows);
}

/** Whether `data` is tested with SIMD. */
export const isSimdColumn = (data: Int32Array): boolean => kernels.has(data.buffer);

/**
 * Rows with lo <= value <= lo + span into `bits` (at least ceil(rows / 32) words), as one
 * unsigned comparison: value - lo wraps below zero to 2^32 or more minus a little, above
 * any span of Int32 bounds (half the time of two comparisons). Returns how many pass.
 */
export function intBits(lo: number, span: number, data: Int32Array, bits: Uint32Array): number {
  let passing = 0;
  let w = 0;
  const kernel = kernels.get(data.buffer);
  if (kernel) {
    // `span` may exceed 2^31: passed as the same 32 bits, which the SIMD comparison reads unsigned.
    passing = kernel.range(kernel.out.length, lo, span, kernel.at);
    bits.set(kernel.out);
    w = kernel.out.length;
  }
  // Whole words four values a step (about 17% less time than one a step, measured over
  // 2,000,000 values), then the last, partial word one value at a time.
  const whole = data.length >>> 5;
  for (; w < whole; w++) {
    let word = 0;
    for (let i = w << 5, b = 0; b < 32; i += 4, b += 4) {
      const nibble =
        +(((data[i]! - lo) >>> 0) <= span) |
        (+(((data[i + 1]! - lo) >>> 0) <= span) << 1) |
        (+(((data[i + 2]! - lo) >>> 0) <= span) << 2) |
        (+(((data[i + 3]! - lo) >>> 0) <= span) << 3);
      word |= nibble << b;
    }
    bits[w] = word;
    passing += popcount(word);
  }
  for (; w < bits.length; w++) {
    let word = 0;
    for (let i = w << 5, b = 0; i < data.length; i++, b++) word |= +(((data[i]! - lo) >>> 0) <= span) << b;
    bits[w] = word;
    passing += popcount(word);
  }
  return passing;
}
