/**
 * Assembles a WebAssembly text file (.wat) with wabt's wat2wasm and prints the module as
 * base64, the form the source embeds (src/reports/int-range.ts): the service runs without
 * wabt, and test/reports/int-range.test.ts checks the embedded bytes against the .wat.
 * Usage: npm run wasm -- src/reports/int-range.wat
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import initWabt from 'wabt';

/** The module `path` assembles to, as base64. */
export async function assemble(path: string): Promise<string> {
  const wabt = await initWabt();
  const parsed = wabt.parseWat(path, readFileSync(path, 'utf8'), { simd: true });
  try {
    return Buffer.from(parsed.toBinary({}).buffer).toString('base64');
  } finally {
    parsed.destroy();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = process.argv[2];
  if (!path) throw new Error('usage: npm run wasm -- <file.wat>');
  console.log(await assemble(path));
}
