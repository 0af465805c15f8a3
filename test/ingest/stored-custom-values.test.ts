/**
 * A custom field definition the bundle adds or retypes is checked against the custom
 * values stored records already hold under its key (check-stored-custom.ts): each
 * conflict is a problem of the definition's line, the database unchanged; records the
 * bundle replaces are checked as bundle records instead. The SQL rule agrees with the
 * record validation's on every kind of value.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { engines, type TestDatabase } from '../helpers/engines.js';
import { ndjsonBundles } from '../helpers/ndjson-bundle.js';
import { formatProblem, importBundle } from '../../src/ingest/import-bundle.js';
import { ENTITY_BY_NAME } from '../../src/ingest/bundle-spec.js';
import { customValueValidSql, validateRecord, type CustomType } from '../../src/ingest/validate-record.js';
import { ORG, T0 } from '../fixtures/small-bundle.js';

const A = ORG.ACME;
const B = ORG.ALPHA;
const bundle = ndjsonBundles('pr-stored-custom-');

const ORGS = [{ publicId: A, name: 'A' }, { publicId: B, name: 'B' }];
const definition = (key: string, type: string, entity = 'account') => ({ org: A, entity, key, title: key, type, classification: 'CUSTOM_CRM_FIELD' });

async function ok(db: TestDatabase, dir: string): Promise<void> {
  const result = await importBundle(db, dir);
  assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
}

async function problems(db: TestDatabase, dir: string): Promise<string[]> {
  const result = await importBundle(db, dir);
  assert.equal(result.ok, false, 'the import must fail');
  return result.ok ? [] : result.problems.map(formatProblem);
}

const state = async (db: TestDatabase) =>
  JSON.stringify((await sql<any>`select (select jsonb_agg(c order by c.key) from custom_fields c) as defs, (select value from service_state where key = 'data_version') as version`.execute(db.db)).rows);

for (const engine of engines) {
  describe(`stored custom values on ${engine.name}`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await engine.open();
      // L1 is matched (it is in report rows), L2 is not; both hold keys no definition names yet.
      await ok(db, bundle({
        orgs: ORGS,
        partnerships: [{ org: A, partner: B, status: 'CONNECTED' }],
        custom_fields: [definition('score', 'number')],
        accounts: [
          { org: B, crmAccountId: 'B1', name: 'Partner one' },
          { org: A, crmAccountId: 'L1', name: 'Late', custom: { newkey: 'abc', score: 3.5 } },
          { org: A, crmAccountId: 'L2', name: 'Unmatched', custom: { newkey: 'def', other: '3' } },
          { org: A, crmAccountId: 'L3', name: 'Fine', custom: { newkey: 12, score: 1 } },
        ],
        opportunities: [{ org: A, crmOpportunityId: 'O1', crmAccountId: 'L1', name: 'Deal', createdDate: T0, custom: { stage2: 'later' } }],
        account_matches: [{ org: A, crmAccountId: 'L1', partner: B, partnerCrmAccountId: 'B1', firstMatchDate: T0 }],
      }));
    });
    after(() => db.dispose());

    test('a new definition conflicting with stored values is a problem of its line, for matched and unmatched records alike', async () => {
      const before = await state(db);
      const list = await problems(db, bundle({ orgs: [ORGS[0]!], custom_fields: [definition('newkey', 'number'), definition('stage2', 'date', 'opportunity')] }));
      assert.deepEqual(list, [
        'custom_fields.ndjson:1: type: stored account L1 has custom.newkey "abc", not a number',
        'custom_fields.ndjson:1: type: stored account L2 has custom.newkey "def", not a number',
        'custom_fields.ndjson:2: type: stored opportunity O1 has custom.stage2 "later", not epoch seconds (an integer)',
      ]);
      assert.equal(await state(db), before, 'nothing changed');
      // The same values checked as JSON: a string "3" (kept from a CSV cell, say) is no number.
      assert.deepEqual(await problems(db, bundle({ orgs: [ORGS[0]!], custom_fields: [definition('other', 'number')] })), [
        'custom_fields.ndjson:1: type: stored account L2 has custom.other "3", not a number',
      ]);
    });

    test('a retyped definition is checked; an unchanged one is not', async () => {
      const list = await problems(db, bundle({ orgs: [ORGS[0]!], custom_fields: [definition('score', 'boolean')] }));
      assert.deepEqual(list, [
        'custom_fields.ndjson:1: type: stored account L1 has custom.score 3.5, not true or false',
        'custom_fields.ndjson:1: type: stored account L3 has custom.score 1, not true or false',
      ]);
      await ok(db, bundle({ orgs: [ORGS[0]!], custom_fields: [definition('score', 'number')] }));
      await ok(db, bundle({ orgs: [ORGS[0]!], custom_fields: [definition('score', 'currency')] }));
    });

    test('records the bundle replaces are checked as bundle records, not as stored ones', async () => {
      const accounts = [
        { org: A, crmAccountId: 'L1', name: 'Late', custom: { newkey: 1 } },
        { org: A, crmAccountId: 'L2', name: 'Unmatched', custom: { newkey: 'still bad' } },
      ];
      assert.deepEqual(await problems(db, bundle({ orgs: [ORGS[0]!], custom_fields: [definition('newkey', 'number')], accounts })), [
        'accounts.ndjson:2: custom.newkey: must be a number, got the string "still bad" (custom field of type number)',
      ]);
      accounts[1]!.custom.newkey = 2;
      await ok(db, bundle({ orgs: [ORGS[0]!], custom_fields: [definition('newkey', 'number')], accounts }));
      const stored = await sql<any>`select crm_account_id as id, custom->'newkey' as v from accounts where crm_account_id like 'L%' order by 1`.execute(db.db);
      assert.deepEqual(stored.rows, [{ id: 'L1', v: 1 }, { id: 'L2', v: 2 }, { id: 'L3', v: 12 }]);
    });

    test('past five records a definition lists the first five and counts the rest', async () => {
      const accounts = Array.from({ length: 8 }, (_, i) => ({ org: A, crmAccountId: `M${i}`, name: `Many ${i}`, custom: { flag: `v${i}` } }));
      await ok(db, bundle({ orgs: [ORGS[0]!], accounts }));
      assert.deepEqual(await problems(db, bundle({ orgs: [ORGS[0]!], custom_fields: [definition('flag', 'boolean')] })), [
        ...[0, 1, 2, 3, 4].map((i) => `custom_fields.ndjson:1: type: stored account M${i} has custom.flag "v${i}", not true or false`),
        'custom_fields.ndjson:1: type: and 3 more stored accounts whose custom.flag is not true or false',
      ]);
    });

    test("the SQL rule for stored values gives the record validation's answer on every kind of value", async () => {
      const spec = ENTITY_BY_NAME.get('accounts')!;
      const values: unknown[] = ['abc', '', '3', 'true', 3, -2.5, 0, 1e300, 2 ** 53 - 1, 2 ** 53 + 2, 1700000000, true, false, null, [], [1], {}, { a: 1 }];
      for (const type of ['string', 'number', 'currency', 'date', 'boolean'] as CustomType[]) {
        for (const value of values) {
          const types = new Map([['k', type]]);
          const js = validateRecord(spec, { org: A, crmAccountId: 'X', name: 'X', custom: { k: value } }, false, () => types).problems.length === 0;
          const rows = await sql.raw<{ valid: boolean }>(`select (${customValueValidSql(type, `'${JSON.stringify(value)}'::jsonb`)}) as valid`).execute(db.db);
          assert.equal(rows.rows[0]!.valid, js, `${type} ${JSON.stringify(value)}`);
        }
      }
    });
  });
}

for (const engine of engines) {
  describe(`a custom key named __proto__ on ${engine.name}`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await engine.open();
    });
    after(() => db.dispose());

    // `{ __proto__: ... }` in a literal sets a prototype; JSON.parse makes the key, as a bundle line does.
    const custom = (json: string) => JSON.parse(json) as Record<string, unknown>;
    const stored = async (id: string) =>
      (await sql<{ proto: unknown; score: unknown; keys: string[] }>`select custom->'__proto__' as proto, custom->'score' as score,
        (select array_agg(k order by k) from jsonb_object_keys(custom) k) as keys from accounts where crm_account_id = ${id}`.execute(db.db)).rows[0];

    test('is kept as given, and typed when it is defined, from NDJSON and from CSV', async () => {
      const dir = bundle({
        orgs: ORGS,
        custom_fields: [definition('score', 'number'), { ...definition('__proto__', 'number'), org: B }],
        accounts: [
          // A's organization defines other keys: its undefined __proto__ is kept as given.
          { org: A, crmAccountId: 'P1', name: 'kept', custom: custom('{"score": 2, "__proto__": {"k": 1}}') },
          // B's organization defines __proto__ as a number: a valid value is stored.
          { org: B, crmAccountId: 'P2', name: 'typed', custom: custom('{"__proto__": 7}') },
        ],
      });
      await ok(db, dir);
      assert.deepEqual(await stored('P1'), { proto: { k: 1 }, score: 2, keys: ['__proto__', 'score'] });
      assert.deepEqual(await stored('P2'), { proto: 7, score: null, keys: ['__proto__'] });
      // A value of the wrong type for it is a problem of its line, as for any defined key.
      const bad = bundle({ orgs: ORGS, accounts: [{ org: B, crmAccountId: 'P3', name: 'bad', custom: custom('{"__proto__": "seven"}') }] });
      assert.deepEqual(await problems(db, bad), ['accounts.ndjson:1: custom.__proto__: must be a number, got the string "seven" (custom field of type number)']);
      // From a CSV header: the flattened custom.__proto__ cell, typed by B's definition.
      writeFileSync(join(bad, 'accounts.csv'), `org,crmAccountId,name,custom.__proto__\n${B},P4,csv,8\n`);
      rmSync(join(bad, 'accounts.ndjson'));
      await ok(db, bad);
      assert.deepEqual(await stored('P4'), { proto: 8, score: null, keys: ['__proto__'] });
      assert.equal(({} as Record<string, unknown>).k, undefined, 'nothing reached Object.prototype');
    });
  });
}
