/**
 * NDJSON lines built straight into a UTF-8 byte buffer. On Node 20 `JSON.stringify` of
 * a wide record and the string ropes of hand-made concatenation both cost several
 * microseconds per row; encoding field by field into bytes costs a fraction of that, and
 * the generator writes millions of rows. The bytes are exactly those `JSON.stringify`
 * would give for the same keys and values in the same order (strings escaped the same
 * way, numbers as `String(n)`), which test/demo/json-lines.test.ts checks.
 *
 * Usage: `open()`, then fields (a field whose value is `undefined` is left out, like
 * `JSON.stringify` does), nested objects with `openObject`/`closeObject`, then `close()`.
 * Field names are pre-encoded once with `field('name')`.
 */

const encoder = new TextEncoder();
const HEX = '0123456789abcdef';
const INITIAL = 1 << 21;

/** A pre-encoded field name: `"name":`. */
export type FieldName = Uint8Array & { readonly __field: true };

const fieldCache = new Map<string, FieldName>();
export function field(name: string): FieldName {
  let f = fieldCache.get(name);
  if (!f) {
    f = encoder.encode(`${JSON.stringify(name)}:`) as FieldName;
    fieldCache.set(name, f);
  }
  return f;
}

/** Pre-encodes a JSON value (for example a person object shared by many rows). */
export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

export class JsonLines {
  /** Lines written since the last `take`. */
  rows = 0;
  private buf: Uint8Array = new Uint8Array(INITIAL);
  private pos = 0;
  private first = true;
  private readonly digits = new Uint8Array(24);

  /** Bytes written and not taken yet. */
  get size(): number {
    return this.pos;
  }

  /** The lines written since the last call; the writer continues in a fresh buffer. */
  take(): { bytes: Uint8Array; rows: number } {
    const out = { bytes: this.buf.subarray(0, this.pos), rows: this.rows };
    this.buf = new Uint8Array(this.buf.length);
    this.pos = 0;
    this.rows = 0;
    return out;
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** A whole line from a value, through JSON.stringify (for the few small records). */
  value(v: unknown): void {
    this.bytes(encoder.encode(JSON.stringify(v)));
    this.room(1);
    this.buf[this.pos++] = 10;
    this.rows++;
  }

  open(): void {
    this.room(1);
    this.buf[this.pos++] = 123;
    this.first = true;
  }

  close(): void {
    this.room(2);
    this.buf[this.pos++] = 125;
    this.buf[this.pos++] = 10;
    this.rows++;
  }

  openObject(name: FieldName): void {
    this.name(name);
    this.room(1);
    this.buf[this.pos++] = 123;
    this.first = true;
  }

  closeObject(): void {
    this.room(1);
    this.buf[this.pos++] = 125;
    this.first = false;
  }

  string(name: FieldName, v: string | undefined): void {
    if (v === undefined) return;
    this.name(name);
    this.quoted(v);
  }

  number(name: FieldName, v: number | undefined): void {
    if (v === undefined) return;
    this.name(name);
    this.num(v);
  }

  boolean(name: FieldName, v: boolean | undefined): void {
    if (v === undefined) return;
    this.name(name);
    this.ascii(v ? 'true' : 'false');
  }

  /** A field whose value is already encoded JSON. */
  json(name: FieldName, v: Uint8Array | undefined): void {
    if (v === undefined) return;
    this.name(name);
    this.bytes(v);
  }

  /** A string, number or boolean field. */
  scalar(name: FieldName, v: string | number | boolean | undefined): void {
    if (typeof v === 'string') this.string(name, v);
    else if (typeof v === 'number') this.number(name, v);
    else if (typeof v === 'boolean') this.boolean(name, v);
  }

  private name(name: FieldName): void {
    this.room(name.length + 1);
    if (this.first) this.first = false;
    else this.buf[this.pos++] = 44;
    this.bytes(name);
  }

  private bytes(b: Uint8Array): void {
    this.room(b.length);
    const buf = this.buf;
    let p = this.pos;
    if (b.length > 64) {
      buf.set(b, p);
      p += b.length;
    } else {
      for (let i = 0; i < b.length; i++) buf[p++] = b[i]!;
    }
    this.pos = p;
  }

  /** ASCII text without escaping (numbers, literals). */
  private ascii(s: string): void {
    this.room(s.length);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < s.length; i++) buf[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  private num(v: number): void {
    if (Number.isInteger(v) && v < 1e15 && v > -1e15) {
      this.room(17);
      if (v < 0) {
        this.buf[this.pos++] = 45;
        v = -v;
      }
      const d = this.digits;
      let n = 0;
      do {
        d[n++] = 48 + (v % 10);
        v = Math.floor(v / 10);
      } while (v > 0);
      while (n > 0) this.buf[this.pos++] = d[--n]!;
    } else {
      this.ascii(String(v));
    }
  }

  /** A JSON string literal: escaped as JSON.stringify escapes, UTF-8 encoded. */
  private quoted(s: string): void {
    this.room(s.length * 6 + 2);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = 34;
    const len = s.length;
    for (let i = 0; i < len; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) {
        if (c >= 0x20 && c !== 34 && c !== 92) {
          buf[p++] = c;
        } else {
          buf[p++] = 92;
          if (c === 34 || c === 92) buf[p++] = c;
          else if (c === 10) buf[p++] = 110;
          else if (c === 13) buf[p++] = 114;
          else if (c === 9) buf[p++] = 116;
          else if (c === 8) buf[p++] = 98;
          else if (c === 12) buf[p++] = 102;
          else {
            buf[p++] = 117;
            buf[p++] = 48;
            buf[p++] = 48;
            buf[p++] = HEX.charCodeAt(c >> 4);
            buf[p++] = HEX.charCodeAt(c & 15);
          }
        }
      } else if (c < 0x800) {
        buf[p++] = 0xc0 | (c >> 6);
        buf[p++] = 0x80 | (c & 63);
      } else if (c < 0xd800 || c >= 0xe000) {
        buf[p++] = 0xe0 | (c >> 12);
        buf[p++] = 0x80 | ((c >> 6) & 63);
        buf[p++] = 0x80 | (c & 63);
      } else {
        const next = i + 1 < len ? s.charCodeAt(i + 1) : 0;
        if (c < 0xdc00 && next >= 0xdc00 && next < 0xe000) {
          const cp = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          buf[p++] = 0xf0 | (cp >> 18);
          buf[p++] = 0x80 | ((cp >> 12) & 63);
          buf[p++] = 0x80 | ((cp >> 6) & 63);
          buf[p++] = 0x80 | (cp & 63);
          i++;
        } else {
          // A lone surrogate: JSON.stringify writes it as an escape.
          buf[p++] = 92;
          buf[p++] = 117;
          for (let shift = 12; shift >= 0; shift -= 4) buf[p++] = HEX.charCodeAt((c >> shift) & 15);
        }
      }
    }
    buf[p++] = 34;
    this.pos = p;
  }
}
