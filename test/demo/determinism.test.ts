/**
 * The demo bundle is a pure function of (seed, scale): the same arguments write the same
 * bytes (whether worker threads generate it or not), another seed writes other data.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE_FILES, demoBundle } from './bundle-reader.js';
import { DEMO_ADMIN_EMAIL, DEMO_ORG_PUBLIC_ID } from '../../src/demo/generate.js';

type Written = Awaited<ReturnType<typeof demoBundle>>;
const bytes = (w: Written, file: string) => readFileSync(join(w.dir, `${file}.ndjson`));

describe('demo bundle determinism', () => {
  const runs: Written[] = [];
  let a: Written;
  let b: Written;
  let other: Written;
  before(async () => {
    a = await demoBundle(1, 42);
    b = await demoBundle(1, 42);
    other = await demoBundle(1, 43);
    runs.push(a, b, other);
  });
  after(() => runs.forEach((r) => r.dispose()));

  test('the same seed writes byte-identical files', () => {
    for (const file of BUNDLE_FILES) assert.ok(bytes(a, file).equals(bytes(b, file)), `${file}.ndjson differs between two runs`);
    assert.deepEqual(a.summary.files, b.summary.files);
  });

  test('another seed writes other data, but the demo organization and its admin stay', () => {
    for (const file of ['orgs', 'accounts', 'opportunities', 'account_matches', 'events']) {
      assert.ok(!bytes(a, file).equals(bytes(other, file)), `${file}.ndjson is the same for seeds 42 and 43`);
    }
    for (const w of [a, other]) {
      const text = bytes(w, 'orgs').toString();
      assert.ok(text.includes(`"publicId":"${DEMO_ORG_PUBLIC_ID}"`));
      assert.ok(bytes(w, 'users').toString().includes(`"email":"${DEMO_ADMIN_EMAIL}"`));
    }
  });

  test('worker threads write the same bytes as the inline generator', async () => {
    const inline = await demoBundle(2, 9, 0);
    const threaded = await demoBundle(2, 9, 2);
    try {
      for (const file of BUNDLE_FILES) assert.ok(bytes(inline, file).equals(bytes(threaded, file)), `${file}.ndjson differs with workers`);
    } finally {
      inline.dispose();
      threaded.dispose();
    }
  });
});
