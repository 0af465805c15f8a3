/**
 * Values too long for an index: text that does not compress, past the 2,700-odd bytes a
 * btree or GIN entry holds, used to fail the import after its upsert with PostgreSQL's
 * "index row size ... exceeds maximum" and a stack trace. Descriptive text imports (the
 * report indexes that hold it whole are left out, with a warning, and rebuilt by the next
 * import whose values fit); an identifier, which is a key of the stored tables, is
 * refused on its line past 1,000 bytes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { engines, type TestDatabase } from '../helpers/engines.js';
import { adminCaller, NOW } from '../helpers/fixture-app.js';
import { formatProblem, importBundle } from '../../src/ingest/import-bundle.js';
import { createReportService } from '../../src/reports/service.js';
import { jsonOf } from '../../src/reports/cache.js';
import { BUNDLE, ORG, writeSmallBundle } from '../fixtures/small-bundle.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function bundle(overrides: Partial<Record<string, object[]>>): string {
  const dir = mkdtempSync(join(tmpdir(), 'pr-long-'));
  dirs.push(dir);
  return writeSmallBundle(dir, overrides);
}

/** `n` characters of base64 from random bytes: one byte each in UTF-8, and nothing for compression to find. */
const noise = (n: number) => randomBytes(n).toString('base64').slice(0, n);
const withAccount = (crm: string, change: object) => BUNDLE.accounts!.map((a: any) => (a.crmAccountId === crm ? { ...a, ...change } : a));
const indexes = async (db: TestDatabase) =>
  new Set(((await sql`select indexname from pg_indexes where tablename = 'rpt_global_accounts'`.execute(db.db)).rows as Array<{ indexname: string }>).map((r) => r.indexname));

for (const engine of engines) {
  describe(`values too long for an index on ${engine.name}`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await engine.open();
    });
    after(() => db.dispose());

    test('a 3,000-character city imports, is answered whole (records, search, filter values), and only its index is left out until it is gone', async () => {
      const city = noise(3000);
      const result = await importBundle(db, bundle({ accounts: withAccount('A1', { city }) }));
      assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
      assert.equal(result.warnings.length, 1, result.warnings.join('\n'));
      assert.match(result.warnings[0]!, /^index rpt_global_accounts_search was not built: .*index row.* \(a text value too long to index\); answers are the same without it/);
      const built = await indexes(db);
      assert.equal(built.has('rpt_global_accounts_search'), false);
      assert.ok(built.has('rpt_global_accounts_country'), 'the other indexes are built');
      // The city got no value dictionary (its entries are indexed whole); state, short, has one.
      const dictionaries = (await sql`select col from rpt_summaries where tbl = 'rpt_global_accounts' and has_values`.execute(db.db)).rows.map((r: any) => r.col);
      assert.equal(dictionaries.includes('city'), false);
      assert.ok(dictionaries.includes('state'), dictionaries.join(','));

      const service = createReportService({ database: db, clock: () => NOW * 1000 });
      const caller = await adminCaller(db);
      const call = (body: Record<string, unknown>, query: Record<string, string> = {}) => ({ caller, reportId: 'GLOBAL_VERTICAL_ACCOUNTS' as const, query, body });
      const a1 = (page: any) => page.content.filter((r: any) => r.crm_account_id === 'A1');
      const all = JSON.parse(jsonOf(await service.records(call({}))));
      assert.ok(a1(all).length > 0 && a1(all).every((r: any) => r.city === city));
      const term = city.slice(1000, 1040);
      const searched = JSON.parse(jsonOf(await service.records(call({ search: term }))));
      assert.deepEqual([...new Set(searched.content.map((r: any) => r.crm_account_id))], ['A1']);
      const filtered = JSON.parse(jsonOf(await service.records(call({ filters: { city: `${term}-?-` } }))));
      assert.equal(filtered.totalElements, a1(all).length);
      const values = JSON.parse(jsonOf(await service.filterData(call({}, { filterField: 'city', size: '2000' }))));
      assert.ok(values.content.some((v: any) => v.filterData === city), 'the long value is offered');

      // The next import whose values fit builds the index again.
      const again = await importBundle(db, bundle({}));
      assert.ok(again.ok);
      assert.deepEqual(again.warnings, []);
      assert.ok((await indexes(db)).has('rpt_global_accounts_search'));
    });

    test('a long country leaves its btree index out too; a long account name (trigrams only) leaves out nothing', async () => {
      const result = await importBundle(db, bundle({ accounts: withAccount('A1', { country: noise(3000), name: noise(3000) }) }));
      assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
      assert.deepEqual(result.warnings.map((w) => w.split(' was not built')[0]).sort(), ['index rpt_global_accounts_country', 'index rpt_global_accounts_search']);
      const built = await indexes(db);
      assert.equal(built.has('rpt_global_accounts_country'), false);
      assert.ok(built.has('rpt_global_accounts_revenue'));
      assert.ok((await importBundle(db, bundle({}))).ok);
    });

    test('an identifier past 1,000 bytes is a problem of its line; 1,000 bytes of noise in both keys of a match import', async () => {
      const fit = `Z${noise(999)}`;
      const partnerFit = `Q${noise(999)}`;
      const ok = await importBundle(db, bundle({
        accounts: [...BUNDLE.accounts!, { org: ORG.ACME, crmAccountId: fit, name: 'Long Id Co' }, { org: ORG.ALPHA, crmAccountId: partnerFit, name: 'Long Id Partner' }],
        account_matches: [...BUNDLE.account_matches!, { org: ORG.ACME, crmAccountId: fit, partner: ORG.ALPHA, partnerCrmAccountId: partnerFit, firstMatchDate: 1_700_000_000 }],
      }));
      assert.ok(ok.ok, ok.ok ? '' : ok.problems.map(formatProblem).join('\n'));
      assert.equal((await sql<{ n: number }>`select count(*)::int as n from rpt_global_accounts where crm_account_id = ${fit}`.execute(db.db)).rows[0]!.n, 1);

      const before = (await sql<{ n: number }>`select count(*)::int as n from accounts`.execute(db.db)).rows[0]!.n;
      // Three bytes a character: 334 of them are 1,002 bytes.
      const tooLong = '€'.repeat(334);
      const refused = await importBundle(db, bundle({
        accounts: [...BUNDLE.accounts!, { org: ORG.ACME, crmAccountId: tooLong, name: 'Too Long Co' }],
        events: [...BUNDLE.events!, { org: ORG.ACME, eventId: tooLong, eventDate: 1_700_000_000, eventTypeCode: 'ACTION_LIST', crmAccountId: 'A1', partner: ORG.ALPHA }],
      }));
      assert.equal(refused.ok, false);
      const lines = refused.ok ? [] : refused.problems.map(formatProblem);
      assert.deepEqual(lines.filter((l) => l.includes('identifier')), [
        `accounts.ndjson:${BUNDLE.accounts!.length + 1}: crmAccountId: is 1002 bytes long (UTF-8): an identifier holds at most 1000 bytes`,
        `events.ndjson:${BUNDLE.events!.length + 1}: eventId: is 1002 bytes long (UTF-8): an identifier holds at most 1000 bytes`,
      ]);
      assert.equal((await sql<{ n: number }>`select count(*)::int as n from accounts`.execute(db.db)).rows[0]!.n, before, 'nothing was changed');
      // 333 of them (999 bytes) are an identifier like any other.
      assert.ok((await importBundle(db, bundle({ accounts: [...BUNDLE.accounts!, { org: ORG.ACME, crmAccountId: '€'.repeat(333), name: 'Fits Co' }] }))).ok);
    });
  });
}
