/**
 * Injection corpus against every endpoint the app serves (contract section 1, the access
 * issue): quotes, `;`, SQL comments, LIKE metacharacters, unicode, very long strings, NUL,
 * CR/LF and numeric edge cases, sent in every header that matters, every path parameter,
 * every query parameter and every body field. Each answer must be 2xx/304 or a 4xx
 * RFC 9457 problem (never 5xx), carry a safe `x-request-id`, and a valid request must
 * answer exactly as before afterwards (no corrupted state).
 *
 * Endpoints and body fields are read from the app's own OpenAPI document, so a new
 * endpoint or a new body field is fuzzed without touching this file. Sampling keeps the
 * run short: every corpus value in every field for one report of each family (and for the
 * channel, admin, auth and listing endpoints), one value per field (rotating) for the rest.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { ORG, USERS } from '../fixtures/small-bundle.js';
import { hashPassword } from '../../src/server/access/passwords.js';

const LONG = 'x'.repeat(20_000);
const SIGN_IN_PASSWORD = 'correct horse battery staple';

export const CORPUS: readonly string[] = [
  "'",
  "' OR '1'='1",
  '"; DROP TABLE orgs; --',
  '1); select pg_sleep(10); /*',
  '%_\\',
  'ünïcödé ✓ 𝔘 \u202e RTL',
  'a\u0000b',
  LONG,
  '\r\nX-Injected: 1',
  '${jndi:ldap://x}{{7*7}}<script>',
  '',
  '-1',
  '1.5',
  '1e400',
  '99999999999999999999',
  '-,-<->-!-',
]

/** Request ids the app may echo (app.ts genReqId); anything else must be replaced. */
const SAFE_REQUEST_ID = /^[\w.:-]{1,128}$/;

interface Req {
  method: string;
  path: string;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  /** undefined: no body; a string: sent raw. */
  body: unknown;
}

interface Endpoint {
  method: string;
  /** OpenAPI path template, e.g. /v1/admin/api-keys/{id}. */
  template: string;
  isPublic: boolean;
  bodySchema: JsonSchema | undefined;
  queryNames: string[];
  pathParams: string[];
}

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  patternProperties?: Record<string, JsonSchema>;
}

type Mutation = { field: string; apply: (req: Req, value: string) => void };

const clone = (r: Req): Req => ({ method: r.method, path: r.path, query: r.query.map(([k, v]) => [k, v]), headers: { ...r.headers }, body: structuredClone(r.body) });

function setQuery(req: Req, name: string, value: string): void {
  req.query = req.query.filter(([k]) => k !== name);
  req.query.push([name, value]);
}

function setIn(body: unknown, path: string[], value: unknown): unknown {
  const root = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  let node = root;
  for (const key of path.slice(0, -1)) {
    if (!node[key] || typeof node[key] !== 'object' || Array.isArray(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
  return root;
}

const typesOf = (s: JsonSchema): string[] => {
  if (s.anyOf || s.oneOf) return [...(s.anyOf ?? []), ...(s.oneOf ?? [])].flatMap(typesOf);
  return Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
};

/** Column keys of one report by type, for filters that reach the planner. */
interface Keys {
  text?: string;
  number?: string;
  date?: string;
  boolean?: string;
}

/** Body mutations from a JSON schema: every property, nested objects, map keys and values. */
function bodyMutations(schema: JsonSchema, prefix: string[], keys: Keys): Mutation[] {
  const out: Mutation[] = [];
  const name = (p: string[]) => `body.${p.join('.')}`;
  for (const [prop, sub] of Object.entries(schema.properties ?? {})) {
    const path = [...prefix, prop];
    const types = typesOf(sub);
    if (sub.properties) {
      out.push(...bodyMutations(sub, path, keys));
      out.push({ field: `${name(path)}(string)`, apply: (r, v) => void (r.body = setIn(r.body, path, v)) });
      continue;
    }
    if (types.includes('object') && sub.additionalProperties !== false) {
      // A map such as `filters`: hostile keys, and hostile values under real column keys
      // in every syntax of the filter language.
      out.push({ field: `${name(path)}{key}`, apply: (r, v) => void (r.body = setIn(r.body, path, { [v]: 'x' })) });
      const forms: Array<[keyof Keys, string, (v: string) => string]> = [
        ['text', 'exact', (v) => v],
        ['text', 'contains', (v) => `${v}-?-`],
        ['text', 'notEqual', (v) => `${v}-,-x-!-`],
        ['text', 'doesNotContain', (v) => `${v}-^-`],
        ['number', 'range', (v) => `${v}<->`],
        ['date', 'range', (v) => `<->${v}`],
        ['date', 'range2', (v) => `-1<->${v}`],
        ['boolean', 'exact', (v) => v],
      ];
      for (const [kind, label, form] of forms) {
        const key = keys[kind];
        if (key) out.push({ field: `${name(path)}.${key}(${label})`, apply: (r, v) => void (r.body = setIn(r.body, [...path, key], form(v))) });
      }
      continue;
    }
    if (types.includes('array')) {
      out.push({ field: `${name(path)}[]`, apply: (r, v) => void (r.body = setIn(r.body, path, [v])) });
      out.push({ field: `${name(path)}(string)`, apply: (r, v) => void (r.body = setIn(r.body, path, v)) });
      continue;
    }
    out.push({ field: name(path), apply: (r, v) => void (r.body = setIn(r.body, path, v)) });
    if (types.some((t) => t === 'number' || t === 'integer')) {
      // The same value as a JSON number, where it is one (1e400 is not: JSON cannot say it).
      out.push({
        field: `${name(path)}(number)`,
        apply: (r, v) => {
          const n = Number(v);
          r.body = setIn(r.body, path, v.trim() !== '' && Number.isFinite(n) ? n : v);
        },
      });
    }
  }
  // Paired bounds (xStart with xEnd) reach the query only together.
  for (const prop of Object.keys(schema.properties ?? {})) {
    const end = prop.replace(/Start$/, 'End');
    if (end === prop || !schema.properties![end]) continue;
    out.push({ field: `${name([...prefix, `${prop}+${end}`])}`, apply: (r, v) => void (r.body = setIn(setIn(r.body, [...prefix, prop], v), [...prefix, end], v)) });
    out.push({
      field: `${name([...prefix, `${prop}+${end}`])}(number)`,
      apply: (r, v) => {
        const n = v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
        r.body = setIn(setIn(r.body, [...prefix, prop], n), [...prefix, end], n);
      },
    });
  }
  // A hostile unknown field at this level.
  out.push({ field: `${name([...prefix, '{unknown}'])}`, apply: (r, v) => void (r.body = setIn(r.body, [...prefix, v || 'empty'], v)) });
  return out;
}

function mutationsFor(e: Endpoint, keys: Keys): Mutation[] {
  const out: Mutation[] = [
    { field: 'header.api-key', apply: (r, v) => void (r.headers['api-key'] = v) },
    {
      field: 'header.authorization',
      apply: (r, v) => {
        delete r.headers['api-key'];
        r.headers.authorization = `Bearer ${v}`;
      },
    },
    { field: 'header.x-request-id', apply: (r, v) => void (r.headers['x-request-id'] = v) },
    { field: 'header.if-none-match', apply: (r, v) => void (r.headers['if-none-match'] = v) },
    { field: 'header.accept', apply: (r, v) => void (r.headers.accept = v) },
  ];
  if (e.method !== 'GET' && e.method !== 'DELETE') {
    out.push({ field: 'header.content-type', apply: (r, v) => void (r.headers['content-type'] = v) });
    out.push({ field: 'body(raw)', apply: (r, v) => void (r.body = v) });
  }
  for (const p of e.pathParams) {
    out.push({ field: `path.${p}`, apply: (r, v) => void (r.path = r.path.replace(`{${p}}`, encodeURIComponent(v))) });
  }
  // The report type is a path parameter of the report-analytics routes (one literal
  // route per report, with a parametric fallback for unknown ones).
  const reportSegment = /^(\/v1\/report-analytics\/report\/)([^/]+)(\/[^/]+)$/.exec(e.template);
  if (reportSegment) out.push({ field: 'path.reportType', apply: (r, v) => void (r.path = `${reportSegment[1]}${encodeURIComponent(v)}${reportSegment[3]}`) });
  const queryNames = new Set([...e.queryNames, 'page', 'size', 'sort', 'filterField', 'filterSearch', 'unknownParam']);
  for (const q of queryNames) out.push({ field: `query.${q}`, apply: (r, v) => setQuery(r, q, v) });
  out.push({ field: 'query.sort(repeated)', apply: (r, v) => void r.query.push(['sort', 'x'], ['sort', v]) });
  out.push({ field: 'query.page(repeated)', apply: (r, v) => void r.query.push(['page', '0'], ['page', v]) });
  out.push({ field: 'query.{name}', apply: (r, v) => void r.query.push([v || 'empty', '1']) });
  if (e.bodySchema) out.push(...bodyMutations(e.bodySchema, [], keys));
  return out;
}

function urlOf(r: Req): string {
  const path = r.path.replace(/\{(\w+)\}/g, '00000000-0000-4000-8000-000000000000');
  if (!r.query.length) return path;
  return `${path}?${r.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`;
}

const short = (v: unknown) => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

/** Problems with one response; empty when it is acceptable. */
function check(res: LightMyRequestResponse, sentRequestId: string | undefined): string[] {
  const problems: string[] = [];
  const status = res.statusCode;
  const requestId = res.headers['x-request-id'];
  if (typeof requestId !== 'string' || !SAFE_REQUEST_ID.test(requestId)) problems.push(`x-request-id ${short(requestId)}`);
  else if (sentRequestId !== undefined && SAFE_REQUEST_ID.test(sentRequestId) && requestId !== sentRequestId) problems.push('a safe x-request-id was not echoed');
  if (status >= 500) return [...problems, `status ${status}: ${res.body.slice(0, 300)}`];
  if (status < 200 || (status >= 300 && status < 400 && status !== 304)) return [...problems, `status ${status}`];
  if (status >= 400) {
    if (!/^application\/problem\+json/.test(String(res.headers['content-type']))) problems.push(`content-type ${res.headers['content-type']}`);
    let body: Record<string, unknown>;
    try {
      body = res.json();
    } catch {
      return [...problems, 'problem body is not JSON'];
    }
    for (const f of ['type', 'title', 'detail', 'instance']) if (typeof body[f] !== 'string') problems.push(`problem.${f} missing`);
    if (body.status !== status) problems.push(`problem.status ${short(body.status)} != ${status}`);
    if (status === 400) {
      const errors = body.errors as Array<Record<string, unknown>> | undefined;
      if (!Array.isArray(errors) || !errors.length || errors.some((e) => typeof e.field !== 'string' || typeof e.message !== 'string')) problems.push(`400 without errors[{field,message}]: ${res.body.slice(0, 200)}`);
    }
    if (/\n\s+at |node_modules|\/src\//.test(res.body)) problems.push('problem body shows internals');
    // A hostile value may be named in the answer, but not be reflected without bound.
    if (res.body.length > 16_384) problems.push(`problem body of ${res.body.length} characters`);
  }
  if (status === 401 && res.headers['www-authenticate'] !== 'ApiKey, Bearer') problems.push('401 without WWW-Authenticate: ApiKey, Bearer');
  return problems;
}

for (const engine of engines) {
  describe(`injection corpus on ${engine.name}`, () => {
    let f: FixtureApp;
    let endpoints: Endpoint[];
    const keysByReport = new Map<string, Keys>();
    let address = 0;

    before(async () => {
      f = await fixtureApp(engine, { config: { jwtSecret: 'injection-test-secret-0123456789abcdef' } });
      await f.database.db.updateTable('users').set({ password_hash: await hashPassword(SIGN_IN_PASSWORD) }).where('email', '=', USERS.ACME_ADMIN).execute();
      const doc = (await f.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      endpoints = [];
      for (const [template, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
        for (const [method, op] of Object.entries(item)) {
          if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
          const params = (op.parameters ?? []) as Array<{ in: string; name: string }>;
          endpoints.push({
            method: method.toUpperCase(),
            template,
            isPublic: Array.isArray(op.security) && op.security.length === 0,
            bodySchema: op.requestBody?.content?.['application/json']?.schema,
            queryNames: params.filter((p) => p.in === 'query').map((p) => p.name),
            pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
          });
        }
      }
      // Public routes the document hides.
      for (const template of ['/healthz', '/readyz', '/openapi.json']) endpoints.push({ method: 'GET', template, isPublic: true, bodySchema: undefined, queryNames: [], pathParams: [] });
      // Column keys of each report, from the app's own column metadata.
      const pick = (columns: Array<{ key: string; type: string; isPartnerData: boolean }>): Keys => {
        const of = (types: string[]) => columns.find((c) => types.includes(c.type) && !c.isPartnerData)?.key;
        const k: Keys = {};
        const text = of(['string']);
        const number = of(['number', 'currency']);
        const date = of(['date']);
        const boolean = of(['boolean']);
        if (text) k.text = text;
        if (number) k.number = number;
        if (date) k.date = date;
        if (boolean) k.boolean = boolean;
        return k;
      };
      for (const e of endpoints) {
        const m = /^\/v1\/report-analytics\/report\/([A-Z_]+)\/records$/.exec(e.template);
        if (m) keysByReport.set(m[1]!, pick(await f.ok(`/v1/report-analytics/report/${m[1]}/columns`, baseBody(m[1]!))));
      }
      keysByReport.set('channel', pick(await f.ok('/v1/channelecosystem/columns', CHANNEL_BASE)));
    });
    after(() => f.close());

    const ATTRIBUTION = /PIPELINE_ATTRIBUTION|ATTRIBUTION_EVENTS/;
    const CHANNEL_BASE = { channelReportType: 'PARTNER_ORG_MATCHED_ACCOUNTS', matchingType: 'MUTUAL', companyPartnerPublicId: ORG.ALPHA };
    function baseBody(reportId: string): Record<string, unknown> {
      return ATTRIBUTION.test(reportId) ? { context: { partnerPublicIds: [ORG.ALPHA, ORG.BETA], eventTypeCodes: ['ACTION_LIST', 'WORKFLOW'] } } : {};
    }
    const reportOf = (template: string) => /\/report\/([A-Z_]+)\//.exec(template)?.[1] ?? (template.startsWith('/v1/channelecosystem/') ? 'channel' : undefined);

    /** A request the endpoint answers normally (2xx, or 404 for a key id that does not exist). */
    function baseRequest(e: Endpoint): Req {
      const report = reportOf(e.template);
      const keys = report ? keysByReport.get(report) ?? {} : {};
      const req: Req = { method: e.method, path: e.template, query: [], headers: e.isPublic ? {} : { 'api-key': f.keys.acme }, body: undefined };
      if (e.template.endsWith('/filterdata') && keys.text) req.query.push(['filterField', keys.text]);
      if (e.method === 'POST') {
        req.headers['content-type'] = 'application/json';
        if (e.template === '/v1/auth/token') req.body = { email: USERS.ACME_MEMBER, password: 'not the password' };
        else if (e.template === '/v1/admin/api-keys') req.body = { name: 'fuzz' };
        else if (report === 'channel') req.body = e.template.endsWith('/columns') ? { ...CHANNEL_BASE } : { ...CHANNEL_BASE, search: '', filters: {} };
        else if (report) req.body = baseBody(report);
        else req.body = {};
      }
      return req;
    }

    function send(r: Req): Promise<LightMyRequestResponse> {
      const payload = r.body === undefined ? undefined : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
      // Sign-in is limited per client address: give each request its own.
      address++;
      const remoteAddress = `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`;
      return f.app.inject({ method: r.method as 'GET', url: urlOf(r), headers: r.headers, remoteAddress, ...(payload === undefined ? {} : { payload }) });
    }

    /**
     * Every corpus value in every field of one report of each family (report-analytics with
     * a context, channel-ecosystem) and of key creation; one value per field
     * (rotating through the corpus) everywhere else.
     */
    const FULL = /^POST (\/v1\/report-analytics\/report\/ATTRIBUTION_EVENTS\/records|\/v1\/channelecosystem\/records|\/v1\/admin\/api-keys)$/;

    test('the OpenAPI document lists every endpoint family', () => {
      const paths = new Set(endpoints.map((e) => `${e.method} ${e.template}`));
      for (const expected of [
        'POST /v1/report-analytics/report/ATTRIBUTION_EVENTS/records',
        'POST /v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/download',
        'POST /v1/channelecosystem/filterdata',
        'GET /v1/channelecosystem/report-names',
        'GET /v1/attribution/event-types',
        'DELETE /v1/admin/api-keys/{id}',
        'POST /v1/auth/token',
      ]) {
        assert.ok(paths.has(expected), `${expected} is not in /openapi.json`);
      }
      assert.ok(endpoints.length >= 30, `only ${endpoints.length} endpoints`);
    });

    test('every corpus value in every header, path, query and body field: 2xx or 4xx problem+json, never 5xx', async () => {
      const failures: string[] = [];
      let sent = 0;
      let rotation = 0;
      for (const e of endpoints) {
        const report = reportOf(e.template);
        const base = baseRequest(e);
        const before = await send(clone(base));
        assert.ok(before.statusCode < 500, `${e.method} ${e.template} base request: ${before.statusCode} ${before.body.slice(0, 200)}`);
        const full = FULL.test(`${e.method} ${e.template}`);
        const t0 = performance.now();
        const jobs: Array<{ label: string; req: Req; requestId: string | undefined }> = [];
        for (const m of mutationsFor(e, report ? keysByReport.get(report) ?? {} : {})) {
          const values = full ? CORPUS : [CORPUS[rotation++ % CORPUS.length]!];
          for (const v of values) {
            const req = clone(base);
            m.apply(req, v);
            jobs.push({ label: `${e.method} ${e.template} ${m.field}=${short(v)}`, req, requestId: req.headers['x-request-id'] });
          }
        }
        // A few at a time: the app is shared, the database answers one query at a time anyway.
        for (let i = 0; i < jobs.length; i += 8) {
          const batch = jobs.slice(i, i + 8);
          const responses = await Promise.all(batch.map((j) => send(j.req).catch((err: Error) => err)));
          sent += responses.length;
          responses.forEach((res, k) => {
            if (res instanceof Error) failures.push(`${batch[k]!.label}: no response (${res.message})`);
            else for (const p of check(res, batch[k]!.requestId)) failures.push(`${batch[k]!.label}: ${p}`);
          });
        }
        if (process.env.INJECTION_TIMING) console.log(`${e.method} ${e.template} ${jobs.length} requests ${(performance.now() - t0).toFixed(0)} ms`);
        // Nothing the corpus sent changed what a valid request gets. Sign-in attempts are
        // limited per email, so there a real sign-in of another user must still work.
        if (e.template === '/v1/auth/token') {
          const signIn = await send({ ...clone(base), body: { email: USERS.ACME_ADMIN, password: SIGN_IN_PASSWORD } });
          if (signIn.statusCode !== 200) failures.push(`${e.method} ${e.template}: a valid sign-in after the corpus got ${signIn.statusCode}`);
          continue;
        }
        const again = await send(clone(base));
        if (again.statusCode !== before.statusCode) failures.push(`${e.method} ${e.template}: valid request ${before.statusCode} before the corpus, ${again.statusCode} after`);
        else if (report && again.statusCode === 200 && again.body !== before.body) failures.push(`${e.method} ${e.template}: valid request answers differently after the corpus`);
      }
      assert.ok(sent > 1000, `only ${sent} requests sent`);
      if (process.env.INJECTION_FAILURES) (await import('node:fs')).writeFileSync(process.env.INJECTION_FAILURES, failures.join('\n'));
      assert.deepEqual(failures.slice(0, 40), [], `${failures.length} failures`);
    });

    test('a hostile x-request-id is replaced, a safe one echoed, on success and error alike', async () => {
      const url = '/v1/attribution/event-types';
      for (const hostile of ['a b', 'x'.repeat(129), 'id\r\nSet-Cookie: a=b', 'ünï', '<script>', '', 'a;b', '\u0000']) {
        for (const key of [f.keys.acme, 'prk_wrong']) {
          const res = await f.app.inject({ method: 'GET', url, headers: { 'api-key': key, 'x-request-id': hostile } });
          assert.notEqual(res.headers['x-request-id'], hostile);
          assert.match(String(res.headers['x-request-id']), SAFE_REQUEST_ID);
          if (res.statusCode >= 400) assert.equal(res.json().requestId, res.headers['x-request-id'], 'the problem names the same request id');
        }
      }
      const safe = 'trace-01.abc:DEF_9';
      for (const url2 of [url, '/no/such/path', '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records']) {
        const res = await f.app.inject({ method: 'GET', url: url2, headers: { 'api-key': f.keys.acme, 'x-request-id': safe } });
        assert.equal(res.headers['x-request-id'], safe, url2);
      }
      // Two requests without an id get two different generated ones.
      const [a, b] = await Promise.all([f.call('GET', url), f.call('GET', url)]);
      assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
    });
  });
}
