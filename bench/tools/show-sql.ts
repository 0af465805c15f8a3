/**
 * Prints the page and count statements the service runs (uncached) for one request,
 * with parameters inlined, for EXPLAIN on a bench database:
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/pr_q100 node --import tsx bench/tools/show-sql.ts REPORT '<json body>'
 */
import { Kysely, PostgresAdapter, DummyDriver, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import { openDatabase } from '../../src/db/database.js';
import { DEMO_ORG_PUBLIC_ID } from '../../src/demo/generate.js';
import { reportById } from '../../src/reports/catalog/index.js';
import { loadOrgMetadata } from '../../src/reports/metadata.js';
import { buildPlan } from '../../src/reports/plan.js';
import { accelerate, countStatement, pageStatement } from '../../src/reports/direct-sql.js';
import { loadPrecomputed } from '../../src/reports/precomputed.js';
import { parsePaging, parseReportBody } from '../../src/reports/request.js';

const [report, body = '{}', query = ''] = process.argv.slice(2);
const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, migrate: false });
const org = await database.db.selectFrom('orgs').select('id').where('public_id', '=', DEMO_ORG_PUBLIC_ID).executeTakeFirstOrThrow();
const meta = await loadOrgMetadata(database.db, org.id);
const pre = await loadPrecomputed(database.db, org.id);
const parsed = JSON.parse(body);
if (parsed.context?.partnerPublicIds === 'all') parsed.context.partnerPublicIds = [...meta.partners.values()].map((p) => p.publicId);
const compiler = new Kysely<unknown>({ dialect: { createAdapter: () => new PostgresAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (k) => new PostgresIntrospector(k), createQueryCompiler: () => new PostgresQueryCompiler() } });
const errors: { field: string; message: string }[] = [];
const paging = parsePaging(Object.fromEntries(new URLSearchParams(query)), errors);
const plan = accelerate(buildPlan({ report: reportById(report as never), meta, body: parseReportBody(parsed), paging, nowSeconds: Math.floor(Date.now() / 1000) }), pre);
const count = countStatement(plan, pre);
const inline = (q: { sql: string; parameters: readonly unknown[] }) =>
  q.sql.replace(/\$(\d+)/g, (_, i) => {
    const v = q.parameters[Number(i) - 1];
    const lit = (x: unknown): string => (typeof x === 'number' ? String(x) : typeof x === 'boolean' ? String(x) : `'${String(x).replace(/'/g, "''")}'`);
    return Array.isArray(v) ? `'{${v.map((x) => (typeof x === 'string' ? `"${x}"` : String(x))).join(',')}}'` : lit(v);
  });
for (const s of [pageStatement(plan, 10_000), ...(typeof count === 'number' ? [] : [count])]) process.stdout.write(`${inline(s.compile(compiler))};\n\n`);
void sql;
await database.close();
