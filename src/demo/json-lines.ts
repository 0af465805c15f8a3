/**
 * NDJSON lines of the demo generator, encoded into a growing byte buffer. The generator
 * builds each line as one string by concatenation (see chunk.ts) and it is encoded with
 * one native call: on Node 20 `JSON.stringify` of a wide record costs several times
 * more, and the generator writes millions of rows.
 *
 * Rules for building a line by hand, so that it is what `JSON.stringify` would write:
 * numbers and booleans are concatenated as they are (`String(n)` is JSON for finite
 * numbers); strings that can hold a quote, a backslash or a control character go
 * through `jsonString`; strings from the word lists (vocabulary.ts, checked by a test)
 * may be put between quotes as they are; a field whose value is absent is left out.
 */

const INITIAL = 1 << 21;
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `s` as a JSON string literal, exactly as `JSON.stringify(s)`. */
export function jsonString(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

export class JsonLines {
  /** Lines written since the last `take`. */
  rows = 0;
  private buf: Buffer;
  private pos = 0;
  /** Buffers given back (`recycle`) after their lines were written out. */
  private readonly spare: ArrayBuffer[] = [];

  constructor() {
    this.buf = Buffer.allocUnsafeSlow(INITIAL);
  }

  /** Bytes written and not taken yet. */
  get size(): number {
    return this.pos;
  }

  /** Appends one line: `json` must be one JSON value without a line break. */
  line(json: string): void {
    // A UTF-16 code unit never takes more than 3 bytes of UTF-8.
    const need = json.length * 3 + 1;
    if (this.pos + need > this.buf.length) this.grow(need);
    this.pos += this.buf.write(json, this.pos);
    this.buf[this.pos++] = 10;
    this.rows++;
  }

  /** Appends one value through JSON.stringify (for the few small records). */
  value(v: unknown): void {
    this.line(JSON.stringify(v));
  }

  /**
   * The lines written since the last call, as a view of the start of an ArrayBuffer of
   * its own (it can be transferred to another thread); the writer continues in a spare
   * buffer, or a fresh one when none was given back.
   */
  take(): { bytes: Uint8Array; rows: number } {
    const out = { bytes: new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.pos), rows: this.rows };
    const spare = this.spare.pop();
    // A fresh buffer costs more than its allocation: V8 counts it as external memory (which
    // brings garbage collections forward) and the kernel zeroes each page on first touch.
    this.buf = spare ? Buffer.from(spare) : Buffer.allocUnsafeSlow(Math.max(INITIAL, this.buf.length));
    this.pos = 0;
    this.rows = 0;
    return out;
  }

  /** Gives back the buffer of an earlier `take` whose bytes are no longer needed. */
  recycle(buffer: ArrayBuffer): void {
    if (this.spare.length < MAX_SPARE && buffer.byteLength >= INITIAL) this.spare.push(buffer);
  }

  private grow(need: number): void {
    const next = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.pos + need));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
}

/** Spare buffers a writer keeps at most (a few batches in flight each hold one). */
const MAX_SPARE = 4;
