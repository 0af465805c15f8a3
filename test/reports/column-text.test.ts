/**
 * A text column held as runs (src/reports/column-text.ts) selects exactly the rows SQL's
 * ILIKE does, for "contains" (every term) and "does not contain" (no term; NULL passes),
 * on both engines: runs crossing load chunks, NULL runs, empty strings, LIKE's special
 * characters as literals, and case folding beyond ASCII, with the terms lower-cased by
 * the database as the column store does.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engines, type TestDatabase } from '../helpers/engines.js';
import { loadTextRuns, textBits, textRows } from '../../src/reports/column-text.js';
import { likeContains } from '../../src/reports/filter-language.js';

// Runs of equal values (and one value that comes back after another run).
const VALUES: Array<string | null> = [
  'Acme Holdings', 'Acme Holdings', 'Acme Holdings',
  null, null,
  'Beta_Corp 100%',
  'Back\\slash Inc',
  '',
  'ÄPFEL Straße GmbH', 'ÄPFEL Straße GmbH',
  'İstanbul Lojistik',
  'Ωmega Logistics',
  'acme west',
  'Acme Holdings',
  'tech-tech Technologies', 'tech-tech Technologies', 'tech-tech Technologies', 'tech-tech Technologies',
  null,
  'zeta',
];

const TERMS: string[][] = [
  ['acme'], ['ACME', 'west'], ['hold', 'acme'], ['_corp'], ['100%'], ['%'], ['_'], ['\\'], ['\\s'], ['äpfel'], ['STRASSE'], ['straße'], ['STRAßE'],
  ['istanbul'], ['i̇stanbul'], ['İST'], ['ω'], ['ΩMEGA'], ['logistics'], ['tech'], ['tech-tech t'], ['a'], ['nothing here'], ['zeta', 'acme'],
];

for (const engine of engines) {
  describe(`text runs on ${engine.name}`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await engine.open();
      await sql`create table text_probe (org_id int not null, rid int not null, name text, primary key (org_id, rid))`.execute(database.db);
      for (const [i, v] of VALUES.entries()) await sql`insert into text_probe values (1, ${i + 1}, ${v}), (2, ${i + 1}, 'other tenant acme')`.execute(database.db);
    });
    after(async () => database.dispose());

    const sqlRows = async (condition: ReturnType<typeof sql>): Promise<number[]> =>
      (await sql<{ rid: number }>`select rid from text_probe r where org_id = 1 and ${condition} order by rid`.execute(database.db)).rows.map((r) => Number(r.rid) - 1);
    const lowered = async (terms: string[]): Promise<Buffer[]> =>
      Promise.all(terms.map(async (t) => Buffer.from((await sql<{ l: string }>`select lower(${t}) as l`.execute(database.db)).rows[0]!.l, 'utf8')));
    const rowsOf = (bits: Uint32Array, n: number): number[] => [...Array(n).keys()].filter((i) => ((bits[i >>> 5]! >>> (i & 31)) & 1) === 1);

    for (const chunk of [3, 7, 1000]) {
      test(`contains and does-not-contain equal ILIKE (chunks of ${chunk} rows)`, async () => {
        const runs = await loadTextRuns(database.db, 1, 'text_probe', 'name', VALUES.length, chunk);
        assert.ok(runs, 'loaded');
        assert.equal(textRows(runs), VALUES.length);
        // Equal neighbours share one run; the value that comes back starts a new one.
        assert.equal(runs.nulls.length, 13);
        let nonEmpty = 0;
        for (const terms of TERMS) {
          const bits = new Uint32Array(Math.ceil(VALUES.length / 32));
          const contains = await sqlRows(sql.join(terms.map((t) => sql`r.name ilike ${likeContains(t)}`), sql` and `));
          const passing = textBits(runs, 'contains', await lowered(terms), bits);
          assert.deepEqual(rowsOf(bits, VALUES.length), contains, `contains ${JSON.stringify(terms)}`);
          assert.equal(passing, contains.length);
          const excluded = await sqlRows(sql`(r.name is null or not (r.name ilike any(${terms.map(likeContains)}::text[])))`);
          const passingNot = textBits(runs, 'doesNotContain', await lowered(terms), bits);
          assert.deepEqual(rowsOf(bits, VALUES.length), excluded, `does not contain ${JSON.stringify(terms)}`);
          assert.equal(passingNot, excluded.length);
          if (contains.length > 0 && contains.length < VALUES.length - 3) nonEmpty++;
        }
        assert.ok(nonEmpty >= 10, 'most terms select some rows and not others');
      });
    }

    test('rids that are not exactly 1..N are refused', async () => {
      assert.equal(await loadTextRuns(database.db, 1, 'text_probe', 'name', VALUES.length + 1, 7), null);
      await sql`delete from text_probe where org_id = 1 and rid = 9`.execute(database.db);
      assert.equal(await loadTextRuns(database.db, 1, 'text_probe', 'name', VALUES.length, 7), null, 'a gap in the middle of a run');
      assert.equal(await loadTextRuns(database.db, 1, 'text_probe', 'name', VALUES.length, 1000), null);
    });
  });
}
