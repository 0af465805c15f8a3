/**
 * buildApp(deps): the whole HTTP service without listening, so tests drive it with
 * `inject` and server.ts adds only the socket and the shutdown. Dependencies (database,
 * clock, logger, stores) are passed in; nothing here is a module-level singleton.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import helmet from '@fastify/helmet';
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.js';
import { isDatabaseUnavailable, type Database } from '../db/database.js';
import { ApiError, MAX_FIELD_LENGTH, problemBody, unavailable, validationError, type FieldError } from './errors.js';
import { DATABASE_PENDING, registerHealthRoutes } from './routes/health.js';
import { registerDocs } from './docs.js';
import { registerAccess, type AccessOptions } from './access/index.js';
import { registerReportAnalyticsRoutes } from './routes/report-analytics.js';
import { registerChannelEcosystemRoutes } from './routes/channel-ecosystem.js';
import { createAnswerMemo } from './routes/report-call.js';
import { registerAdminRoutes } from './routes/admin.js';
import { registerAuthRoutes } from './routes/auth.js';
import { trackRoutesForMethodNotAllowed } from './routes/method-not-allowed.js';
import { dropNullOptionals, notJson, registerBodyParsers } from './body.js';
import { createReportService, type ReportService, type ReportServiceDeps } from '../reports/service.js';
import { DataChanged, serviceStateReader } from '../reports/data-version.js';
import { jsonPayload } from '../reports/cache.js';

export interface AppDeps {
  config: Config;
  database: Database;
  /** Milliseconds since the epoch; tests inject a fixed or stepping clock. */
  clock?: () => number;
  /** pino options, `false` for silence; tests pass `false`. */
  logger?: boolean | Record<string, unknown>;
  /** Where the default logger writes (default stdout); tests capture it. */
  logStream?: NodeJS.WritableStream;
  access?: Partial<AccessOptions>;
  /** Report engine options (cache, keyset threshold); defaults suit production. */
  reports?: Partial<Omit<ReportServiceDeps, 'database' | 'clock'>>;
  /**
   * Set when the server was started while its database did not answer (cli/serve.ts):
   * undefined once the database answers and is migrated, else why not yet. Until then
   * every route but the liveness probe and the API description answers 503.
   */
  databasePending?: () => string | undefined;
}

export type App = FastifyInstance;

const notFoundPath = (request: FastifyRequest) => new ApiError({ status: 404, code: 'PR404', title: 'Not Found', detail: `no endpoint ${request.method} ${request.url.split('?')[0]}` });

/** Routes whose answers are the same for everyone: the probes and the API description. */
const SHARED_ANSWERS = /^\/(healthz|readyz|openapi\.json|docs)(\/|$)/;

/** Cache-Control and Vary of an answer for one caller (the onSend hook below; router errors). */
function privateAnswer(reply: FastifyReply, cacheControl: string): void {
  reply.header('cache-control', cacheControl);
  const vary = reply.getHeader('vary');
  if (!/api-key/.test(String(vary ?? ''))) reply.header('vary', vary === undefined || vary === '' ? 'api-key, authorization' : `${String(vary)}, api-key, authorization`);
}

/** Query parameters named like a credential (`api-key`, `apikey`, `access_token`, `token`, `password`, ...). */
const CREDENTIAL_PARAMETER = /^(api[-_]?key|access[-_]?token|token|authorization|password|secret)$/i;

/** A URL as logged: the values of credential-like query parameters replaced by [Redacted]. */
export function withoutQueryCredentials(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url.slice(q + 1).split('&').map((part) => {
    const eq = part.indexOf('=');
    let name = eq < 0 ? part : part.slice(0, eq);
    try {
      name = decodeURIComponent(name);
    } catch {
      // A name that is not valid percent-encoding is compared as written.
    }
    return eq >= 0 && CREDENTIAL_PARAMETER.test(name) ? `${part.slice(0, eq)}=[Redacted]` : part;
  });
  return `${url.slice(0, q)}?${query.join('&')}`;
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const clock = deps.clock ?? Date.now;
  const app = Fastify({
    logger: deps.logger ?? {
      level: deps.config.logLevel,
      // Credentials never reach the logs.
      redact: ['req.headers["api-key"]', 'req.headers.authorization'],
      // Fastify's request fields, with a credential a client put in the query string (the
      // service takes none there: 401) masked, as the headers are.
      serializers: { req: (req: { method?: string; url?: string; host?: string; ip?: string; socket?: { remotePort?: number } }) => ({ method: req.method, url: withoutQueryCredentials(req.url ?? ''), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort }) },
      ...(deps.logStream ? { stream: deps.logStream } : {}),
    },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      // Accept a caller's id only when it is short and printable; anything else could
      // forge log lines.
      return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
    },
    bodyLimit: 1024 * 1024,
    requestTimeout: deps.config.requestTimeoutMs,
    // A socket without traffic either way for that long is closed: a client that stopped
    // reading a download kept its socket, and the server its buffered batches (about 5 MB
    // each), for ever. A slow reader that takes bytes now and then is not cut off.
    connectionTimeout: deps.config.requestTimeoutMs,
    // A request that reaches the router while the server stops (pipelined, or on a busy
    // keep-alive connection) gets the service's own 503 (the onRequest hook below):
    // Fastify's answered in its own JSON shape, without Retry-After or a request id.
    return503OnClosing: false,
    clientErrorHandler: answerClientError,
    ajv: { customOptions: { allErrors: true, coerceTypes: false, removeAdditional: false } },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // Router-level errors (bad URL encoding, over-long path parameters) in the same format.
    frameworkErrors: (error, request, reply) => {
      // Sent before any hook runs: the headers every other answer gets.
      reply.header('x-request-id', request.id);
      privateAnswer(reply, 'private, no-cache');
      return sendProblem(toApiError(error), request, reply);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) throw unavailable('the server is shutting down; retry (another instance, or this one once it is back)');
  });
  // Contract section 1: a database that does not answer is a 503 with Retry-After, also
  // when it did not answer at start; the probes tell an orchestrator the same (/readyz 503,
  // /healthz 200). Before any credential check, which would need the database.
  // The public routes need no database, but /readyz, which says so itself (routes/health.ts).
  const pending = deps.databasePending;
  if (pending) {
    app.addHook('onRequest', async (request) => {
      const route = request.routeOptions.url;
      if (pending() === undefined || route === undefined || request.routeOptions.config?.public || route.startsWith('/docs')) return;
      throw unavailable(DATABASE_PENDING);
    });
  }
  // Answers depend on the caller, whose credentials travel in `api-key`, a header shared
  // caches do not know (RFC 9111 section 3.5 keeps them from reusing answers only to
  // requests with Authorization): `private` keeps every answer but the probes' and the API
  // description's out of them (errors included), `no-cache` lets a client keep one and
  // revalidate it with its ETag, and Vary names what the answer depends on. Sign-in answers
  // hold or refuse a credential: no cache keeps them at all (RFC 6749 section 5.1).
  // A plain function, not async: an async hook would defer every later onSend hook.
  // Decided by the route matched, not the URL's text (`/v1/auth/token/`, `%74oken` and an
  // absolute-form request line reach the same route); an unknown path is a caller's answer.
  app.addHook('onSend', (request, reply, payload, done) => {
    const route = request.routeOptions.url;
    if (route === undefined || !SHARED_ANSWERS.test(route)) privateAnswer(reply, route === '/v1/auth/token' ? 'no-store' : 'private, no-cache');
    done(null, payload);
  });

  // Response schemas document the API (OpenAPI); serialization is plain JSON.stringify so
  // rows keep the key order the caller chose with `columns` (fast-json-stringify would
  // reorder keys to the schema's order). jsonPayload: a page is sent as the bytes it was written to once.
  // Fastify's type says a serializer returns a string; its send path takes a Buffer as it is.
  app.setSerializerCompiler(() => (data) => jsonPayload(data) as string);

  registerBodyParsers(app);
  app.addHook('preValidation', async (request) => {
    if (request.method === 'POST' && request.body === undefined) (request as { body: unknown }).body = {};
    dropNullOptionals(request.body, request.routeOptions.schema?.body);
    // PostgreSQL text cannot hold NUL; refuse it up front, naming every field that had it.
    const body = fieldsWithNul(request.body, 'body');
    const query = fieldsWithNul(request.query, 'query');
    if (body.length || query.length) throw await withNulProblems(body, query, request);
  });

  app.setErrorHandler(async (error: FastifyError | ApiError, request, reply) => {
    const api = toApiError(error, request.body, request.routeOptions.schema?.body);
    let answer = api;
    try {
      answer = await withOtherProblems(api, error, request);
    } catch (err) {
      // Listing the other problems must never turn a 400 into a 500.
      request.log.warn({ err }, 'the other problems of a refused request could not be listed');
    }
    return sendProblem(answer, request, reply);
  });
  app.setNotFoundHandler((request, reply) => sendProblem(notFoundPath(request), request, reply));

  // A start that fails halfway closes what it opened (the rate limiter's Redis connection,
  // say): an open handle would keep a process alive that neither serves nor exits.
  try {
    // Security headers; the CSP is left to /docs' own page (a JSON API has no documents to protect).
    await app.register(helmet, { contentSecurityPolicy: false });
    // CORS only for the origins an operator lists.
    if (deps.config.corsOrigins.length) await app.register(cors, corsOptions(deps.config.corsOrigins));
    // An unknown path is 404 before its body is read (a body it sends is never 415 or 413);
    // after helmet's and CORS' hooks, so the 404 carries their headers as every answer does.
    app.addHook('onRequest', async (request) => {
      if (request.routeOptions.url === undefined) throw notFoundPath(request);
    });
    // Tracked from here, so the documentation's paths answer 405 to other methods too.
    const addMethodNotAllowed = trackRoutesForMethodNotAllowed(app);
    await registerDocs(app);
    registerHealthRoutes(app, { database: deps.database, ...(pending ? { pending } : {}) });
    // One versions reader for the access stage and the reports: one read per round trip.
    const readState = serviceStateReader(deps.database);
    const columnStore = deps.config.columnStoreMb > 0 ? { maxBytes: deps.config.columnStoreMb * 1024 * 1024 } : false;
    const reports: ReportService = createReportService({ readState, columnStore, ...deps.reports, database: deps.database, clock });
    await registerAccess(app, { config: deps.config, database: deps.database, clock, readState, ...deps.access });
    const answers = createAnswerMemo();
    registerReportAnalyticsRoutes(app, { reports, clock, answers });
    registerChannelEcosystemRoutes(app, { reports, clock, answers });
    registerAdminRoutes(app, { database: deps.database, config: deps.config, clock });
    registerAuthRoutes(app, { database: deps.database, config: deps.config, clock });
    addMethodNotAllowed();
  } catch (error) {
    await app.close().catch(() => {});
    throw error;
  }
  return app;
}

/**
 * CORS for the listed origins. Only a real preflight (OPTIONS with `Origin` and
 * `Access-Control-Request-Method`) is answered by the plugin: any other OPTIONS goes on
 * to the routes, so a known path answers 405 with `Allow` and an unknown one 404, as
 * without CORS (the plugin's strict mode answered them 400 in plain text). Browsers may
 * read the headers the service documents (request id, tag, timing, rate limit, download
 * name), and revoke keys (DELETE).
 */
function corsOptions(origins: string[]): FastifyCorsOptions {
  const base = {
    origin: origins,
    methods: ['GET', 'HEAD', 'POST', 'DELETE'],
    allowedHeaders: ['api-key', 'authorization', 'content-type', 'if-none-match', 'x-request-id'],
    exposedHeaders: ['x-request-id', 'etag', 'server-timing', 'ratelimit', 'ratelimit-policy', 'retry-after', 'content-disposition', 'www-authenticate', 'allow'],
  };
  return {
    delegator: (request, callback) => {
      const preflight = request.method === 'OPTIONS' && request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined;
      callback(null, { ...base, preflight });
    },
  };
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers over 16 KB, a
 * malformed request line, a client too slow to send its headers) answered as every other
 * error is: problem+json with a request id (contract section 1), then the connection is
 * closed, since the parser cannot tell where a next request would start. No request was
 * parsed, so `instance` names the occurrence (`urn:uuid:<request id>`), not a path.
 */
function answerClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  // Node's limit counts the request line (the URL) with the headers.
  const detail = status === 431 ? 'the URL and headers together are larger than 16 KB' : status === 408 ? 'the request (its headers and body) did not arrive in time' : 'the request is not valid HTTP';
  const id = randomUUID();
  const body = JSON.stringify(problemBody(new ApiError({ status, code: `PR${status}`, title: STATUS_CODES[status]!, detail }), `urn:uuid:${id}`, id));
  this.log.debug({ err: error, requestId: id }, 'client error');
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  } else socket.destroy(error);
}

/** The steps of a JSON pointer (RFC 6901: `~1` is `/`, `~0` is `~`): `/context/a~1b` -> ['context', 'a/b']. */
const pointerSteps = (pointer: string): string[] => pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));

/** A JSON pointer to `steps`, the inverse of pointerSteps. */
const pointerOf = (steps: readonly string[]): string => steps.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/** A field's name one step further, as the planner writes it: `[i]` for an array item, `.key` otherwise. */
const stepInto = (path: string, step: string, item: boolean): string => (item ? `${path}[${step}]` : path ? `${path}.${step}` : step);

/** A field holding U+0000: its name as problems name fields, and its JSON pointer into the request's value. */
type NulField = { field: string; pointer: string };

/**
 * Every string (or key) holding U+0000, in document order, named as the other problems
 * name fields: the body path as written (`search`, `filters.city`, `columns[0]`), the
 * query parameter (`filterField`, `sort[1]` for a repeated one), or `root` itself when
 * the whole value is such a string. A key holding NUL names the field once (escaped);
 * its value is not looked into. Iterative, so a deeply nested body cannot overflow the
 * stack; a path longer than a problem shows (errors.ts clips it) stops growing, and the
 * pointer is built from parent links only for a field found (not copied at every level).
 */
function fieldsWithNul(value: unknown, root: string): NulField[] {
  type Step = { parent: Step | undefined; key: string };
  const found: NulField[] = [];
  const pending: Array<{ value: unknown; path: string; at: Step | undefined }> = [{ value, path: '', at: undefined }];
  const child = (path: string, step: string, item: boolean) => (path.length > MAX_FIELD_LENGTH ? path : stepInto(item ? path || root : path, step, item));
  const pointer = (at: Step | undefined): string => {
    const keys: string[] = [];
    for (let s = at; s; s = s.parent) keys.push(s.key);
    return pointerOf(keys.reverse());
  };
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value: v, path, at } = next;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) found.push({ field: path || root, pointer: pointer(at) });
    } else if (Array.isArray(v)) {
      // Pushed last first, so they are taken in document order.
      for (let i = v.length - 1; i >= 0; i--) pending.push({ value: v[i], path: child(path, String(i), true), at: { parent: at, key: String(i) } });
    } else if (v && typeof v === 'object') {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, item] = entries[i]!;
        const step = { parent: at, key: k };
        if (k.includes('\u0000')) pending.push({ value: '\u0000', path: child(path, k.replace(/\u0000/g, '\\u0000'), false), at: step });
        else pending.push({ value: item, path: child(path, k, false), at: step });
      }
    }
  }
  return found;
}

/**
 * A download whose client closed the connection while its first batch was read: Fastify
 * then destroys the stream it is handed and passes the stream's "Premature close" here
 * as a failure, though nothing failed and nobody is left to answer (a close after the
 * answer began it logs itself, at info). Logged as what it is, not as a 500 with a stack.
 */
function clientWentAway(err: ApiError, request: FastifyRequest): boolean {
  return (err.cause as { code?: unknown } | undefined)?.code === 'ERR_STREAM_PREMATURE_CLOSE' && request.raw.socket?.destroyed === true;
}

function sendProblem(err: ApiError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // An import committing under a request is expected while imports run: a warning, without a stack.
  if (clientWentAway(err, request)) request.log.info({ code: err.code }, 'client closed the connection before the answer began');
  else if (err.cause instanceof DataChanged) request.log.warn({ code: err.code, reason: err.message }, 'request answered 503: the data changed');
  else if (err.status >= 500) request.log.error({ err: err.cause ?? err, code: err.code }, 'request failed');
  else if (err.cause) request.log.warn({ err: err.cause, code: err.code }, 'request refused by the database');
  // Router errors (frameworkErrors) are answered before the onRequest hooks run.
  reply.header('x-request-id', request.id);
  for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
  // Sent as bytes: Fastify appends `; charset=utf-8` to a JSON type it serializes, and the
  // contract (section 1) names the type as it is; JSON is UTF-8 without a parameter (RFC 8259).
  return reply
    .status(err.status)
    .type('application/problem+json')
    .send(Buffer.from(JSON.stringify(problemBody(err, request.url.split('?')[0] ?? request.url, request.id)), 'utf8'));
}

/**
 * A request holding NUL stops before its schema check and its planning, and one answer
 * still names every bad field (contract section 1): the schema's problems with the body
 * and the planner's with the rest are listed after the NUL ones. Only the values holding
 * NUL are kept from the planner, as only the values the schema refused are
 * (withoutRefused): a NUL in `filters.state` leaves `filters.city` checked. A query
 * parameter holding NUL is not planned, so what the planner would say of it (a missing
 * filterField) is not listed; nor is what the schema says of a key holding NUL, which
 * its NUL entry names already.
 */
async function withNulProblems(body: NulField[], query: NulField[], request: FastifyRequest): Promise<ApiError> {
  const errors = [...body, ...query].map(({ field }): FieldError => ({ field, message: 'must not contain the NUL character (\\u0000)' }));
  // The query parameters holding NUL are named as refused too, so the planner's word on them is dropped.
  const refused: SchemaError[] = [...body.map(({ pointer }) => ({ instancePath: pointer })), ...query.map(({ field }) => ({ instancePath: `/${topField(field)}` }))];
  const validate = request.getValidationFunction('body');
  if (validate && !validate(request.body)) {
    const validation = (validate.errors ?? []) as SchemaError[];
    const schema = toApiError({ validation, validationContext: 'body' }, request.body, request.routeOptions.schema?.body).allErrors ?? [];
    errors.push(...schema.filter((e) => !e.field.includes('\u0000')));
    refused.push(...validation);
  }
  const nulParameters = new Set(query.map(({ field }) => topField(field)));
  const rest = Object.fromEntries(Object.entries((request.query ?? {}) as Record<string, unknown>).filter(([k]) => !nulParameters.has(k)));
  return withOtherProblems(validationError(errors), { validationContext: 'body', validation: refused }, request, rest);
}

/** The top-level field a problem is about: `filters.city` and `columns[1]` -> filters, columns. */
const topField = (field: string): string => field.split(/[.[]/, 1)[0]!;

/**
 * A body the JSON schema refused stops the request before the service plans it. One
 * answer still names every bad field (contract section 1): the route's planner runs on
 * the body without the fields the schema refused (`planProblems`, which lists the query's
 * problems too), and what it finds about the other fields is listed with the schema's.
 * A route without a planner lists its query problems (page, size, sort, filterField).
 */
async function withOtherProblems(api: ApiError, error: unknown, request: FastifyRequest, query = (request.query ?? {}) as Record<string, unknown>): Promise<ApiError> {
  const context = (error as { validationContext?: string }).validationContext;
  const listed = api.allErrors;
  if (context === 'querystring' && listed) return queryRefused(api, listed, request, query);
  if (context !== 'body' || !listed) return api;
  const body = request.body;
  const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
  const { rest, fields } = isObject ? withoutRefused(body as Record<string, unknown>, (error as { validation?: SchemaError[] }).validation ?? []) : { rest: undefined, fields: [] };
  // What the planner says about a value it was not given (it is missing), or about the
  // parts of a refused top-level field (`context.partnerPublicIds` of `"context": "x"`), is
  // the schema's to say. (Only top-level: below it a key may hold a dot, `filters.city.x`.)
  const refused = new Set(fields);
  const isRefused = (field: string): boolean => refused.has(field) || refused.has(topField(field));
  const more = (await otherProblems(request, rest, query)).filter((e) => !isRefused(e.field));
  const seen = new Set(listed.map((e) => `${e.field}\n${e.message}`));
  const added = more.filter((e) => !seen.has(`${e.field}\n${e.message}`));
  return added.length ? validationError([...listed, ...added]) : api;
}

type SchemaError = { instancePath: string; params?: { additionalProperty?: unknown; missingProperty?: unknown } };

/**
 * The body without what the schema refused, for the planner to check the rest, and the
 * refused fields as problems name them. Only the refused value goes: `filters.city` of
 * `{"filters": {"city": 5, "nope": "x"}}`, so `filters.nope` is still checked (the whole
 * of `filters` used to go). A refused array item becomes "" (no string array of a body
 * has a valid ""), keeping the other items at their indexes, so the planner names them as
 * the caller wrote them. Copied only along the refused paths (never the whole body, which
 * may nest thousands deep), so the caller's body is left as it came.
 */
function withoutRefused(body: Record<string, unknown>, validation: readonly SchemaError[]): { rest: Record<string, unknown>; fields: string[] } {
  const copies = new Map<object, Record<string, unknown> | unknown[]>();
  const copyOf = (value: object): Record<string, unknown> | unknown[] => {
    let copy = copies.get(value);
    if (!copy) {
      copy = Array.isArray(value) ? value.slice() : { ...(value as Record<string, unknown>) };
      copies.set(value, copy);
      copies.set(copy, copy);
    }
    return copy;
  };
  const rest = copyOf(body) as Record<string, unknown>;
  const fields: string[] = [];
  for (const v of validation) {
    // As toApiError names the field.
    const extra = v.params?.additionalProperty !== undefined ? `/${String(v.params.additionalProperty)}` : v.params?.missingProperty !== undefined ? `/${String(v.params.missingProperty)}` : '';
    const pointer = `${v.instancePath}${extra}`;
    fields.push(fieldPath(pointer, body) || 'body');
    const steps = pointerSteps(pointer);
    if (!steps.length || v.params?.missingProperty !== undefined) continue;
    let at: Record<string, unknown> | unknown[] | undefined = rest;
    for (const step of steps.slice(0, -1)) {
      const next: unknown = at ? (at as Record<string, unknown>)[step] : undefined;
      if (next === null || typeof next !== 'object') {
        at = undefined;
        break;
      }
      const copy = copyOf(next);
      (at as Record<string, unknown>)[step] = copy;
      at = copy;
    }
    if (!at) continue;
    const last = steps[steps.length - 1]!;
    if (Array.isArray(at)) at[Number(last)] = '';
    else delete at[last];
  }
  return { rest, fields };
}

/**
 * The query string refused by its schema: a parameter given twice (`page=1&page=2`) is an
 * array where the schema says string. Fastify checks the body first, so the body passed
 * its schema, and the planner can list every problem of the request: the query's as it
 * names them ("given more than once"), the body's with them. The schema's entries for the
 * fields the planner names are left out (it would say only "must be string" about a
 * parameter sent as strings); any other stays.
 */
async function queryRefused(api: ApiError, listed: FieldError[], request: FastifyRequest, query: Record<string, unknown>): Promise<ApiError> {
  const body = request.body;
  const found = await otherProblems(request, body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined, query);
  if (!found.length) return api;
  const named = new Set(found.map((e) => e.field));
  return validationError([...found, ...listed.filter((e) => !named.has(e.field))]);
}

/**
 * What the route's planner finds in `body` and `query` (`planProblems`, which lists the
 * query's problems too), or, without a planner or a body object to plan, its query rules
 * alone (`queryProblems`). A planner that cannot run (the database down, say) finds
 * nothing: the problems already found stand alone.
 */
async function otherProblems(request: FastifyRequest, body: Record<string, unknown> | undefined, query: Record<string, unknown>): Promise<FieldError[]> {
  const { planProblems, queryProblems } = request.routeOptions.config ?? {};
  if (!planProblems || !body) return queryProblems ? queryProblems(query) : [];
  try {
    return await planProblems(request, { body, query });
  } catch (err) {
    request.log.warn({ err }, 'the planner could not list the other problems of a refused request');
    return [];
  }
}

/**
 * A JSON pointer into the body (`/context/partnerPublicIds/0`) written as the planner names
 * fields (`context.partnerPublicIds[0]`): an array item as `[i]`, any other step as `.key`.
 * The body says which steps are array items (an object's key may be a number too).
 */
function fieldPath(pointer: string, body: unknown): string {
  let path = '';
  let at: unknown = body;
  for (const step of pointerSteps(pointer)) {
    path = stepInto(path, step, Array.isArray(at) && /^\d+$/.test(step));
    at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[step] : undefined;
  }
  return path;
}

/**
 * The names of the fields the schema declares for the object at `pointer` (a JSON pointer
 * into the body), in the schema's order, or undefined when it declares none there: what
 * "is not a known field" lists as allowed. A union takes the branch that declares fields.
 */
function knownFieldsAt(schema: unknown, pointer: string): string[] | undefined {
  type Node = { properties?: Record<string, unknown>; items?: unknown; anyOf?: Node[] } | undefined;
  const objectBranch = (n: Node): Node => n?.anyOf?.find((b) => b?.properties) ?? n;
  let at = schema as Node;
  for (const step of pointerSteps(pointer)) {
    at = objectBranch(at);
    if (at?.properties && Object.hasOwn(at.properties, step)) at = at.properties[step] as Node;
    else if (at?.items && /^\d+$/.test(step)) at = at.items as Node;
    else return undefined;
  }
  const fields = objectBranch(at)?.properties;
  return fields ? Object.keys(fields) : undefined;
}

/**
 * Maps Fastify's and the database's errors onto the registry (`body`: the request's, to
 * name array items; `bodySchema`: the route's, to list the known fields beside an unknown one).
 */
export function toApiError(error: unknown, body?: unknown, bodySchema?: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const e = error as FastifyError & { validation?: Array<{ keyword?: string; instancePath: string; message?: string; params?: Record<string, unknown> }>; validationContext?: string };
  if (e.validation) {
    const named = e.validation.map((v) => {
      const where = e.validationContext ?? 'body';
      const extra = v.params?.additionalProperty ? `/${String(v.params.additionalProperty)}` : v.params?.missingProperty ? `/${String(v.params.missingProperty)}` : '';
      const path = fieldPath(`${v.instancePath}${extra}`, where === 'body' ? body : undefined);
      // Body and query fields are named as the caller wrote them (`filters.x`, `filterField`),
      // as the planner names them; only path parameters keep a prefix.
      const field = path ? (where === 'body' || where === 'querystring' ? path : `${where}.${path}`) : where;
      const known = v.params?.additionalProperty !== undefined && where === 'body' ? knownFieldsAt(bodySchema, v.instancePath) : undefined;
      const unknown = known?.length ? `is not a known field; the fields are ${known.join(', ')}` : 'is not a known field';
      const message = v.params?.additionalProperty ? unknown : v.params?.missingProperty ? 'is required' : v.message ?? 'is invalid';
      return { field, message, keyword: v.keyword, type: v.keyword === 'type' ? v.params?.type : undefined };
    });
    // A union (an epoch as a string or a number) fails once per branch and once as a whole:
    // one entry for the field, naming the types it takes (contract section 1: one entry per bad field).
    const unions = new Set(named.filter((n) => n.keyword === 'anyOf').map((n) => n.field));
    const errors: FieldError[] = [];
    for (const n of named) {
      if (!unions.has(n.field)) errors.push({ field: n.field, message: n.message });
      else if (n.keyword === 'anyOf') {
        const types = named.filter((t) => t.field === n.field && t.type !== undefined).map((t) => String(t.type));
        errors.push({ field: n.field, message: types.length ? `must be ${types.join(' or ')}` : n.message });
      }
    }
    return validationError(errors);
  }
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError({ status: 413, code: 'PR113', title: 'Content Too Large', detail: 'request body is larger than 1 MiB' });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return notJson();
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // A path segment over 500 characters names no report type, key or endpoint: the
      // unknown path it is (contract section 1), not 414, and not echoed back.
      return new ApiError({ status: 404, code: 'PR404', title: 'Not Found', detail: 'no endpoint: a segment of the path is longer than 500 characters' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return validationError([{ field: 'body', message: 'is not valid JSON' }], 'PR101');
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new ApiError({ status: e.statusCode, code: `PR${e.statusCode}`, title: STATUS_CODES[e.statusCode] ?? 'Bad Request', detail: e.message });
  }
  if (isDataException(error)) {
    // Every statement is parameterized, and imports validate what is stored, so a value
    // PostgreSQL cannot take (a bigint out of range, a fraction for an integer column)
    // came from the request: the caller's mistake, not the server's. The planner should
    // have refused it with the field's name; this is the safety net.
    return validationError([{ field: 'request', message: 'a number or date in the request is out of range or not valid for the column it is compared with' }], undefined, error);
  }
  if (error instanceof DataChanged) {
    // Before the first byte was sent: nothing half-written, the client can simply retry.
    return unavailable(error.message, undefined, error);
  }
  if (isDatabaseUnavailable(error)) {
    return unavailable('the database is unavailable or the query took too long; retry shortly', undefined, error);
  }
  return new ApiError({ status: 500, code: 'PR500', title: 'Internal Server Error', detail: 'unexpected error; quote the request id when reporting it', cause: error });
}

/** PostgreSQL data exceptions a request value can cause: 22003 numeric_value_out_of_range, 22P02 invalid_text_representation, 22008 datetime_field_overflow. */
function isDataException(error: unknown): boolean {
  const e = error as { code?: unknown; severity?: unknown };
  return typeof e.code === 'string' && ['22003', '22P02', '22008'].includes(e.code) && e.severity !== undefined;
}
