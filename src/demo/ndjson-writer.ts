/**
 * One NDJSON file of the bundle being written: takes encoded lines (json-lines.ts) in
 * large blocks and waits for the file stream when the disk falls behind, so memory stays
 * bounded whatever the scale. Written under a temporary name; `publish` renames it.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';

export class NdjsonFile {
  rows = 0;
  private readonly stream: WriteStream;
  private failure: Error | undefined;

  constructor(
    private readonly partialPath: string,
    readonly path: string,
  ) {
    this.stream = createWriteStream(partialPath, { highWaterMark: 8 << 20 });
    this.stream.on('error', (err) => {
      this.failure = err;
    });
  }

  /** Appends a block of `rows` complete lines; resolves when the stream can take more. */
  async append(bytes: Uint8Array, rows: number): Promise<void> {
    if (this.failure) throw this.failure;
    this.rows += rows;
    if (bytes.length === 0) return;
    if (!this.stream.write(bytes)) await once(this.stream, 'drain');
    if (this.failure) throw this.failure;
  }

  /** Writes what is pending and closes the file, still under its temporary name. */
  async finish(): Promise<void> {
    this.stream.end();
    await once(this.stream, 'close');
    if (this.failure) throw this.failure;
  }

  /** Gives the finished file its final name (replacing an older file of that name). */
  async publish(): Promise<void> {
    await rename(this.partialPath, this.path);
  }

  /** Abandons the file (after a failure elsewhere). */
  async discard(): Promise<void> {
    this.stream.destroy();
    await rm(this.partialPath, { force: true });
  }
}
