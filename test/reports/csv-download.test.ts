/**
 * The CSV download (COPY on PostgreSQL, ready lines on PGlite) writes exactly the bytes of
 * the reference rules (render/csv.ts `csvField(csvCell(value))`) applied to the rows the
 * records endpoint renders, for awkward values (quotes, commas, CR, LF, formula starts,
 * empty vs NULL, unicode, numbers at the JavaScript/PostgreSQL formatting borders,
 * booleans, dates, custom fields, masked partner fields), column selections, filters and
 * sorts, and in batches of any size. A download the client abandons gives its database
 * connections back.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { sql } from 'kysely';
import { engines } from '../helpers/engines.js';
import { fixtureApp, NOW, type FixtureApp } from '../helpers/fixture-app.js';
import { ORG } from '../fixtures/small-bundle.js';
import { csvCell, csvField, csvLineOf } from '../../src/reports/render/csv.js';
import { downloadStream, unescapeText } from '../../src/reports/download.js';
import { defaultLinePlan, insertLineBlocks, insertLines, LINE_COPIES, LINES_PER_BLOCK, lineCopyFor, lineFingerprint, type LineCopy } from '../../src/reports/csv-lines.js';
import { buildPrecomputed } from '../../src/reports/precomputed.js';
import { csvBatchQuery } from '../../src/reports/query.js';
import { reportById } from '../../src/reports/catalog/index.js';
import { loadOrgMetadata } from '../../src/reports/metadata.js';
import { buildPlan } from '../../src/reports/plan.js';
import { parsePaging, parseReportBody } from '../../src/reports/request.js';

const GVA = '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS';

const TEXTS: Array<string | null> = [
  'plain', '', null, 'a"b', '"', '""', 'a,b', ',', 'line\nbreak', '\n', 'cr\rx', '\r', 'x\r\ny', '=1+1', '+x', '-5', '@sum', '\tx', '\rx',
  '=a,b"c', '-', "o'brien", ' lead', 'ünïcødé ✓ 𝄞 日本', '\\.', '\\', 'N', 'NULL', '\u0001ctl', 'trailing ', 'bs\b ff\f vt\v \\n \\\\',
];
const DOUBLES: Array<number | null> = [
  0, -0, 1, -1, 0.1 + 0.2, 1 / 3, 123.456, 1e-4, 9.99e-5, 1.5e-5, -2.5e-6, 1e-6, 1e-7, 1.5e-7, 5e-324, 999999999999999.9, 1e15, -1e15, 1000000000000000.5,
  1.2345e16, 123456789012345680000, 2 ** 53, 1e20, 1e21, 1.5e21, -3.25e22, 1.7976931348623157e308, 4.35e-300, null,
];
const BIGINTS: Array<number | null> = [0, -7, 1751595551, 2 ** 53 - 1, -(2 ** 53) + 1, 10 ** 15, 10 ** 16, null];

/** One awkward value per column per row, cycling through the lists with different strides. */
function awkwardRows(count: number) {
  const pick = <T>(list: T[], i: number, stride: number): T => list[(i * stride) % list.length]!;
  return Array.from({ length: count }, (_, i) => ({
    account_name: pick(TEXTS, i, 1),
    street: pick(TEXTS, i, 7),
    city: pick(TEXTS, i, 11),
    country: i % 3 === 0 ? 'US' : pick(TEXTS, i, 13),
    phone_number: pick(TEXTS, i, 17),
    annual_revenue: pick(DOUBLES, i, 1),
    account_acv: pick(DOUBLES, i, 5),
    number_of_employees: pick(BIGINTS, i, 3),
    recent_open_opp_date: pick(BIGINTS, i, 1),
    // Unshared partner values are stored NULL (masked at import): every third row.
    partner_account_name: i % 3 === 1 ? null : pick(TEXTS, i, 19),
    partner_account_acv: i % 3 === 1 ? null : pick(DOUBLES, i, 7),
    custom: {
      tier: pick(TEXTS, i, 23),
      score: pick(DOUBLES, i, 3),
      arr: pick(DOUBLES, i, 11),
      renewal: pick(BIGINTS, i, 5),
      ispartnerpaid: [true, false, null][i % 3],
    },
  }));
}

/** A query string as the server parses it (a repeated key gives an array). */
function queryObject(query: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(query)) {
    const had = out[k];
    out[k] = had === undefined ? v : [...(Array.isArray(had) ? had : [had]), v];
  }
  return out;
}

/** The CSV the reference rules give for the rows the records endpoint renders. */
async function expectedCsv(f: FixtureApp, query: string, body: object): Promise<string> {
  const page = await f.ok(`${GVA}/records?size=2000${query ? `&${query}` : ''}`, body);
  assert.ok(page.content.length < 2000, 'one page holds every row');
  const columns = await f.ok(`${GVA}/columns`, body);
  const keys: string[] = columns.filter((c: { hidden?: boolean }) => !c.hidden).map((c: { key: string }) => c.key);
  const header = (body as { columns?: string[] }).columns ?? keys;
  return [header.map(csvField).join(','), ...page.content.map((row: Record<string, unknown>) => csvLineOf(header.map((k) => csvField(csvCell(row[k])))))].join('\r\n') + '\r\n';
}

const CASES: Array<[string, object]> = [
  ['', {}],
  ['sort=account_name,asc', {}],
  ['sort=annual_revenue,desc&sort=account_name,desc', {}],
  ['sort=custom_tier,asc&sort=custom_score,desc', {}],
  ['sort=number_of_employees,asc', { filters: { country: 'US' } }],
  ['sort=city,desc', { filters: { annual_revenue: '0<->' } }],
  ['', { columns: ['account_name', 'annual_revenue', 'custom_tier', 'custom_ispartnerpaid', 'custom_renewal', 'partner_account_name'] }],
  ['sort=street,asc', { columns: ['street', 'number_of_employees'], filters: { account_name: 'a-?-' } }],
  ['', { columns: ['account_name'] }],
  ['', { filters: { account_name: 'no such account-?-' } }],
];

/** The ACME organization's id and the awkward rows (awkwardRows(120)) written straight into its report table, after its rows. */
async function insertAwkwardRows(db: FixtureApp['database']['db']): Promise<number> {
  const orgId = (await db.selectFrom('orgs').select('id').where('public_id', '=', ORG.ACME).executeTakeFirstOrThrow()).id;
  const partner = (await db.selectFrom('orgs').select('id').where('public_id', '=', ORG.ALPHA).executeTakeFirstOrThrow()).id;
  const { rid } = (await sql<{ rid: number }>`select coalesce(max(rid), 0)::int as rid from rpt_global_accounts where org_id = ${orgId}`.execute(db)).rows[0]!;
  for (const [i, r] of awkwardRows(120).entries()) {
    await sql`insert into rpt_global_accounts (org_id, rid, partner_org_id, partner_org_name, partner_org_public_id, account_name, street, city, country, phone_number,
        annual_revenue, account_acv, number_of_employees, recent_open_opp_date, partner_account_name, partner_account_acv, custom)
      values (${orgId}, ${rid + 1 + i}, ${partner}, 'Alpha Partners', ${ORG.ALPHA}, ${r.account_name}, ${r.street}, ${r.city}, ${r.country}, ${r.phone_number},
        ${r.annual_revenue}::double precision, ${r.account_acv}::double precision, ${r.number_of_employees}::bigint, ${r.recent_open_opp_date}::bigint,
        ${r.partner_account_name}, ${r.partner_account_acv}::double precision, ${JSON.stringify(r.custom)}::jsonb)`.execute(db);
  }
  return orgId;
}

/** The plan of a GLOBAL_VERTICAL_ACCOUNTS download request as the service builds it. */
async function planOf(f: FixtureApp, orgId: number, query: string, body: object) {
  const errors: Array<{ field: string; message: string }> = [];
  const meta = await loadOrgMetadata(f.database.db, orgId);
  return buildPlan({ report: reportById('GLOBAL_VERTICAL_ACCOUNTS'), meta, body: parseReportBody(body as never), paging: parsePaging(queryObject(query), errors), nowSeconds: NOW });
}

/** Every case downloaded through the service gives the reference bytes. */
async function assertServiceDownloads(f: FixtureApp, cases: ReadonlyArray<[string, object]>): Promise<void> {
  for (const [query, body] of cases) {
    const res = await f.call('POST', `${GVA}/download${query ? `?${query}` : ''}`, body);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.body, await expectedCsv(f, query, body), `${query} ${JSON.stringify(body)}`);
  }
}

/** Every case streamed by downloadStream in batches of each size gives the reference bytes. */
async function assertBatchedDownloads(f: FixtureApp, orgId: number, cases: ReadonlyArray<[string, object]>, sizes: number[], lines?: LineCopy): Promise<void> {
  for (const [query, body] of cases) {
    const plan = await planOf(f, orgId, query, body);
    const expected = await expectedCsv(f, query, body);
    for (const batchRows of sizes) {
      const chunks: Buffer[] = [];
      for await (const c of downloadStream(f.database, plan, { batchRows, lines })) chunks.push(c as Buffer);
      assert.equal(Buffer.concat(chunks).toString('utf8'), expected, `${query} ${JSON.stringify(body)} in batches of ${batchRows}`);
    }
  }
}

test("unescapeText undoes COPY's text-format escapes", () => {
  const cases: Array<[string, string]> = [
    ['plain', 'plain'],
    ['a\\\\b', 'a\\b'],
    ['\\n\\r\\t\\b\\f\\v', '\n\r\t\b\f\v'],
    ['x\\\\n', 'x\\n'],
    ['\\,', ','],
    ['end\\\\', 'end\\'],
    ['ü\\t✓', 'ü\t✓'],
  ];
  for (const [escaped, plain] of cases) {
    const row = Buffer.from(`${escaped}\n`);
    const out = Buffer.alloc(row.length + 8, 0x2a);
    const end = unescapeText(row, row.length - 1, out, 3);
    assert.equal(out.subarray(3, end).toString('utf8'), plain, JSON.stringify(escaped));
    assert.equal(out[2], 0x2a, 'writes only from the given offset');
  }
});

for (const engine of engines) {
  describe(`CSV download bytes on ${engine.name}`, () => {
    let f: FixtureApp;
    let orgId: number;
    before(async () => {
      f = await fixtureApp(engine, { reports: { precomputed: false, pageCacheRows: 0 } });
      orgId = await insertAwkwardRows(f.database.db);
    });
    after(() => f.close());

    test('awkward values, column selections, filters and sorts: the reference bytes', async () => {
      await assertServiceDownloads(f, CASES);
    });

    test('a download of one column writes an empty cell as `""`, not as an empty line readers skip', async () => {
      // The masked partner account name is NULL on BETA's rows; the custom boolean on rows without it.
      for (const column of ['partner_account_name', 'custom_ispartnerpaid']) {
        const body = { columns: [column] };
        const res = await f.call('POST', `${GVA}/download?sort=${column},asc`, body);
        assert.equal(res.statusCode, 200, res.body);
        const lines = res.body.split('\r\n');
        assert.ok(lines.includes('""'), `${column}: a NULL row is written ""`);
        assert.ok(!lines.slice(0, -1).includes(''), `${column}: no empty line but the end`);
        assert.equal(res.body, await expectedCsv(f, `sort=${column},asc`, body));
        const plan = await planOf(f, orgId, `sort=${column},asc`, body);
        const chunks: Buffer[] = [];
        for await (const c of downloadStream(f.database, plan, { batchRows: 7 })) chunks.push(c as Buffer);
        assert.equal(Buffer.concat(chunks).toString('utf8'), res.body, `${column} in batches of 7`);
      }
    });

    test('batches of any size give the same bytes (range ends inside runs of equal sort values)', async () => {
      await assertBatchedDownloads(f, orgId, CASES.slice(0, 8), [2, 7, 50]);
      // A batch of one row, where every row is a range end: on the orders with runs of equal
      // values (a statement per row: 68 s of the suite on PGlite over all eight cases).
      await assertBatchedDownloads(f, orgId, CASES.slice(2, 5), [1]);
    });
  });

  describe(`stored CSV lines on ${engine.name}`, () => {
    let f: FixtureApp;
    let orgId: number;
    const copy = LINE_COPIES[0]!;
    const linesOf = async (org: number) =>
      (await sql<{ line: string }>`select line from rpt_account_lines where org_id = ${org} order by rid`.execute(f.database.db)).rows.map((r) => r.line);
    const blocksOf = async (org: number) =>
      (await sql<{ block: string; lines: string }>`select block::text, lines from rpt_account_line_blocks where org_id = ${org} order by block`.execute(f.database.db)).rows;
    /** The blocks the lines make: block b holds lines b * LINES_PER_BLOCK + 1 onwards, joined by CRLF. */
    const expectedBlocks = (lines: string[]) =>
      Array.from({ length: Math.ceil(lines.length / LINES_PER_BLOCK) }, (_, b) => ({ block: String(b), lines: lines.slice(b * LINES_PER_BLOCK, (b + 1) * LINES_PER_BLOCK).join('\r\n') }));

    before(async () => {
      f = await fixtureApp(engine, { reports: { pageCacheRows: 0 } });
      orgId = (await f.database.db.selectFrom('orgs').select('id').where('public_id', '=', ORG.ACME).executeTakeFirstOrThrow()).id;
    });
    after(() => f.close());

    test('the import writes, for every organization, the line of every report row, their blocks and the fingerprint of the SQL it used', async () => {
      const db = f.database.db;
      const orgs = (await db.selectFrom('orgs').select('id').orderBy('id').execute()).map((o) => o.id);
      let withRows = 0;
      for (const org of orgs) {
        const meta = await loadOrgMetadata(db, org);
        const plan = defaultLinePlan(copy, meta);
        // The lines the download would format from the report rows, in the same order.
        const formatted = (await csvBatchQuery(plan, null, 1_000_000).execute(db)).rows.map((r) => (r as { line: string }).line);
        assert.deepEqual(await linesOf(org), formatted, `organization ${org}`);
        assert.deepEqual(await blocksOf(org), expectedBlocks(formatted), `blocks of organization ${org}`);
        if (formatted.length > 0) withRows++;
        const format = await db.selectFrom('rpt_csv_formats' as never).select('format' as never).where('org_id' as never, '=', org as never).where('tbl' as never, '=', 'rpt_global_accounts' as never).executeTakeFirst();
        assert.equal((format as { format?: string } | undefined)?.format, lineFingerprint(db, plan), `organization ${org}`);
      }
      assert.ok(withRows >= 2, 'at least two organizations have report rows');
    });

    test('a download in the default columns reads them, any other does not, and a stale fingerprint is never used', async () => {
      const db = f.database.db;
      const plan = await planOf(f, orgId, '', {});
      const formats = new Map([['rpt_global_accounts', lineFingerprint(db, plan)]]);
      assert.equal(lineCopyFor(db, plan, formats)?.table, 'rpt_account_lines');
      assert.equal(lineCopyFor(db, await planOf(f, orgId, 'sort=city,desc', { filters: { country: 'US' } }), formats)?.table, 'rpt_account_lines', 'filters and order do not matter');
      assert.equal(lineCopyFor(db, await planOf(f, orgId, '', { columns: ['account_name', 'city'] }), formats), undefined, 'other columns');
      assert.equal(lineCopyFor(db, plan, new Map([['rpt_global_accounts', 'written by other code']])), undefined, 'another fingerprint');
      assert.equal(lineCopyFor(db, plan, new Map()), undefined, 'no lines');
      // Through the service: a marked line or block shows what the download read. Every row in
      // the default order comes from the blocks, a filtered or sorted download from the lines.
      const { rid } = (await sql<{ rid: number }>`select min(rid)::int as rid from rpt_account_lines where org_id = ${orgId}`.execute(db)).rows[0]!;
      const original = (await sql<{ line: string }>`select line from rpt_account_lines where org_id = ${orgId} and rid = ${rid}`.execute(db)).rows[0]!.line;
      const block = (await sql<{ lines: string }>`select lines from rpt_account_line_blocks where org_id = ${orgId} and block = 0`.execute(db)).rows[0]!.lines;
      await sql`update rpt_account_lines set line = 'marked,line' where org_id = ${orgId} and rid = ${rid}`.execute(db);
      await sql`update rpt_account_line_blocks set lines = ${`marked,block\r\n${block}`} where org_id = ${orgId} and block = 0`.execute(db);
      try {
        const whole = await f.call('POST', `${GVA}/download`, {});
        assert.equal(whole.statusCode, 200, whole.body);
        assert.deepEqual(whole.body.split('\r\n').slice(1, 3), ['marked,block', original], 'every row: the blocks');
        const { name } = (await sql<{ name: string }>`select account_name as name from rpt_global_accounts where org_id = ${orgId} and rid = ${rid}`.execute(db)).rows[0]!;
        const sorted = await f.call('POST', `${GVA}/download?sort=account_name,asc`, {});
        const filtered = await f.call('POST', `${GVA}/download`, { filters: { account_name: name } });
        for (const res of [sorted, filtered]) {
          assert.equal(res.statusCode, 200, res.body);
          assert.ok(!res.body.includes('marked,block'), 'a sort or a filter reads single lines');
        }
        assert.ok(filtered.body.split('\r\n').includes('marked,line'), 'a filtered download reads the lines');
        const chosen = await f.call('POST', `${GVA}/download`, { columns: ['account_name', 'city'] });
        assert.ok(!chosen.body.includes('marked,'), 'a column selection formats its cells');
      } finally {
        await sql`update rpt_account_lines set line = ${original} where org_id = ${orgId} and rid = ${rid}`.execute(db);
        await sql`update rpt_account_line_blocks set lines = ${block} where org_id = ${orgId} and block = 0`.execute(db);
      }
    });

    describe('awkward values', () => {
      before(async () => {
        // Rows written straight into the report table, then their lines and figures rebuilt as the import does.
        const db = f.database.db;
        // Twice: more rows than one block holds.
        await insertAwkwardRows(db);
        await insertAwkwardRows(db);
        await sql`delete from rpt_account_lines where org_id = ${orgId}`.execute(db);
        await insertLines(defaultLinePlan(copy, await loadOrgMetadata(db, orgId)), 'rpt_account_lines', 'rpt_global_accounts').execute(db);
        await sql`delete from rpt_account_line_blocks where org_id = ${orgId}`.execute(db);
        await insertLineBlocks(orgId, 'rpt_account_line_blocks', 'rpt_account_lines').execute(db);
        const blocks = (await sql<{ n: number }>`select count(*)::int as n from rpt_account_line_blocks where org_id = ${orgId}`.execute(db)).rows[0]!.n;
        assert.ok(blocks >= 2, `the awkward rows span more than one block (${blocks})`);
        await buildPrecomputed(db);
        await sql`update service_state set value = (value::bigint + 1)::text where key = 'data_version'`.execute(db);
      });

      test('through the service: the reference bytes for every case', async () => {
        await assertServiceDownloads(f, CASES);
      });

      test('from the lines and their blocks in batches of any size: the reference bytes', async () => {
        // Every row in the default order ('') reads the blocks: batches of one block to all of them.
        await assertBatchedDownloads(f, orgId, CASES.slice(0, 6), [1, 7, 50, 200, 10_000], copy);
      });
    });
  });

  describe(`an abandoned CSV download on ${engine.name}`, () => {
    test('gives its connections back and starts no further batch', async () => {
      // Rows written straight into the report table have no stored lines: cells are formatted.
      const f = await fixtureApp(engine, { reports: { precomputed: false } });
      try {
        const db = f.database.db;
        const orgId = (await db.selectFrom('orgs').select('id').where('public_id', '=', ORG.ACME).executeTakeFirstOrThrow()).id;
        await sql`insert into rpt_global_accounts (org_id, rid, partner_org_id, account_name, crm_account_id, street, annual_revenue)
          select ${orgId}, 1000 + g, 0, 'Account ' || g, 'C' || g, repeat('street, ', 40), g * 1.5 from generate_series(1, 120000) g`.execute(db);
        const url = await f.app.listen({ port: 0, host: '127.0.0.1' });
        // A plain HTTP request whose socket is destroyed: fetch's abort left undici's socket
        // open, so the server saw no departure until Fastify's 72 s keep-alive timeout.
        const target = new URL(`${url}${GVA}/download`);
        const req = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { 'api-key': f.keys.acme, 'content-type': 'application/json' } });
        const res = await new Promise<IncomingMessage>((resolve, reject) => {
          req.on('response', resolve).on('error', reject);
          req.end('{}');
        });
        assert.equal(res.statusCode, 200);
        await new Promise<void>((resolve) => {
          let received = 0;
          res.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received >= 100_000) {
              res.pause();
              resolve();
            }
          });
        });
        req.destroy();
        // The server lets go of the connection at once (its response closed, the stream destroyed).
        const connections = () => new Promise<number>((resolve, reject) => f.app.server.getConnections((e, n) => (e ? reject(e) : resolve(n))));
        const closedBy = Date.now() + 5_000;
        while ((await connections()) > 0 && Date.now() < closedBy) await new Promise((r) => setTimeout(r, 20));
        assert.equal(await connections(), 0, 'the server still holds the abandoned connection');
        if (engine.name === 'postgres') {
          // Batches already running finish into memory; then no session of this database is busy.
          const busy = async () => Number((await sql<{ n: string }>`select count(*) as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle'`.execute(db)).rows[0]!.n);
          const deadline = Date.now() + 10_000;
          while ((await busy()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
          assert.equal(await busy(), 0, 'no COPY left running');
          await new Promise((r) => setTimeout(r, 500));
          assert.equal(await busy(), 0, 'no batch started after the client left');
        }
        // The pool (4 connections in tests) serves more concurrent requests than it has connections.
        const pages = await Promise.all(Array.from({ length: 6 }, () => f.call('POST', `${GVA}/records?size=1`, {})));
        for (const p of pages) assert.equal(p.statusCode, 200);
      } finally {
        await f.close();
      }
    });
  });
}
