/**
 * CSV cells formatted by the database (query.ts `csvCellExpr`, the PGlite download's lines)
 * are byte for byte the reference rules of render/csv.ts (`csvField(csvCell(value))`):
 * numbers as JavaScript writes them (including the exponent forms), text guarded against
 * formulas and quoted per RFC 4180, booleans, NULLs; and the cells of the COPY path
 * (query-csv.ts `copyCellExpr`) are the same texts before quoting. On both engines.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { csvCellExpr } from '../../src/reports/query.js';
import { copyCellExpr } from '../../src/reports/query-csv.js';
import { csvCell, csvField } from '../../src/reports/render/csv.js';
import type { Column } from '../../src/reports/catalog/types.js';
import { engines } from '../helpers/engines.js';
import type { TestDatabase } from '../helpers/engines.js';

const col = (type: Column['type']): Column => ({ key: 'x', title: 'X', type, sql: 'r.x', source: 'standard' });

const NUMBERS = [
  0, 1, -1, 0.1, -0.1, 1 / 3, 2 / 3, 123.456, 1e-4, 9.99e-5, 1.5e-5, -2.5e-6, 1e-6, 1e-7, 1.5e-7, 1.2345e-10, 5e-324,
  999999999999999.9, 1e15, -1e15, 1.2345e16, 123456789012345680, 2 ** 53, 1e20, 1e21, 1.5e21, -3.25e22, 1.7976931348623157e308,
  1751595551, 11854, 0.30000000000000004, 100.5, 1e100, 4.35e-300, NaN, Infinity, -Infinity,
];
for (let i = 0; i < 200; i++) NUMBERS.push((Math.sin(i * 7.3) * 10) ** ((i % 40) - 15));

const TEXTS = ['', 'a', 'plain text', '=1+1', '-5', '+x', '@sum', '\tx', '\rx', 'a,b', 'a"b', '"', 'line\nbreak', 'cr\rx', 'ünïcødé', "o'brien", ' lead', '=a,b"c'];

for (const engine of engines) {
  describe(`CSV cells formatted in SQL on ${engine.name}`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await engine.open();
    });
    after(() => database.dispose());

    const cell = async (column: Column, value: unknown, type: string): Promise<string> => {
      const q = sql<{ line: string }>`select ${csvCellExpr(column)} as line from (select ${value}::${sql.raw(type)} as x) r`;
      return (await q.execute(database.db)).rows[0]!.line;
    };

    test('numbers (double precision and bigint) as JavaScript writes them', async () => {
      for (const n of NUMBERS) assert.equal(await cell(col('currency'), n, 'double precision'), csvField(csvCell(n)), `double ${n}`);
      for (const n of [0, 1, -7, 1751595551, 2 ** 53 - 1, -(2 ** 53) + 1, 10 ** 15, 10 ** 16]) assert.equal(await cell(col('date'), n, 'bigint'), csvField(csvCell(n)), `bigint ${n}`);
      assert.equal(await cell(col('number'), null, 'double precision'), '');
    });

    // The COPY cells (query-csv.ts) are the cell texts before quoting, NULL for an empty cell
    // (PostgreSQL's CSV writer quotes them and writes NULL as an empty field).
    const copyCell = async (column: Column, value: unknown, type: string): Promise<string | null> => {
      const q = sql<{ c: string | null }>`select ${copyCellExpr(column)} as c from (select ${value}::${sql.raw(type)} as x) r`;
      return (await q.execute(database.db)).rows[0]!.c;
    };

    test('COPY cells: numbers as JavaScript writes them, guarded text, booleans, NULL for empty', async () => {
      for (const n of [...NUMBERS, -0, 1000000000000000.5, 9.999999999999999e20, 9.99999e-7]) assert.equal(await copyCell(col('currency'), n, 'double precision'), csvCell(n), `double ${n}`);
      for (const n of [0, 1, -7, 1751595551, 2 ** 53 - 1, -(2 ** 53) + 1, 10 ** 15, 10 ** 16]) assert.equal(await copyCell(col('date'), n, 'bigint'), csvCell(n), `bigint ${n}`);
      for (const t of TEXTS) assert.equal(await copyCell(col('string'), t, 'text'), t === '' ? null : csvCell(t), JSON.stringify(t));
      assert.equal(await copyCell(col('string'), null, 'text'), null);
      assert.equal(await copyCell(col('number'), null, 'double precision'), null);
      assert.equal(await copyCell(col('boolean'), true, 'boolean'), 'true');
      assert.equal(await copyCell(col('boolean'), false, 'boolean'), 'false');
      assert.equal(await copyCell(col('boolean'), null, 'boolean'), null);
    });

    test('text guarded against formulas and quoted per RFC 4180; booleans; NULL empty', async () => {
      for (const t of TEXTS) assert.equal(await cell(col('string'), t, 'text'), csvField(csvCell(t)), JSON.stringify(t));
      assert.equal(await cell(col('string'), null, 'text'), '');
      assert.equal(await cell(col('boolean'), true, 'boolean'), 'true');
      assert.equal(await cell(col('boolean'), false, 'boolean'), 'false');
      assert.equal(await cell(col('boolean'), null, 'boolean'), '');
    });
  });
}
