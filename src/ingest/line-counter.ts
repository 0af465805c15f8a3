/**
 * Line numbers of byte offsets of a file read as a stream of chunks: where the CSV reader
 * (read-records.ts) reports records and parse errors. csv-parse's own count
 * (`info.lines`) takes a CRLF inside a quoted cell for two lines, so every such cell puts
 * its record and all later ones a line too far; its byte offsets (`info.bytes`) are
 * exact, so lines are counted here from the bytes, by the NDJSON reader's rule: a line
 * ends at LF, CRLF or a lone CR.
 *
 * Only the breaks not yet passed are kept: memory is bounded by the bytes between the
 * file and the parser. Offsets must be asked in non-decreasing order.
 */
const LF = 0x0a;
const CR = 0x0d;

export class LineCounter {
  /** Offsets where each break not yet passed starts and ends (exclusive), from index `next`. */
  private starts: number[] = [];
  private ends: number[] = [];
  private next = 0;
  /** Breaks passed (those starting before the last offset asked), and where the last one ended. */
  private passed = 0;
  private lastEnd = -1;
  /** Bytes added so far, and whether the last of them is a CR (a CRLF split between chunks). */
  private bytes = 0;
  private endsWithCr = false;

  /** Adds the file's next chunk; must be called before the parser sees it. */
  add(chunk: Buffer): void {
    if (chunk.length === 0) return;
    const base = this.bytes;
    let i = 0;
    if (this.endsWithCr && chunk[0] === LF) {
      // The CR that ended the previous chunk was the first half of a CRLF: one break, longer by a byte.
      if (this.next === this.starts.length && this.lastEnd === base) this.lastEnd = base + 1;
      else this.ends[this.ends.length - 1] = base + 1;
      i = 1;
    }
    // Native searches, not a loop over every byte; each position is found once per chunk.
    let lf = chunk.indexOf(LF, i);
    let cr = chunk.indexOf(CR, i);
    while (lf !== -1 || cr !== -1) {
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        const length = chunk[cr + 1] === LF ? 2 : 1;
        this.starts.push(base + cr);
        this.ends.push(base + cr + length);
        i = cr + length;
        cr = chunk.indexOf(CR, i);
        if (length === 2) lf = chunk.indexOf(LF, i);
      } else {
        this.starts.push(base + lf);
        this.ends.push(base + lf + 1);
        i = lf + 1;
        lf = chunk.indexOf(LF, i);
      }
    }
    this.bytes += chunk.length;
    this.endsWithCr = chunk[chunk.length - 1] === CR;
  }

  /** Line (from 1) of the last line of a record that ends at `end` (past its line break, if it has one). */
  lineEndingAt(end: number): number {
    this.pass(end);
    return this.lastEnd === end ? this.passed : this.passed + 1;
  }

  /** Line (from 1) of the first byte at or after `offset` that is not a line break: where what follows starts. */
  lineStartingAt(offset: number): number {
    this.pass(offset);
    let line = this.passed + 1;
    let at = offset;
    for (let k = this.next; k < this.starts.length && this.starts[k] === at; k++) {
      line++;
      at = this.ends[k]!;
    }
    return line;
  }

  private pass(offset: number): void {
    while (this.next < this.starts.length && this.starts[this.next]! < offset) {
      this.lastEnd = this.ends[this.next]!;
      this.next++;
      this.passed++;
    }
    if (this.next >= 4096) {
      this.starts.splice(0, this.next);
      this.ends.splice(0, this.next);
      this.next = 0;
    }
  }
}

/** Line breaks in a text (LF, CRLF or a lone CR): the lines a quoted CSV cell spans, less one. */
export function lineBreaks(text: string): number {
  if (!text.includes('\n') && !text.includes('\r')) return 0;
  return text.split(/\r\n|\n|\r/).length - 1;
}
