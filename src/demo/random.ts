/**
 * Seeded pseudo-random numbers of the demo generator: sfc32 (Chris Doty-Humphrey's Small
 * Fast Counting generator, 128 bits of state), keyed by a list of integers through a
 * murmur3-style mix. Every piece of the dataset gets its own generator keyed by
 * (seed, stream, index), so a chunk of accounts is the same whatever was generated
 * before it and the same seed always writes the same bytes. Not for cryptography.
 */

const TWO_32 = 4_294_967_296;
const POW10 = Array.from({ length: 16 }, (_, i) => 10 ** i);

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Splits any safe integer into two 32-bit words, so seeds above 2^32 still differ. */
function words(value: number): [number, number] {
  const v = Math.trunc(value);
  return [v >>> 0, Math.floor(v / TWO_32) >>> 0];
}

/** A 32-bit hash of a list of integers (order matters). */
export function hash32(...values: number[]): number {
  let h = 0x9e3779b9;
  for (const value of values) {
    const [lo, hi] = words(value);
    h = fmix32((Math.imul(h ^ lo, 0x27d4eb2d) + 0x165667b1) | 0);
    h = fmix32((Math.imul(h ^ hi, 0x27d4eb2d) + 0x61c88647) | 0);
  }
  return h;
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** A generator keyed by integers, for example `new Rng(seed, STREAM_ACCOUNTS, chunkIndex)`. */
  constructor(...key: number[]) {
    const h = hash32(...key);
    this.a = fmix32(h ^ 0x243f6a88);
    this.b = fmix32(h ^ 0x85a308d3);
    this.c = fmix32(h ^ 0x13198a2e);
    this.d = 1;
    for (let i = 0; i < 12; i++) this.next();
  }

  /** Uniform unsigned 32-bit integer. */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.next() / TWO_32;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Uniform integer in [min, max], both inclusive. */
  between(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.float() * list.length)]!;
  }

  /** An index drawn with the given relative weights. */
  weighted(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    let x = this.float() * total;
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i]!;
      if (x < 0) return i;
    }
    return weights.length - 1;
  }

  /** Shuffles `list` in place (Fisher-Yates) and returns it. */
  shuffle<T>(list: T[]): T[] {
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(this.float() * (i + 1));
      const t = list[i]!;
      list[i] = list[j]!;
      list[j] = t;
    }
    return list;
  }

  /** Uniform in [0, 1) with 53 random bits. */
  float53(): number {
    return ((this.next() >>> 5) * 67_108_864 + (this.next() >>> 6)) / 9_007_199_254_740_992;
  }

  /** `n` random decimal digits (leading zeros kept). */
  digits(n: number): string {
    if (n <= 9) return String(Math.floor(this.float() * POW10[n]!)).padStart(n, '0');
    if (n <= 15) return String(Math.floor(this.float53() * POW10[n]!)).padStart(n, '0');
    return this.digits(15) + this.digits(n - 15);
  }

  /** A random v4-looking UUID, lower case. */
  uuid(): string {
    let hex = '';
    for (let i = 0; i < 4; i++) hex += this.next().toString(16).padStart(8, '0');
    const variant = '89ab'[parseInt(hex[16]!, 16) & 3]!;
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }
}
