/**
 * `importBundle`: valid bundles (NDJSON and CSV), every validation problem with its exact
 * text, all-or-nothing, idempotent re-import, updates, references to rows already in
 * the database.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { engines, type TestDatabase } from '../helpers/engines.js';
import { formatProblem, importBundle } from '../../src/ingest/import-bundle.js';
import { REPORT_TABLES, reportsAreCurrent } from '../../src/ingest/materialize.js';
import { BUNDLE, ORG, T0, writeSmallBundle } from '../fixtures/small-bundle.js';

const TABLES = ['orgs', 'users', 'partnerships', 'custom_fields', 'accounts', 'opportunities', 'account_matches', 'event_types', 'events', 'rpt_global_accounts', 'rpt_attribution_links', 'service_state'];

async function snapshot(db: TestDatabase): Promise<string> {
  const parts: string[] = [];
  for (const t of TABLES) {
    const rows = await sql.raw(`select to_jsonb(x) as j from ${t} x order by 1::text`).execute(db.db);
    parts.push(`${t}:${rows.rows.map((r: any) => JSON.stringify(r.j)).sort().join('\n')}`);
  }
  return parts.join('\n---\n');
}

const dirs: string[] = [];
function bundle(overrides: Partial<Record<string, object[]>> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'pr-import-'));
  dirs.push(dir);
  return writeSmallBundle(dir, overrides);
}
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function problems(db: TestDatabase, dir: string): Promise<string[]> {
  const result = await importBundle(db, dir);
  assert.equal(result.ok, false, 'the import must fail');
  return result.ok ? [] : result.problems.map(formatProblem);
}

for (const engine of engines) {
  describe(`import on ${engine.name}`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await engine.open();
    });
    after(() => db.dispose());

    test('a valid bundle imports with counts per entity and the mapped columns', async () => {
      const result = await importBundle(db, bundle());
      assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
      assert.deepEqual(result.counts.map((c) => [c.entity, c.inserted, c.updated, c.unchanged]), [
        ['orgs', 7, 0, 0], ['users', 3, 0, 0], ['partnerships', 7, 0, 0], ['custom_fields', 8, 0, 0],
        ['accounts', 12, 0, 0], ['opportunities', 5, 0, 0], ['account_matches', 7, 0, 0], ['event_types', 3, 0, 0], ['events', 8, 0, 0],
      ]);
      assert.equal(result.dataVersion, 1);
      // The vacuum and analyze after the commit went through (a failure is a warning, not a failed import).
      assert.deepEqual(result.warnings, []);
      const a1 = await sql<any>`select a.*, o.public_id::text as org from accounts a join orgs o on o.id = a.org_id where a.crm_account_id = 'A1'`.execute(db.db);
      const row = a1.rows[0];
      assert.equal(row.org, ORG.ACME);
      assert.deepEqual([row.owner_email, row.owner_division, row.custom_owner_name, row.is_customer, row.annual_revenue, row.recent_open_opp_date], ['olive@acme.test', 'West', 'Carl Custom', true, 1_000_000, T0]);
      assert.deepEqual(row.custom, { tier: 'Gold', score: 10, arr: 100.5, renewal: T0 + 30 * 86400, ispartnerpaid: true });
      // Top parents are derived at import (A2's parent is A1, a root) into the report rows.
      const e2 = await sql<any>`select top_parent_crm_account_id as id, top_parent_crm_account_name as name from rpt_attribution_events where crm_account_id = 'A2'`.execute(db.db);
      assert.deepEqual(e2.rows.map((r) => [r.id, r.name]), [['A1', 'Acme Holdings']], 'top parents are computed at import');
      const p = await sql<any>`select p.shared_fields, p.owner_phone, po.public_id::text as partner from partnerships p join orgs po on po.id = p.partner_org_id join orgs o on o.id = p.org_id where o.public_id = ${ORG.ACME} and po.public_id = ${ORG.BETA}`.execute(db.db);
      assert.deepEqual(p.rows[0].shared_fields, ['name', 'country']);
      const users = await sql<any>`select role from users where email = 'member@acme.test'`.execute(db.db);
      assert.equal(users.rows[0].role, 'MEMBER');
    });

    test('the rebuilt report tables are vacuumed after the commit: every page is all-visible', async () => {
      // Runs after the import above. relallvisible is what VACUUM records of the
      // visibility map: all pages only when a vacuum has seen every row as visible to all.
      const tables = (await sql<{ name: string; pages: number; visible: number }>`select relname as name, relpages as pages, relallvisible as visible
        from pg_class where relname = any(${[...REPORT_TABLES]}::text[]) and relkind = 'r'`.execute(db.db)).rows;
      assert.deepEqual(tables.map((t) => t.name).sort(), [...REPORT_TABLES].sort());
      const written = tables.filter((t) => t.pages > 0);
      assert.ok(written.length >= 8, JSON.stringify(tables));
      for (const t of written) assert.equal(t.visible, t.pages, `${t.name}: ${t.visible} of ${t.pages} pages all-visible`);
    });

    test('re-importing the same bundle changes nothing', async () => {
      const before = await snapshot(db);
      const result = await importBundle(db, bundle());
      assert.ok(result.ok);
      assert.deepEqual(result.counts.map((c) => [c.inserted, c.updated]), result.counts.map(() => [0, 0]));
      assert.equal(result.counts.find((c) => c.entity === 'accounts')!.unchanged, 12);
      // Not even the data version moves: the report tables are kept, and every cached answer with them.
      assert.deepEqual([result.rebuilt, result.dataVersion], [false, 1]);
      assert.equal(await snapshot(db), before);
    });

    test('an unchanged bundle still rebuilds report tables built by earlier rules', async () => {
      // As after an upgrade whose materialize writes something new (REPORTS_FORMAT raised).
      await sql`update rpt_global_accounts set account_name = 'stale' where crm_account_id = 'A3'`.execute(db.db);
      await sql`update service_state set value = '0' where key = 'reports_format'`.execute(db.db);
      const result = await importBundle(db, bundle());
      assert.ok(result.ok);
      assert.deepEqual([result.rebuilt, result.dataVersion], [true, 2]);
      const rpt = await sql<any>`select account_name from rpt_global_accounts where crm_account_id = 'A3'`.execute(db.db);
      assert.notEqual(rpt.rows[0].account_name, 'stale');
      assert.ok(await reportsAreCurrent(db.db));
    });

    test('a changed record updates its row; new records insert', async () => {
      const accounts = [...BUNDLE.accounts!, { org: ORG.ACME, crmAccountId: 'A9', name: 'Nine' }].map((a: any) => (a.crmAccountId === 'A3' ? { ...a, name: 'Beta Renamed' } : a));
      const result = await importBundle(db, bundle({ accounts }));
      assert.ok(result.ok);
      const c = result.counts.find((x) => x.entity === 'accounts')!;
      assert.deepEqual([c.inserted, c.updated, c.unchanged], [1, 1, 11]);
      const rpt = await sql<any>`select account_name from rpt_global_accounts where crm_account_id = 'A3'`.execute(db.db);
      assert.equal(rpt.rows[0].account_name, 'Beta Renamed', 'report tables are rebuilt');
    });

    test('references may point to rows already in the database', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'pr-import-'));
      dirs.push(dir);
      writeFileSync(join(dir, 'orgs.ndjson'), JSON.stringify(BUNDLE.orgs![0]) + '\n');
      writeFileSync(join(dir, 'opportunities.ndjson'), JSON.stringify({ org: ORG.ACME, crmOpportunityId: 'O9', crmAccountId: 'A1', name: 'Later', createdDate: T0 + 5 * 86400 }) + '\n');
      const result = await importBundle(db, dir);
      assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
      const links = await sql<any>`select count(*) as n from rpt_attribution_links where opp_crm_opportunity_id = 'O9'`.execute(db.db);
      assert.equal(Number(links.rows[0].n), 1, 'E1 (A1, T0-10d) is linked to O9 (A1, T0+5d)');
    });

    test('every kind of problem is reported as file:line: field: problem, all at once', async () => {
      const orgs = [...BUNDLE.orgs!, { publicId: 'not-a-uuid', name: 'Bad', extra: 1 }, { publicId: ORG.ACME, name: 'Acme again' }];
      const accounts = [
        ...BUNDLE.accounts!,
        { org: ORG.ACME, crmAccountId: 'C1', name: 'Cycle 1', parentCrmAccountId: 'C2' },
        { org: ORG.ACME, crmAccountId: 'C2', name: 'Cycle 2', parentCrmAccountId: 'C1' },
        { org: ORG.ACME, crmAccountId: 'B1', name: 7, numberOfEmployees: -1, owner: { name: 'x', age: 3 }, custom: { score: 'high' } },
        { org: '99999999-9999-4999-8999-999999999999', crmAccountId: 'B2', name: 'Nowhere' },
      ];
      const opportunities = [...BUNDLE.opportunities!, { org: ORG.ACME, crmOpportunityId: 'O8', crmAccountId: 'MISSING', name: 'x', createdDate: 'yesterday' }, { org: ORG.ACME, name: 'no id' }];
      const events = [...BUNDLE.events!, { org: ORG.ACME, eventId: 'E9', eventDate: T0, eventTypeCode: 'NOPE', crmAccountId: 'A1', partner: ORG.ALPHA }, { org: ORG.ACME, eventId: 'E8', eventDate: T0, eventTypeCode: 'WORKFLOW', eventSubtypeCode: 'CREATED', crmAccountId: 'A1', partner: ORG.ALPHA }];
      const partnerships = [...BUNDLE.partnerships!, { org: ORG.OTHER, partner: ORG.BETA, status: 'FRIENDS', sharedFields: ['name', 'secretSauce'] }];
      const matches = [...BUNDLE.account_matches!, { org: ORG.ACME, crmAccountId: 'A1', partner: ORG.BETA, partnerCrmAccountId: 'NOPE', firstMatchDate: T0 }];
      const list = await problems(db, bundle({ orgs, accounts, opportunities, events, partnerships, account_matches: matches }));
      const o = BUNDLE.orgs!.length;
      const p = BUNDLE.partnerships!.length;
      const a = BUNDLE.accounts!.length;
      const op = BUNDLE.opportunities!.length;
      const m = BUNDLE.account_matches!.length;
      const e = BUNDLE.events!.length;
      assert.deepEqual(list, [
        `orgs.ndjson:${o + 1}: publicId: must be a UUID, got the string "not-a-uuid"`,
        `orgs.ndjson:${o + 1}: extra: unknown field`,
        `orgs.ndjson:${o + 2}: publicId: duplicate natural key (publicId): already on line 1`,
        `partnerships.ndjson:${p + 1}: status: must be one of CONNECTED, PENDING, DISCONNECTED, got the string "FRIENDS"`,
        `partnerships.ndjson:${p + 1}: sharedFields: unknown account field "secretSauce": use account field names of the bundle (e.g. "name", "accountType", "owner.email", "owner") or "custom.<key>"`,
        `accounts.ndjson:${a + 1}: parentCrmAccountId: parent cycle: C1 -> C2 -> C1`,
        `accounts.ndjson:${a + 2}: parentCrmAccountId: parent cycle: C2 -> C1 -> C2`,
        `accounts.ndjson:${a + 3}: name: must be a string, got number 7`,
        `accounts.ndjson:${a + 3}: numberOfEmployees: must not be negative, got -1`,
        `accounts.ndjson:${a + 3}: owner.age: unknown field`,
        `accounts.ndjson:${a + 3}: custom.score: must be a number, got the string "high" (custom field of type number)`,
        `accounts.ndjson:${a + 4}: org: reference to a missing organization`,
        `opportunities.ndjson:${op + 1}: createdDate: must be epoch seconds (an integer), got the string "yesterday"`,
        `opportunities.ndjson:${op + 1}: crmAccountId: reference to a missing account of the organization`,
        `opportunities.ndjson:${op + 2}: crmOpportunityId: missing required field`,
        `opportunities.ndjson:${op + 2}: crmAccountId: missing required field`,
        `opportunities.ndjson:${op + 2}: createdDate: missing required field`,
        `account_matches.ndjson:${m + 1}: partnerCrmAccountId: reference to a missing account of the partner organization`,
        `events.ndjson:${e + 1}: eventTypeCode: reference to a missing event type`,
        `events.ndjson:${e + 2}: eventSubtypeCode: not a subtype of the event type`,
      ]);
    });

    test('a record with a field problem is still checked for duplicate keys and references, in the same run', async () => {
      const before = await snapshot(db);
      const nowhere = '99999999-9999-4999-8999-999999999999';
      const n = BUNDLE.accounts!.length;
      const accounts = [
        ...BUNDLE.accounts!,
        { org: ORG.ACME, crmAccountId: 'A-1', name: 'one' },
        { org: ORG.ACME, crmAccountId: 'A-1', name: 'dup', numberOfEmployees: 'ten' },
        { org: ORG.ACME, crmAccountId: 'A-2', name: 'orphan', parentCrmAccountId: 'NOPE', isCustomer: 'yes' },
        { org: nowhere, crmAccountId: 'A-3', name: 5 },
        // A bad key or reference is its own problem only: no "missing organization", no duplicate of line n + 5.
        { org: 'not-a-uuid', crmAccountId: 'A-3', name: 'bad org' },
        { org: ORG.ACME, crmAccountId: 'A-4', name: 'bad parent', parentCrmAccountId: 7 },
        // Referenced below while it has a problem of its own: present, so no missing account.
        { org: ORG.ACME, crmAccountId: 'A-5', name: 'flawed', openOppCount: -1 },
      ];
      const p = BUNDLE.partnerships!.length;
      const partnerships = [...BUNDLE.partnerships!, { org: ORG.ACME, partner: nowhere, status: 'FRIENDS' }];
      const opportunities = [...BUNDLE.opportunities!, { org: ORG.ACME, crmOpportunityId: 'O-5', crmAccountId: 'A-5', name: 'on a flawed account', createdDate: T0 }];
      const m = BUNDLE.account_matches!.length;
      const matches = [...BUNDLE.account_matches!, { org: ORG.ACME, crmAccountId: 'A1', partner: ORG.ALPHA, partnerCrmAccountId: 'PA1' }];
      const t = BUNDLE.event_types!.length;
      const eventTypes = [...BUNDLE.event_types!, { code: 'BROKEN', displayName: 5, group: 'Broken', subtypes: 'some' }];
      const e = BUNDLE.events!.length;
      const events = [
        ...BUNDLE.events!,
        { org: ORG.ACME, eventId: 'E-1', eventDate: 'today', eventTypeCode: 'WORKFLOW', crmAccountId: 'GHOST', partner: nowhere },
        { org: ORG.ACME, eventId: 'E-2', eventDate: T0, eventTypeCode: 'NOPE', eventSubtypeCode: 'X', crmAccountId: 'A1', partner: ORG.ALPHA, surprise: 1 },
        // Of a type that has a problem: the type is there, its subtypes unknown (its own problem says why).
        { org: ORG.ACME, eventId: 'E-3', eventDate: T0, eventTypeCode: 'BROKEN', eventSubtypeCode: 'ANY', crmAccountId: 'A1', partner: ORG.ALPHA },
      ];
      const list = await problems(db, bundle({ accounts, partnerships, opportunities, account_matches: matches, event_types: eventTypes, events }));
      // Nothing on opportunities.ndjson: the account it names is there, with a problem of its own.
      assert.deepEqual(list, [
        `partnerships.ndjson:${p + 1}: status: must be one of CONNECTED, PENDING, DISCONNECTED, got the string "FRIENDS"`,
        `partnerships.ndjson:${p + 1}: partner: reference to a missing organization`,
        `accounts.ndjson:${n + 2}: numberOfEmployees: must be an integer, got the string "ten"`,
        `accounts.ndjson:${n + 2}: org, crmAccountId: duplicate natural key (org, crmAccountId): already on line ${n + 1}`,
        `accounts.ndjson:${n + 3}: isCustomer: must be true or false, got the string "yes"`,
        `accounts.ndjson:${n + 3}: parentCrmAccountId: reference to a missing account of the same organization`,
        `accounts.ndjson:${n + 4}: name: must be a string, got number 5`,
        `accounts.ndjson:${n + 4}: org: reference to a missing organization`,
        `accounts.ndjson:${n + 5}: org: must be a UUID, got the string "not-a-uuid"`,
        `accounts.ndjson:${n + 6}: parentCrmAccountId: must be a string, got number 7`,
        `accounts.ndjson:${n + 7}: openOppCount: must not be negative, got -1`,
        `account_matches.ndjson:${m + 1}: firstMatchDate: missing required field`,
        `account_matches.ndjson:${m + 1}: org, crmAccountId, partner, partnerCrmAccountId: duplicate natural key (org, crmAccountId, partner, partnerCrmAccountId): already on line 1`,
        `event_types.ndjson:${t + 1}: displayName: must be a string, got number 5`,
        `event_types.ndjson:${t + 1}: subtypes: must be an array of { code, displayName } with string values`,
        `events.ndjson:${e + 1}: eventDate: must be epoch seconds (an integer), got the string "today"`,
        `events.ndjson:${e + 1}: partner: reference to a missing organization`,
        `events.ndjson:${e + 1}: crmAccountId: reference to a missing account of the organization`,
        `events.ndjson:${e + 2}: surprise: unknown field`,
        `events.ndjson:${e + 2}: eventTypeCode: reference to a missing event type`,
      ]);
      assert.equal(await snapshot(db), before);
    });

    test('CSV line numbers count a CRLF inside a quoted cell as one line break', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'pr-import-'));
      dirs.push(dir);
      writeFileSync(join(dir, 'orgs.ndjson'), JSON.stringify(BUNDLE.orgs![0]) + '\n');
      const rows = ['org,crmAccountId,name,street', `${ORG.ACME},A-1,One,"multi\r\nline\r\nstreet"`, `${ORG.ACME},A-2,Two,x`, `${ORG.ACME},A-3,,y`];
      writeFileSync(join(dir, 'accounts.csv'), `${rows.join('\r\n')}\r\n`);
      assert.deepEqual(await problems(db, dir), ['accounts.csv:6: name: missing required field']);
      // Rows the parser skips are placed the same way: a wrong cell count, and an unclosed quote
      // (reported where its cell starts, not at the end of the file).
      const skipped = [...rows, `${ORG.ACME},"A-\r\n4",Four`, `${ORG.ACME},A-5,Five,x`, `${ORG.ACME},A-6,Six,"open\r\nto the\r\nend`];
      writeFileSync(join(dir, 'accounts.csv'), `${skipped.join('\r\n')}\r\n`);
      assert.deepEqual(await problems(db, dir), [
        'accounts.csv:6: name: missing required field',
        'accounts.csv:7: -: has 3 cells but the header has 4',
        'accounts.csv:10: -: not valid CSV: Quote Not Closed: the parsing is finished with an opening quote',
      ]);
    });

    test('an NDJSON file may start with a byte order mark, as a CSV file may', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'pr-import-'));
      dirs.push(dir);
      writeFileSync(join(dir, 'orgs.ndjson'), `\ufeff${JSON.stringify(BUNDLE.orgs![0])}\n`);
      writeFileSync(join(dir, 'accounts.csv'), `\ufefforg,crmAccountId,name\n${ORG.ACME},BOM1,Bom\n`);
      const result = await importBundle(db, dir);
      assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
      const rows = await sql<any>`select o.name as org, a.name from accounts a join orgs o on o.id = a.org_id where a.crm_account_id = 'BOM1'`.execute(db.db);
      assert.deepEqual(rows.rows, [{ org: 'Acme Corp', name: 'Bom' }]);
    });

    test('parent cycles and missing parents are reported per account', async () => {
      const cycle = [...BUNDLE.accounts!, { org: ORG.ACME, crmAccountId: 'C1', name: 'Cycle 1', parentCrmAccountId: 'C2' }, { org: ORG.ACME, crmAccountId: 'C2', name: 'Cycle 2', parentCrmAccountId: 'C1' }];
      const n = BUNDLE.accounts!.length;
      assert.deepEqual(await problems(db, bundle({ accounts: cycle })), [
        `accounts.ndjson:${n + 1}: parentCrmAccountId: parent cycle: C1 -> C2 -> C1`,
        `accounts.ndjson:${n + 2}: parentCrmAccountId: parent cycle: C2 -> C1 -> C2`,
      ]);
      // A child of a cycle is not itself reported: it is fine once the cycle is broken.
      const withChild = [...cycle, { org: ORG.ACME, crmAccountId: 'C3', name: 'Child of a cycle', parentCrmAccountId: 'C1' }];
      assert.deepEqual(await problems(db, bundle({ accounts: withChild })), [
        `accounts.ndjson:${n + 1}: parentCrmAccountId: parent cycle: C1 -> C2 -> C1`,
        `accounts.ndjson:${n + 2}: parentCrmAccountId: parent cycle: C2 -> C1 -> C2`,
      ]);
      const selfParent = [...BUNDLE.accounts!, { org: ORG.ACME, crmAccountId: 'S1', name: 'Own parent', parentCrmAccountId: 'S1' }];
      assert.deepEqual(await problems(db, bundle({ accounts: selfParent })), [`accounts.ndjson:${n + 1}: parentCrmAccountId: parent cycle: S1 -> S1`]);
      const dangling = [...BUNDLE.accounts!, { org: ORG.ACME, crmAccountId: 'D1', name: 'Dangling', parentCrmAccountId: 'GHOST' }];
      assert.deepEqual(await problems(db, bundle({ accounts: dangling })), [`accounts.ndjson:${n + 1}: parentCrmAccountId: reference to a missing account of the same organization`]);
      // A duplicate row of a cycle member that is top-level reaches the cycle from above: the
      // walk down must visit each account once and end (only the duplicate is a problem).
      const reentered = [...cycle, { org: ORG.ACME, crmAccountId: 'C1', name: 'Cycle 1 again' }, { org: ORG.ACME, crmAccountId: 'C4', name: 'Below', parentCrmAccountId: 'C2' }];
      assert.deepEqual(await problems(db, bundle({ accounts: reentered })), [`accounts.ndjson:${n + 3}: org, crmAccountId: duplicate natural key (org, crmAccountId): already on line ${n + 1}`]);
      // Deep chains: one level per step, every account reached.
      const chain = Array.from({ length: 30 }, (_, i) => ({ org: ORG.ACME, crmAccountId: `L${i}`, name: `Level ${i}`, ...(i > 0 ? { parentCrmAccountId: `L${i - 1}` } : {}) }));
      const chainCycle = [{ org: ORG.ACME, crmAccountId: 'K1', name: 'K1', parentCrmAccountId: 'K2' }, { org: ORG.ACME, crmAccountId: 'K2', name: 'K2', parentCrmAccountId: 'K1' }];
      assert.deepEqual(await problems(db, bundle({ accounts: [...BUNDLE.accounts!, ...chain, ...chainCycle] })), [
        `accounts.ndjson:${n + 31}: parentCrmAccountId: parent cycle: K1 -> K2 -> K1`,
        `accounts.ndjson:${n + 32}: parentCrmAccountId: parent cycle: K2 -> K1 -> K2`,
      ]);
    });

    test('a NUL character (which PostgreSQL cannot store) is a problem of its line, not a failed import', async () => {
      const before = await snapshot(db);
      const accounts = [...BUNDLE.accounts!, { org: ORG.ACME, crmAccountId: 'N1', name: 'Nul\u0000Name', owner: { email: 'a\u0000@x.test' } }, { org: ORG.ACME, crmAccountId: 'N2', name: 'Custom nul', custom: { free: 'x\u0000y' } }];
      const n = BUNDLE.accounts!.length;
      assert.deepEqual(await problems(db, bundle({ accounts })), [
        `accounts.ndjson:${n + 1}: name: must not contain the NUL character (\\u0000)`,
        `accounts.ndjson:${n + 1}: owner.email: must not contain the NUL character (\\u0000)`,
        `accounts.ndjson:${n + 2}: custom: must not contain the NUL character (\\u0000)`,
      ]);
      const dir = mkdtempSync(join(tmpdir(), 'pr-import-'));
      dirs.push(dir);
      writeFileSync(join(dir, 'orgs.ndjson'), JSON.stringify(BUNDLE.orgs![0]) + '\n');
      writeFileSync(join(dir, 'accounts.csv'), `org,crmAccountId,name\n${ORG.ACME},NC1,Bad\u0000Cell\n`);
      assert.deepEqual(await problems(db, dir), ['accounts.csv:2: name: must not contain the NUL character (\\u0000)']);
      assert.equal(await snapshot(db), before);
    });

    test('all or nothing: one bad line in the last file leaves the database exactly as it was', async () => {
      const before = await snapshot(db);
      const events = [...BUNDLE.events!, { org: ORG.ACME, eventId: 'E99', eventDate: T0, eventTypeCode: 'WORKFLOW', crmAccountId: 'A1', partner: ORG.ALPHA, surprise: true }];
      const accounts = BUNDLE.accounts!.map((a: any) => ({ ...a, name: `${a.name} changed` }));
      const list = await problems(db, bundle({ accounts, events }));
      assert.deepEqual(list, [`events.ndjson:${events.length}: surprise: unknown field`]);
      assert.equal(await snapshot(db), before);
    });

    test('CSV accounts and opportunities with flattened owner.* and custom.* columns', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'pr-import-'));
      dirs.push(dir);
      writeFileSync(join(dir, 'orgs.ndjson'), JSON.stringify(BUNDLE.orgs![0]) + '\n');
      writeFileSync(
        join(dir, 'accounts.csv'),
        'org,crmAccountId,name,numberOfEmployees,isCustomer,owner.email,custom.score,custom.tier,custom.ispartnerpaid,annualRevenue\r\n' +
          `${ORG.ACME},CSV1,"Comma, Inc.",42,true,csv@acme.test,7,"Quote ""Q""",false,1.5e3\r\n` +
          `${ORG.ACME},CSV2,Plain,,,,,,,\r\n`,
      );
      writeFileSync(join(dir, 'opportunities.csv'), 'org,crmOpportunityId,crmAccountId,name,createdDate,amount,isWon,owner.name\n' + `${ORG.ACME},OCSV,CSV1,Deal,${T0},12.5,false,Olga\n`);
      const result = await importBundle(db, dir);
      assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
      const rows = await sql<any>`select crm_account_id, name, number_of_employees, is_customer, owner_email, custom, annual_revenue from accounts where crm_account_id like 'CSV%' order by 1`.execute(db.db);
      assert.deepEqual(rows.rows[0], { crm_account_id: 'CSV1', name: 'Comma, Inc.', number_of_employees: 42, is_customer: true, owner_email: 'csv@acme.test', custom: { score: 7, tier: 'Quote "Q"', ispartnerpaid: false }, annual_revenue: 1500 });
      assert.deepEqual(rows.rows[1], { crm_account_id: 'CSV2', name: 'Plain', number_of_employees: null, is_customer: null, owner_email: null, custom: {}, annual_revenue: null });
      const opp = await sql<any>`select amount, is_won, owner_name, created_date from opportunities where crm_opportunity_id = 'OCSV'`.execute(db.db);
      assert.deepEqual(opp.rows[0], { amount: 12.5, is_won: false, owner_name: 'Olga', created_date: T0 });
      const bad = mkdtempSync(join(tmpdir(), 'pr-import-'));
      dirs.push(bad);
      writeFileSync(join(bad, 'orgs.ndjson'), JSON.stringify(BUNDLE.orgs![0]) + '\n');
      writeFileSync(join(bad, 'accounts.csv'), `org,crmAccountId,name,numberOfEmployees,bogus\n${ORG.ACME},X,Name,many,1\n`);
      // An unknown column is a problem of the header, once, not of each row holding a value in it.
      assert.deepEqual(await problems(db, bad), ['accounts.csv:1: bogus: unknown field', 'accounts.csv:2: numberOfEmployees: must be an integer, got the string "many"']);
      // Rows with the wrong number of cells are each reported; parsing goes on past them.
      writeFileSync(join(bad, 'accounts.csv'), `org,crmAccountId,name\n${ORG.ACME},X1\n${ORG.ACME},X2,Fine\n${ORG.ACME},X3,Too,Many\n`);
      assert.deepEqual(await problems(db, bad), ['accounts.csv:2: -: has 2 cells but the header has 3', 'accounts.csv:4: -: has 4 cells but the header has 3']);
    });

    test('parsing in the worker thread (large bundles) reports and loads exactly as on this thread', async () => {
      const bad = bundle({ users: [...BUNDLE.users!, { org: ORG.ACME, email: 3, name: 'Three' }] });
      const here = await importBundle(db, bad, { parseInWorker: false });
      assert.equal(here.ok, false);
      assert.deepEqual(await importBundle(db, bad, { parseInWorker: true }), here);
      const dir = bundle();
      const first = await importBundle(db, dir, { parseInWorker: true });
      assert.ok(first.ok, first.ok ? '' : first.problems.map(formatProblem).join('\n'));
      const again = await importBundle(db, dir, { parseInWorker: true });
      assert.ok(again.ok);
      assert.deepEqual(again.counts.map((c) => [c.entity, c.inserted, c.updated]), again.counts.map((c) => [c.entity, 0, 0]), 're-imported through the worker: nothing changes');
    });

    test('a bundle without orgs.ndjson, or with both forms of a file, is refused', async () => {
      const empty = mkdtempSync(join(tmpdir(), 'pr-import-'));
      dirs.push(empty);
      assert.deepEqual(await problems(db, empty), ['orgs.ndjson:0: -: missing: every bundle has an orgs.ndjson']);
      const both = bundle();
      writeFileSync(join(both, 'accounts.csv'), 'org,crmAccountId,name\n');
      assert.match((await problems(db, both))[0]!, /^accounts\.csv:0: -: accounts\.ndjson is present too/);
      const broken = bundle();
      writeFileSync(join(broken, 'users.ndjson'), '{"org": \n[1]\n');
      assert.deepEqual(await problems(db, broken), ['users.ndjson:1: -: not valid JSON', 'users.ndjson:2: -: must be a JSON object']);
    });

    test('top parents follow every level of the hierarchy, and links join accounts under one top parent', async () => {
      // A12 -> A11 -> A2 -> A1: an event on the great-grandchild reaches O1 (on A2) and O9
      // (on A1, imported by an earlier test) through their top parent A1; newest opportunity first.
      const accounts = [...BUNDLE.accounts!, { org: ORG.ACME, crmAccountId: 'A11', name: 'Child', parentCrmAccountId: 'A2' }, { org: ORG.ACME, crmAccountId: 'A12', name: 'Grandchild', parentCrmAccountId: 'A11' }];
      const events = [...BUNDLE.events!, { org: ORG.ACME, eventId: 'E12', eventDate: T0 - 86400, eventTypeCode: 'ACTION_LIST', eventSubtypeCode: 'CREATED', crmAccountId: 'A12', partner: ORG.ALPHA, eventName: 'Deep' }];
      const result = await importBundle(db, bundle({ accounts, events }));
      assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
      const rows = await sql<any>`select top_parent_crm_account_id as id, top_parent_crm_account_name as name from rpt_attribution_events where crm_account_id = 'A12'`.execute(db.db);
      assert.deepEqual(rows.rows.map((r: any) => [r.id, r.name]), [['A1', 'Acme Holdings']]);
      const links = await sql<any>`select opp_crm_opportunity_id as opp, top_parent_crm_account_id as top from rpt_attribution_links where event_name = 'Deep' order by rid`.execute(db.db);
      assert.deepEqual(links.rows.map((r: any) => [r.opp, r.top]), [['O9', 'A1'], ['O1', 'A1']]);
    });
  });

  describe(`import on ${engine.name}, no connected partnership`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await engine.open();
    });
    after(() => db.dispose());

    test('a bundle of one organization, then one whose only partnership is pending, imports', async () => {
      // The partnerFields expression has one branch per share profile of the connected
      // partnerships; with none it was `case ... else ... end`, a syntax error.
      const solo = mkdtempSync(join(tmpdir(), 'pr-import-'));
      dirs.push(solo);
      writeFileSync(join(solo, 'orgs.ndjson'), `${JSON.stringify({ publicId: ORG.ACME, name: 'Solo' })}\n`);
      const first = await importBundle(db, solo);
      assert.ok(first.ok, first.ok ? '' : first.problems.map(formatProblem).join('\n'));
      writeFileSync(join(solo, 'orgs.ndjson'), [{ publicId: ORG.ACME, name: 'Solo' }, { publicId: ORG.ALPHA, name: 'Alpha' }].map((o) => JSON.stringify(o)).join('\n'));
      writeFileSync(join(solo, 'accounts.ndjson'), [{ org: ORG.ACME, crmAccountId: 'A1', name: 'One' }, { org: ORG.ALPHA, crmAccountId: 'P1', name: 'Partner one' }].map((o) => JSON.stringify(o)).join('\n'));
      writeFileSync(join(solo, 'partnerships.ndjson'), JSON.stringify({ org: ORG.ACME, partner: ORG.ALPHA, status: 'PENDING', sharedFields: ['name'] }));
      writeFileSync(join(solo, 'account_matches.ndjson'), JSON.stringify({ org: ORG.ACME, crmAccountId: 'A1', partner: ORG.ALPHA, partnerCrmAccountId: 'P1', firstMatchDate: T0 }));
      const second = await importBundle(db, solo);
      assert.ok(second.ok, second.ok ? '' : second.problems.map(formatProblem).join('\n'));
      const rows = await sql<{ n: number }>`select count(*)::int as n from rpt_global_accounts`.execute(db.db);
      assert.equal(rows.rows[0]!.n, 0, 'a pending partnership matches nothing');
    });
  });
}
