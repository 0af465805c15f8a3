/**
 * One NDJSON file of the bundle being written: takes encoded lines (json-lines.ts) in
 * large blocks and writes each block straight to the file, resolving once the block is
 * written; the generator waits for that before it asks for more batches, so memory stays
 * bounded whatever the scale, and the block's buffer can then be reused. Written under a
 * temporary name; `publish` renames it.
 *
 * A file handle rather than a write stream: the stream keeps each block until its write
 * completes and gives no word of when that is, and the generator wants the buffer back.
 */
import { open, rename, rm, type FileHandle } from 'node:fs/promises';

export class NdjsonFile {
  rows = 0;
  private handle: Promise<FileHandle> | undefined;

  constructor(
    private readonly partialPath: string,
    readonly path: string,
  ) {}

  /** Appends a block of `rows` complete lines; resolves when it is written (`bytes` may then be reused). */
  async append(bytes: Uint8Array, rows: number): Promise<void> {
    this.rows += rows;
    const handle = await this.opened();
    for (let done = 0; done < bytes.length; ) {
      const { bytesWritten } = await handle.write(bytes, done, bytes.length - done);
      done += bytesWritten;
    }
  }

  /** Closes the file, still under its temporary name. */
  async finish(): Promise<void> {
    await (await this.opened()).close();
  }

  /** Gives the finished file its final name (replacing an older file of that name). */
  async publish(): Promise<void> {
    await rename(this.partialPath, this.path);
  }

  /** Abandons the file (after a failure elsewhere). */
  async discard(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    if (handle) await handle.then((h) => h.close()).catch(() => undefined);
    await rm(this.partialPath, { force: true });
  }

  /** The file is created on first use, so a failure before then leaves nothing behind. */
  private opened(): Promise<FileHandle> {
    this.handle ??= open(this.partialPath, 'w');
    return this.handle;
  }
}
