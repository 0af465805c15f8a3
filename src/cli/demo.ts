/**
 * `partner-reports demo --out <dir> [--scale N] [--seed S]`: writes the deterministic demo
 * bundle (src/demo/generate.ts) and prints the rows per file and the write rate.
 */
import { resolve } from 'node:path';
import { CliFailure } from './failure.js';
import { DEMO_ADMIN_EMAIL, DEMO_ORG_PUBLIC_ID, writeDemoBundle } from '../demo/generate.js';

export async function demoCommand(options: { out: string; scale: number; seed: number }): Promise<void> {
  const out = resolve(options.out);
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const progress = process.stderr.isTTY
    ? (done: number, total: number) => process.stderr.write(`\rwriting demo data: ${Math.floor((done / total) * 100)}%`)
    : undefined;
  let summary;
  try {
    summary = await writeDemoBundle(out, { scale: options.scale, seed: options.seed, onProgress: progress });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code || err instanceof RangeError) throw new CliFailure(`cannot write the demo bundle to ${out}: ${e.message}`);
    throw err;
  } finally {
    if (progress) process.stderr.write('\r\x1b[K');
  }

  say(`Demo bundle (scale ${options.scale}, seed ${options.seed}) written to ${out}`);
  const width = Math.max(...Object.keys(summary.files).map((k) => k.length));
  for (const [file, rows] of Object.entries(summary.files)) say(`  ${file.padEnd(width)}  ${rows.toLocaleString('en-US').padStart(12)}`);
  const rate = summary.seconds > 0 ? Math.round(summary.rows / summary.seconds) : summary.rows;
  say(`  ${'total'.padEnd(width)}  ${summary.rows.toLocaleString('en-US').padStart(12)} rows in ${summary.seconds.toFixed(2)} s (${rate.toLocaleString('en-US')} rows/s)`);
  say(`Demo organization ${DEMO_ORG_PUBLIC_ID}, admin ${DEMO_ADMIN_EMAIL}.`);
  say(`Next: partner-reports import ${out}`);
}
