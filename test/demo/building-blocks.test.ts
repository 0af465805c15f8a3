/**
 * The generator's building blocks: the PRNG is reproducible and spread out, hand-built
 * JSON strings equal JSON.stringify's, word-list strings need no escaping (lines put
 * them between quotes as they are), company names are unique by construction.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/demo/random.js';
import { JsonLines, jsonString } from '../../src/demo/json-lines.js';
import { CompanyNames } from '../../src/demo/company-names.js';
import * as vocabulary from '../../src/demo/vocabulary.js';
import { buildCast } from '../../src/demo/cast.js';

describe('demo building blocks', () => {
  test('Rng: same key, same numbers; other keys, other numbers; uniform enough', () => {
    const a = new Rng(42, 1, 7);
    const b = new Rng(42, 1, 7);
    const seqA = Array.from({ length: 100 }, () => a.next());
    assert.deepEqual(seqA, Array.from({ length: 100 }, () => b.next()));
    for (const other of [new Rng(43, 1, 7), new Rng(42, 2, 7), new Rng(42, 1, 8), new Rng(42 + 2 ** 32, 1, 7)]) {
      assert.notDeepEqual(Array.from({ length: 100 }, () => other.next()), seqA);
    }
    const r = new Rng(1);
    const buckets = new Array(10).fill(0);
    for (let i = 0; i < 100_000; i++) buckets[r.int(10)]++;
    for (const n of buckets) assert.ok(Math.abs(n - 10_000) < 500, `bucket ${n}`);
    for (let i = 0; i < 1000; i++) {
      const x = r.between(3, 5);
      assert.ok(x >= 3 && x <= 5 && Number.isInteger(x));
      for (const n of [1, 3, 9, 10, 12, 15, 20]) assert.match(r.digits(n), new RegExp(`^\\d{${n}}$`));
    }
    assert.match(r.uuid(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  test('jsonString and JsonLines write what JSON.stringify writes', () => {
    const samples = ['plain', '', 'quote " and \\ backslash', 'tab\tnew\nline\r\u0000\u001f', 'Zoë Müller', '日本語', '😀 emoji', 'lone \ud800 surrogate', '\u2028\u2029', "O'Brien 100%_x"];
    for (const s of samples) assert.equal(jsonString(s), JSON.stringify(s), s);
    const lines = new JsonLines();
    for (const s of samples) lines.line(`{"v":${jsonString(s)}}`);
    lines.value({ a: 1, b: [true, null], c: 'é' });
    const { bytes, rows } = lines.take();
    assert.equal(rows, samples.length + 1);
    const expected = [...samples.map((s) => JSON.stringify({ v: s })), JSON.stringify({ a: 1, b: [true, null], c: 'é' })].join('\n') + '\n';
    assert.equal(Buffer.from(bytes).toString('utf8'), expected);
    assert.equal(lines.take().rows, 0);
    // Growth past the initial buffer keeps earlier lines.
    const big = new JsonLines();
    const long = 'x'.repeat(1 << 20);
    for (let i = 0; i < 3; i++) big.line(`"${long}"`);
    assert.equal(Buffer.from(big.take().bytes).toString('utf8'), `"${long}"\n`.repeat(3));
  });

  test('JsonLines: each take has a buffer of its own until it is given back', () => {
    const lines = new JsonLines();
    lines.line('"a"');
    const first = lines.take();
    lines.line('"b"');
    const second = lines.take();
    assert.notEqual(first.bytes.buffer, second.bytes.buffer);
    assert.equal(Buffer.from(first.bytes).toString(), '"a"\n');
    lines.recycle(first.bytes.buffer as ArrayBuffer);
    lines.line('"c"');
    const third = lines.take(); // written before the buffer came back; the writer continues in it
    lines.line('"d"');
    const fourth = lines.take();
    assert.ok(fourth.bytes.buffer === first.bytes.buffer, 'the given-back buffer is reused');
    assert.ok(third.bytes.buffer !== first.bytes.buffer && third.bytes.buffer !== second.bytes.buffer);
    assert.equal(Buffer.from(fourth.bytes).toString(), '"d"\n');
    assert.equal(Buffer.from(third.bytes).toString(), '"c"\n');
    assert.equal(Buffer.from(second.bytes).toString(), '"b"\n');
  });

  test('word-list strings need no JSON escaping', () => {
    const strings: string[] = [];
    const collect = (v: unknown): void => {
      if (typeof v === 'string') strings.push(v);
      else if (Array.isArray(v)) v.forEach(collect);
      else if (v && typeof v === 'object') Object.values(v).forEach(collect);
    };
    collect(Object.values(vocabulary).filter((v) => v !== vocabulary.SPECIAL_ACCOUNT_NAMES));
    const cast = buildCast(42);
    for (const org of cast.orgs) collect([org.code, org.name, org.publicId, org.domain, org.customFields, org.reps, org.csms, org.actors]);
    for (const t of cast.tenants) collect([t.products, t.crmHost]);
    assert.ok(strings.length > 500);
    for (const s of strings) assert.equal(`"${s}"`, JSON.stringify(s), `needs escaping: ${s}`);
  });

  test('company names: unique for distinct numbers, no two words differing only in case', () => {
    const names = new CompanyNames(42);
    const seen = new Set<string>();
    for (let g = 0; g < 200_000; g++) {
      const { name } = names.get(g);
      assert.ok(!seen.has(name), `name ${g} repeats: ${name}`);
      seen.add(name);
    }
    const words = [...vocabulary.NAME_PREFIXES, ...vocabulary.NAME_CORES.map(([w]) => w), ...vocabulary.LEGAL_FORMS.filter(Boolean), ...vocabulary.NAME_QUALIFIERS];
    assert.equal(new Set(words).size, words.length, 'the word lists are disjoint');
    assert.equal(new Set(words.map((w) => w.toLowerCase())).size, words.length, 'no two words differ only in case');
    for (const w of words) assert.ok(!/\s/.test(w), `one word: ${w}`);
    assert.notEqual(new CompanyNames(1).get(0).name, new CompanyNames(2).get(0).name);
  });
});
