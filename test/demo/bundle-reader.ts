/**
 * Test helpers for the demo generator: write a bundle into a temporary folder and read
 * its NDJSON files back, failing on any line that is not one JSON object.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { writeDemoBundle, type DemoSummary } from '../../src/demo/generate.js';

export type Row = Record<string, any>;

export const BUNDLE_FILES = ['orgs', 'users', 'partnerships', 'custom_fields', 'event_types', 'accounts', 'opportunities', 'account_matches', 'events'] as const;
export type Bundle = Record<(typeof BUNDLE_FILES)[number], Row[]>;

export function tempDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `pr-demo-${label}-`));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export function readNdjson(path: string): Row[] {
  const text = readFileSync(path, 'utf8');
  assert.ok(text.endsWith('\n'), `${path}: ends with a newline`);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line, i) => {
      let value: unknown;
      assert.doesNotThrow(() => (value = JSON.parse(line)), `${path}:${i + 1}: not JSON`);
      assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), `${path}:${i + 1}: not an object`);
      return value as Row;
    });
}

export function readBundle(dir: string): Bundle {
  const files = readdirSync(dir).sort();
  assert.deepEqual(files, BUNDLE_FILES.map((f) => `${f}.ndjson`).sort(), 'the bundle holds exactly the nine NDJSON files');
  return Object.fromEntries(BUNDLE_FILES.map((f) => [f, readNdjson(join(dir, `${f}.ndjson`))])) as Bundle;
}

/** Writes a bundle into a fresh folder; `dispose` removes it. */
export async function demoBundle(scale: number, seed: number, workers = 0): Promise<{ dir: string; summary: DemoSummary; dispose(): void }> {
  const dir = tempDir(`s${scale}`);
  const summary = await writeDemoBundle(dir, { scale, seed, workers });
  return { dir, summary, dispose: () => removeDir(dir) };
}
