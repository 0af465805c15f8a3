/**
 * `npm run bench`: the performance benchmark (docs/benchmarks.md). Never part of npm test.
 *
 *   1. generates (or reuses) a demo bundle: --scale 1000 by default = 2,000,000
 *      GLOBAL_VERTICAL_ACCOUNTS rows for the demo tenant and 100,000 for a second one;
 *   2. imports it into the PostgreSQL at DATABASE_URL (a dedicated database, created
 *      when missing; reused when it already holds this bundle);
 *   3. starts the built server with authentication and a raised rate limit;
 *   4. drives each scenario over HTTP: one request awaited alone (its time is `firstMs`),
 *      then concurrency 10 (warm-up, then BENCH_SECONDS seconds) from wrk when it is
 *      installed, else from autocannon; and runs the same SQL directly
 *      against PostgreSQL at the same concurrency (the floor);
 *   5. prints and writes bench/results/<time>.json: p50, p99, requests/s, service/floor
 *      ratio per scenario, import time and rows/s, CSV rows/s, the server's peak RSS.
 *
 * Environment: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_DB (the bench database on that server, default pr_bench), BENCH_BUNDLE (an
 * existing bundle folder to use instead of bench/data/scale-N), BENCH_REUSE=1 (use the
 * data already in BENCH_DB, whatever its bundle), BENCH_SCALE (1000), BENCH_SECONDS (15),
 * BENCH_WARMUP_SECONDS (3), BENCH_ONLY (comma-separated scenario names, `csv`), BENCH_LOAD
 * (`wrk` or `autocannon`; default wrk when installed). wrk's p99
 * is corrected for coordinated omission (bench/wrk.ts), autocannon's is not.
 *
 * "first seen" scenarios make every request new to the service's caches: each carries an
 * always-true extra condition with a unique term (`state` does not contain `zz<n>`; NULLs
 * stay), or unique range bounds, so the service and the direct-SQL floor both compute the
 * page and the exact count of a query they have not seen. The `state` condition rejects
 * no stored value, so the service resolves it away on the value dictionary
 * (dictionary-filters.ts): caches still key on the request as sent, so nothing is reused,
 * but the work is that of the request without it (plus one dictionary lookup).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, platform, release } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { uniqueCondition } from './unique-condition.js';
import { runWrk, wrkAvailable, type LoadResult } from './wrk.js';
import pg from 'pg';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../src/db/database.js';
import { writeDemoBundle, DEMO_ORG_PUBLIC_ID, DEMO_ADMIN_EMAIL } from '../src/demo/generate.js';
import { importBundle, formatProblem } from '../src/ingest/import-bundle.js';
import { createApiKey } from '../src/server/access/api-keys.js';
import { reportById } from '../src/reports/catalog/index.js';
import { loadOrgMetadata } from '../src/reports/metadata.js';
import { buildPlan } from '../src/reports/plan.js';
import { accelerate, countStatement, pageStatement } from '../src/reports/direct-sql.js';
import { resolveDictionaryFilters, type RunQuery } from '../src/reports/dictionary-filters.js';
import { resolveSearchValues } from '../src/reports/search-values.js';
import { loadPrecomputed, type Precomputed } from '../src/reports/precomputed.js';
import { parsePaging, parseReportBody } from '../src/reports/request.js';

const ROOT = join(import.meta.dirname, '..');
const SCALE = Number(process.env.BENCH_SCALE ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CONCURRENCY = 10;
/** A request without an answer after this long counts as an error (autocannon's default, named so the output can say it). */
const TIMEOUT_SECONDS = 10;
const ONLY = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const serverUrl = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const BENCH_DB = process.env.BENCH_DB ?? 'pr_bench';
if (!/^[a-z_][a-z0-9_]*$/.test(BENCH_DB)) throw new Error(`BENCH_DB must be a plain database name, got ${BENCH_DB}`);
const benchUrl = new URL(serverUrl.toString());
benchUrl.pathname = `/${BENCH_DB}`;

const log = (line: string) => process.stdout.write(`${line}\n`);

interface Scenario {
  name: string;
  path: string;
  body: Record<string, unknown>;
  /** report id and query string when the scenario has a direct-SQL floor */
  floor?: { report: string; query: Record<string, unknown> };
  /** A new body per request (first-seen scenarios); `body` is then only the warm-up's. */
  vary?: (n: number) => Record<string, unknown>;
}


/** What drive() measured, and which load generator measured it. */
type Measured = LoadResult & { loadGenerator: 'wrk' | 'autocannon' };

interface Result extends Measured {
  name: string;
  floorP50?: number;
  ratio?: number;
  /** The scenario's first request, alone and awaited before the warm-up (ms). */
  firstMs: number;
}

async function ensureDatabase(): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl.toString() });
  await admin.connect();
  const exists = await admin.query('select 1 from pg_database where datname = $1', [BENCH_DB]);
  if (!exists.rowCount) await admin.query(`create database ${BENCH_DB}`);
  await admin.end();
}

async function prepareData(): Promise<{ importSeconds: number | null; rows: number; key: string; partnerId: string; partnerIds: string[] }> {
  const dir = process.env.BENCH_BUNDLE ?? join(ROOT, 'bench', 'data', `scale-${SCALE}`);
  if (!existsSync(join(dir, 'orgs.ndjson'))) {
    log(`generating the demo bundle at --scale ${SCALE} into ${dir} ...`);
    const summary = await writeDemoBundle(dir, { scale: SCALE, seed: 42 });
    log(`  ${summary.rows} rows in ${summary.seconds.toFixed(1)} s (${Math.round(summary.rows / summary.seconds)} rows/s)`);
  } else log(`reusing the bundle in ${dir}`);
  await ensureDatabase();
  const database = await openDatabase({ databaseUrl: benchUrl.toString(), statementTimeoutMs: 600_000 });
  const marker = join(dir, '.imported');
  let importSeconds: number | null = null;
  const version = await database.db.selectFrom('service_state').select('value').where('key', '=', 'data_version').executeTakeFirst();
  const reuse = process.env.BENCH_REUSE === '1' && version !== undefined && version.value !== '0';
  if (!reuse && (!existsSync(marker) || version?.value === '0')) {
    log('importing into PostgreSQL ...');
    const started = Date.now();
    const result = await importBundle(database, dir);
    if (!result.ok) throw new Error(result.problems.slice(0, 10).map(formatProblem).join('\n'));
    importSeconds = (Date.now() - started) / 1000;
    writeFileSync(marker, String(importSeconds));
  } else if (reuse && !existsSync(marker)) {
    log('BENCH_REUSE: using the data already in the database (import not timed here)');
  } else {
    importSeconds = Number(readFileSync(marker, 'utf8'));
    log(`the bench database already holds this bundle (imported in ${importSeconds.toFixed(0)} s)`);
  }
  const org = await database.db.selectFrom('orgs').select('id').where('public_id', '=', DEMO_ORG_PUBLIC_ID).executeTakeFirstOrThrow();
  const user = await database.db.selectFrom('users').select('id').where('org_id', '=', org.id).where('email', '=', DEMO_ADMIN_EMAIL).executeTakeFirstOrThrow();
  const key = (await createApiKey(database.db, { orgId: org.id, userId: user.id, name: 'bench' })).key;
  const meta = await loadOrgMetadata(database.db, org.id);
  const partnerIds = [...meta.partners.values()].map((p) => p.publicId);
  const total = (await sql<{ n: number }>`select count(*) as n from rpt_global_accounts r join orgs o on o.id = r.org_id where o.public_id = ${DEMO_ORG_PUBLIC_ID}`.execute(database.db)).rows[0]!;
  await database.close();
  return { importSeconds, rows: Number(total.n), key, partnerId: partnerIds[0]!, partnerIds };
}

function scenarios(partnerId: string, partnerIds: string[], rows: number): Scenario[] {
  // Page 999 of size 2000 at scale 1000; the last full page at smaller scales.
  const deep = Math.max(1, Math.min(999, Math.floor(rows / 2000) - 1));
  const R = '/v1/report-analytics/report';
  const GVA = `${R}/GLOBAL_VERTICAL_ACCOUNTS`;
  const ctx = { partnerPublicIds: partnerIds, eventTypeCodes: ['ACTION_LIST', 'WORKFLOW'], dateRangeDays: 90, oppCreatedDateDays: 90 };
  const list: Scenario[] = [
    { name: 'default page', path: `${GVA}/records`, body: {}, floor: { report: 'GLOBAL_VERTICAL_ACCOUNTS', query: {} } },
    { name: 'exact filter', path: `${GVA}/records`, body: { filters: { country: 'DE' } }, floor: { report: 'GLOBAL_VERTICAL_ACCOUNTS', query: {} } },
    { name: 'contains on two columns', path: `${GVA}/records`, body: { filters: { account_name: 'tech-?-', city: 'an-?-' } }, floor: { report: 'GLOBAL_VERTICAL_ACCOUNTS', query: {} } },
    { name: 'range on a date and a number', path: `${GVA}/records`, body: { filters: { partner_first_match_date: '1735689600<->1767225600', number_of_employees: '100<->5000' } }, floor: { report: 'GLOBAL_VERTICAL_ACCOUNTS', query: {} } },
    { name: 'free-text search', path: `${GVA}/records`, body: { search: 'logistics' }, floor: { report: 'GLOBAL_VERTICAL_ACCOUNTS', query: {} } },
    { name: 'sort by a non-indexed column', path: `${GVA}/records?sort=annual_revenue,desc`, body: {}, floor: { report: 'GLOBAL_VERTICAL_ACCOUNTS', query: { sort: 'annual_revenue,desc' } } },
    { name: 'second page', path: `${GVA}/records?page=1`, body: { filters: { country: 'DE' } }, floor: { report: 'GLOBAL_VERTICAL_ACCOUNTS', query: { page: '1' } } },
    { name: 'page 0 of size 2000', path: `${GVA}/records?page=0&size=2000`, body: {}, floor: { report: 'GLOBAL_VERTICAL_ACCOUNTS', query: { page: '0', size: '2000' } } },
    { name: 'page 999 of size 2000', path: `${GVA}/records?page=${deep}&size=2000`, body: {}, floor: { report: 'GLOBAL_VERTICAL_ACCOUNTS', query: { page: String(deep), size: '2000' } } },
    { name: 'filterdata string', path: `${GVA}/filterdata?filterField=industry`, body: {} },
    { name: 'filterdata range', path: `${GVA}/filterdata?filterField=annual_revenue`, body: {} },
    { name: 'dashboard', path: `${GVA}/dashboard`, body: {} },
    { name: 'dashboard filtered', path: `${GVA}/dashboard`, body: { filters: { country: 'DE' } } },
    { name: 'attribution events 90 days', path: `${R}/ATTRIBUTION_EVENTS/records`, body: { context: ctx }, floor: { report: 'ATTRIBUTION_EVENTS', query: {} } },
    { name: 'attribution summary 90 days', path: `${R}/PIPELINE_ATTRIBUTION_SUMMARY/records`, body: { context: ctx }, floor: { report: 'PIPELINE_ATTRIBUTION_SUMMARY', query: {} } },
    { name: 'attribution detail 90 days', path: `${R}/PIPELINE_ATTRIBUTION_DETAIL/records`, body: { context: ctx }, floor: { report: 'PIPELINE_ATTRIBUTION_DETAIL', query: {} } },
    { name: 'matched accounts of one partner', path: '/v1/channelecosystem/records', body: { channelReportType: 'PARTNER_ORG_MATCHED_ACCOUNTS', matchingType: 'MUTUAL', companyPartnerPublicId: partnerId } },
    // First seen: every request is new to the caches (page and exact count computed).
    { name: 'first seen: default page + unique condition', path: `${GVA}/records`, body: {}, vary: (n) => ({ filters: uniqueCondition(n) }), floor: { report: 'GLOBAL_VERTICAL_ACCOUNTS', query: {} } },
    { name: 'first seen: exact filter', path: `${GVA}/records`, body: {}, vary: (n) => ({ filters: { country: `DE-,-zz${n}` } }), floor: { report: 'GLOBAL_VERTICAL_ACCOUNTS', query: {} } },
    { name: 'first seen: contains on two columns', path: `${GVA}/records`, body: {}, vary: (n) => ({ filters: { account_name: 'tech-?-', city: 'an-?-', ...uniqueCondition(n) } }), floor: { report: 'GLOBAL_VERTICAL_ACCOUNTS', query: {} } },
    { name: 'first seen: range on a date and a number', path: `${GVA}/records`, body: {}, vary: (n) => ({ filters: { partner_first_match_date: '1735689600<->1767225600', number_of_employees: `100<->${n}` } }), floor: { report: 'GLOBAL_VERTICAL_ACCOUNTS', query: {} } },
    { name: 'first seen: free-text search', path: `${GVA}/records`, body: {}, vary: (n) => ({ search: 'logistics', filters: uniqueCondition(n) }), floor: { report: 'GLOBAL_VERTICAL_ACCOUNTS', query: {} } },
    // Since the tenth session a search term's rows are selected once per data version and
    // kept (column-store.ts probes), so the scenario above pays one selection for
    // `logistics`; this one searches a term never seen before (matching nothing): each
    // request is a selection by the search text's trigram index (a scan before the
    // eleventh session).
    { name: 'first seen: search with a new term', path: `${GVA}/records`, body: {}, vary: (n) => ({ search: `q${n}x` }), floor: { report: 'GLOBAL_VERTICAL_ACCOUNTS', query: {} } },
    { name: 'first seen: sort by annual_revenue', path: `${GVA}/records?sort=annual_revenue,desc`, body: {}, vary: (n) => ({ filters: uniqueCondition(n) }), floor: { report: 'GLOBAL_VERTICAL_ACCOUNTS', query: { sort: 'annual_revenue,desc' } } },
    { name: 'first seen: filterdata string', path: `${GVA}/filterdata?filterField=industry`, body: {}, vary: (n) => ({ filters: uniqueCondition(n) }) },
    // The unique condition above rejects no stored `state`, so since the ninth session it is
    // resolved away (dictionary-filters.ts) and the stored values answer; this one keeps a
    // filter that selects rows (an exact country list, 7% of the rows).
    { name: 'first seen: filterdata string by country', path: `${GVA}/filterdata?filterField=industry`, body: {}, vary: (n) => ({ filters: { country: `DE-,-zz${n}` } }) },
    { name: 'first seen: dashboard filtered', path: `${GVA}/dashboard`, body: {}, vary: (n) => ({ filters: { country: `DE-,-zz${n}` } }) },
  ];
  return ONLY ? list.filter((s) => ONLY.includes(s.name)) : list;
}

function startServer(): Promise<{ child: ChildProcess; url: string; peakRss: () => number; rss: () => number; resetPeakRss: () => boolean }> {
  return new Promise((resolve, reject) => {
    const port = 18_000 + Math.floor(Math.random() * 1000);
    // The executable itself, so the server runs with the node flags of its first line.
    const child = spawn(join(ROOT, 'bin', 'partner-reports.js'), ['serve', '--port', String(port)], {
      env: { ...process.env, DATABASE_URL: benchUrl.toString(), RATE_LIMIT_PER_MINUTE: '10000000', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const url = `http://127.0.0.1:${port}`;
    // Writing 5 to clear_refs resets the peak (VmHWM) to the current RSS (Linux proc(5)),
    // so the download's own peak can be read apart from the scenarios before it.
    const resetPeakRss = () => {
      try {
        writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
        return true;
      } catch {
        return false;
      }
    };
    const statusKb = (field: 'VmHWM' | 'VmRSS') => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
      } catch {
        return 0;
      }
    };
    const peakRss = () => statusKb('VmHWM');
    const rss = () => statusKb('VmRSS');
    const deadline = Date.now() + 30_000;
    const poll = async () => {
      try {
        const res = await fetch(`${url}/readyz`);
        if (res.ok) return resolve({ child, url, peakRss, rss, resetPeakRss });
      } catch {
        /* not yet */
      }
      if (Date.now() > deadline) reject(new Error('server did not become ready'));
      else setTimeout(poll, 200);
    };
    child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
    void poll();
  });
}

// Numbers of first-seen bodies. From 1e6 up: a range scenario's upper bound is this
// number, above every stored employee count, so each request selects the same rows.
let requestCounter = 1e6 + Math.floor(Math.random() * 1e9);

/**
 * Drives a scenario for `seconds` at CONCURRENCY, from wrk when LOAD is wrk (bench/wrk.ts:
 * autocannon's own CPU per answer equals the server's, and they share two cores), else
 * from autocannon. A first-seen scenario's bodies are numbered from requestCounter either
 * way, and the counter moves past every number used.
 */
async function drive(url: string, key: string, s: Scenario, seconds: number): Promise<Measured> {
  const vary = s.vary;
  if ((await loadGenerator()) === 'wrk') {
    const from = requestCounter;
    const body = vary ? { vary: (n: number) => JSON.stringify(vary(n)), from } : JSON.stringify(s.body);
    const r = await runWrk({ url: `${url}${s.path}`, method: 'POST', headers: { 'api-key': key, 'content-type': 'application/json' }, body, connections: CONCURRENCY, seconds, timeoutSeconds: TIMEOUT_SECONDS });
    // wrk counts the requests it completed; its script check and the requests still open
    // when it stopped used numbers too.
    if (vary) requestCounter = from + r.requests + r.errors + CONCURRENCY + 1;
    return { ...r, loadGenerator: 'wrk' };
  }
  const r = await autocannon({
    url: `${url}${s.path}`,
    method: 'POST',
    headers: { 'api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(s.body),
    connections: CONCURRENCY,
    duration: seconds,
    timeout: TIMEOUT_SECONDS,
    ...(vary ? { requests: [{ setupRequest: (req: any) => ({ ...req, body: JSON.stringify(vary(requestCounter++)) }) }] } : {}),
  });
  return { p50: r.latency.p50, p99: r.latency.p99, rps: Math.round(r.requests.average), requests: r.requests.total, errors: r.errors, non2xx: r.non2xx, loadGenerator: 'autocannon' };
}

/** BENCH_LOAD (`wrk` or `autocannon`); by default wrk when it is installed. */
let chosenLoad: Promise<'wrk' | 'autocannon'> | undefined;
function loadGenerator(): Promise<'wrk' | 'autocannon'> {
  chosenLoad ??= (async () => {
    const asked = process.env.BENCH_LOAD;
    if (asked !== undefined && asked !== 'wrk' && asked !== 'autocannon') throw new Error(`BENCH_LOAD must be wrk or autocannon, got ${asked}`);
    const available = await wrkAvailable();
    if (asked === 'wrk' && !available) throw new Error('BENCH_LOAD=wrk, but wrk is not installed (Debian: apt-get install wrk)');
    const load = asked ?? (available ? 'wrk' : 'autocannon');
    log(`scenarios driven by ${load}${available ? '' : ' (wrk is not installed; Debian: apt-get install wrk)'}`);
    return load;
  })();
  return chosenLoad;
}

/**
 * One request of the scenario, awaited, before its warm-up: whatever the first request of
 * a data version sets off (a column store load of 2-7 s at 2,000,000 rows, which every
 * request needing that column then waits for) ends here and not inside the measured
 * seconds, which a warm-up of fixed length does not ensure. Its time is reported as the
 * scenario's `firstMs`, so the cold cost stays visible.
 */
async function prime(url: string, key: string, s: Scenario): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}${s.path}`, { method: 'POST', headers: { 'api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(s.vary ? s.vary(requestCounter++) : s.body) });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${s.name}: the first request answered ${res.status}`);
  return Math.round(performance.now() - started);
}

/**
 * p50 of the same SQL (page + count, as the service runs them) straight against
 * PostgreSQL, at the same concurrency, sent as the service sends it: through the same
 * database layer (src/db/database.ts), so with the same session settings and the same
 * statements prepared (src/db/prepared.ts: the dictionary resolution and the page; the
 * count unnamed).
 */
async function floor(s: Scenario, floorDb: Database, meta: Awaited<ReturnType<typeof loadOrgMetadata>>, pre: Precomputed): Promise<number> {
  const { Kysely, PostgresAdapter, DummyDriver, PostgresIntrospector, PostgresQueryCompiler } = await import('kysely');
  const compiler = new Kysely<unknown>({ dialect: { createAdapter: () => new PostgresAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (k) => new PostgresIntrospector(k), createQueryCompiler: () => new PostgresQueryCompiler() } });
  const errors: { field: string; message: string }[] = [];
  const paging = parsePaging({ ...Object.fromEntries(new URLSearchParams(s.path.split('?')[1] ?? '')), ...s.floor!.query }, errors);
  // The statements the service runs for this plan when nothing is cached (direct-sql.ts):
  // the page, and the count unless it is precomputed.
  // Dictionary filters are resolved first, as the service does (one small statement per
  // such filter, dictionary-filters.ts), and that round trip is part of the floor's time.
  const run: RunQuery = <T>(q: Parameters<RunQuery>[0]) => floorDb.rows<T>(q.compile(compiler), { prepare: true });
  const statements = async (body: Record<string, unknown>) => {
    const built = accelerate(buildPlan({ report: reportById(s.floor!.report as never), meta, body: parseReportBody(body), paging, nowSeconds: Math.floor(Date.now() / 1000) }), pre);
    const t = performance.now();
    const plan = await resolveSearchValues(await resolveDictionaryFilters(built, run), run);
    const resolving = performance.now() - t;
    const count = countStatement(plan, pre);
    const page = pageStatement(plan, 10_000).compile(compiler);
    return { resolving, list: [() => floorDb.arrays(page, { prepare: true }), ...(typeof count === 'number' ? [] : [() => floorDb.rows(count.compile(compiler))])] };
  };
  // A repeated request's filters are resolved once (the service remembers them).
  const fixed = s.vary ? undefined : { ...(await statements(s.body)), resolving: 0 };
  const times: number[] = [];
  const until = Date.now() + Math.min(SECONDS, 5) * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) {
        const { resolving, list } = fixed ?? (await statements(s.vary!(requestCounter++)));
        const t = performance.now();
        await Promise.all(list.map((q) => q()));
        times.push(resolving + performance.now() - t);
      }
    }),
  );
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

async function csvThroughput(url: string, key: string): Promise<{ rows: number; seconds: number; rowsPerSecond: number }> {
  const started = performance.now();
  const res = await fetch(`${url}/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/download`, { method: 'POST', headers: { 'api-key': key, 'content-type': 'application/json' }, body: '{}' });
  let rows = -1; // header line
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    // Buffer.indexOf (memchr) rather than a byte loop: the client shares the 2 cores with the server.
    const chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) rows++;
  }
  const seconds = (performance.now() - started) / 1000;
  return { rows, seconds, rowsPerSecond: Math.round(rows / seconds) };
}

async function main(): Promise<void> {
  log(`benchmark: scale ${SCALE}, ${SECONDS} s per scenario at concurrency ${CONCURRENCY}`);
  try {
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
  } catch {
    log('(the build reported type errors; the emitted JavaScript is used anyway)');
  }
  const data = await prepareData();
  const { child, url, peakRss, rss, resetPeakRss } = await startServer();
  // The floor's sessions run as the service's do (src/db/database.ts: JIT off, prepared
  // statements planned for their values): otherwise the floor would pay JIT compilation or
  // parsing the service never pays.
  const floorDb = await openDatabase({ databaseUrl: benchUrl.toString(), migrate: false, maxConnections: CONCURRENCY });
  const database = await openDatabase({ databaseUrl: benchUrl.toString(), migrate: false });
  const org = await database.db.selectFrom('orgs').select('id').where('public_id', '=', DEMO_ORG_PUBLIC_ID).executeTakeFirstOrThrow();
  const meta = await loadOrgMetadata(database.db, org.id);
  const pre = await loadPrecomputed(database.db, org.id);
  const results: Result[] = [];
  try {
    for (const s of scenarios(data.partnerId, data.partnerIds, data.rows)) {
      const firstMs = await prime(url, data.key, s);
      log(`- ${s.name}: first request ${firstMs} ms; warming up`);
      await drive(url, data.key, s, WARMUP);
      const r = await drive(url, data.key, s, SECONDS);
      const result: Result = { name: s.name, ...r, firstMs };
      if (s.floor) {
        result.floorP50 = Number((await floor(s, floorDb, meta, pre)).toFixed(2));
        result.ratio = result.floorP50 > 0 ? Number((result.p50 / result.floorP50).toFixed(2)) : undefined;
      }
      results.push(result);
      log(`  p50 ${result.p50} ms, p99 ${result.p99} ms, ${result.rps} req/s${result.floorP50 !== undefined ? `, direct SQL p50 ${result.floorP50} ms (ratio ${result.ratio})` : ''}${result.non2xx ? `, ${result.non2xx} non-2xx!` : ''}${result.errors ? `, ${result.errors} without an answer within ${TIMEOUT_SECONDS} s (${r.loadGenerator} timeout)` : ''}${r.loadGenerator === 'wrk' ? ' (wrk)' : ''}`);
    }
    const p0 = results.find((r) => r.name === 'page 0 of size 2000');
    const p999 = results.find((r) => r.name === 'page 999 of size 2000');
    const deepPageRatio = p0 && p999 && p0.p50 > 0 ? Number((p999.p50 / p0.p50).toFixed(2)) : undefined;
    if (deepPageRatio !== undefined) log(`page 999 / page 0 (size 2000) p50 ratio: ${deepPageRatio}`);
    log('- CSV download of every GLOBAL_VERTICAL_ACCOUNTS row');
    const runPeak = peakRss();
    const csvAlone = resetPeakRss();
    const rssBefore = rss();
    const csvResult = ONLY && !ONLY.includes('csv') ? undefined : await csvThroughput(url, data.key);
    const csv = csvResult && { ...csvResult, serverPeakRssBytes: csvAlone ? peakRss() : null, serverRssBeforeBytes: rssBefore };
    if (csv) log(`  ${csv.rows} rows in ${csv.seconds.toFixed(1)} s = ${csv.rowsPerSecond} rows/s; server peak RSS during the download ${csv.serverPeakRssBytes === null ? 'not measurable' : `${(csv.serverPeakRssBytes / 1048576).toFixed(0)} MiB`} (${(rssBefore / 1048576).toFixed(0)} MiB when it started)`);
    const report = {
      at: new Date().toISOString(),
      commit: (() => {
        try {
          return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT }).toString().trim();
        } catch {
          return 'unknown';
        }
      })(),
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryBytes: totalmem(), platform: platform(), release: release(), node: process.version },
      scale: SCALE,
      overlapRows: data.rows,
      import: data.importSeconds === null ? null : { seconds: data.importSeconds, rowsPerSecond: Math.round(data.rows / data.importSeconds) },
      concurrency: CONCURRENCY,
      seconds: SECONDS,
      scenarios: results,
      deepPageRatio,
      csv,
      // Over the whole run: the scenarios before the download, or the download if larger.
      serverPeakRssBytes: Math.max(runPeak, peakRss()),
    };
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    const file = join(ROOT, 'bench', 'results', `${report.at.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(report, null, 2));
    log(`server peak RSS ${(report.serverPeakRssBytes / 1048576).toFixed(0)} MiB; results in ${file}`);
  } finally {
    child.kill('SIGTERM');
    await floorDb.close();
    await database.close();
  }
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
