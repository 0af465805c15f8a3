/**
 * What every report route does around the report service: the conditional request
 * (`ETag` from the data version and the request; `If-None-Match` answered 304, before
 * any report query runs when this process already answered that very request) and the
 * `Server-Timing` header (plan, db, render).
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { ReportCall, ReportService, StageTiming } from '../../reports/service.js';
import { together, type WindowValidity } from '../../reports/date-windows.js';
import { isJsonText } from '../../reports/cache.js';
import { DataChanged } from '../../reports/data-version.js';
import type { FieldError } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    reportTiming?: StageTiming & { handlerEnd: number; started: number };
  }
  interface FastifyContextConfig {
    /**
     * The route's query problems (request.ts), listed with the body's when the JSON schema
     * refuses the body and the service never runs (app.ts error handler).
     */
    queryProblems?: (query: Record<string, unknown>) => FieldError[];
    /**
     * The planner's problems with the request, its body and query replaced by `parts` (the
     * fields the JSON schema or the NUL check left), the query's problems included: listed
     * with theirs, so one answer names every bad field (app.ts).
     */
    planProblems?: (request: FastifyRequest, parts: { body: Record<string, unknown>; query: Record<string, unknown> }) => Promise<FieldError[]>;
  }
}

/**
 * Answers by ETag. The tag names everything the answer depends on (that is what lets a
 * 304 stand for it), so an answer the service marked as never changing (JsonText: a
 * cached page) is answered again to the same tag without planning the request again.
 * Weak references: an answer lives only as long as the service's own cache (or a request)
 * holds it, so this adds no memory of its own beyond the keys. buildApp makes one per app.
 *
 * A request with "last N days" windows depends on the clock too, through the windows in
 * effect (the service pins them to stored dates, date-windows.ts): `windows` remembers,
 * per request, the tag of the windows last in effect and the clock seconds over which
 * they stay so, so a repeat inside that span is tagged (and answered) without planning.
 *
 * `issued` holds the tags this process gave to successful answers. Errors win over
 * `If-None-Match`: a tag is computed from the request alone (a client can compute it for
 * a request the planner would refuse), and `*` matches any tag, so only a tag found here
 * proves the request valid without planning it. Any other match is answered 304 only
 * after the answer was computed without error.
 */
export interface AnswerMemo {
  answers: LRUCache<string, WeakRef<object>>;
  windows: LRUCache<string, WindowValidity & { etag: string }>;
  issued: LRUCache<string, true>;
}

export function createAnswerMemo(): AnswerMemo {
  return { answers: new LRUCache({ max: 10_000 }), windows: new LRUCache({ max: 10_000 }), issued: new LRUCache({ max: 10_000 }) };
}

/** Adds the Server-Timing header to responses of report routes. */
export function registerReportTiming(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const t = request.reportTiming;
    if (t) {
      // A 304 is sent from inside the handler, before its `finally` marks the end: the
      // handler's time so far is then the whole, and nothing was rendered.
      const now = performance.now();
      const end = t.handlerEnd || now;
      const total = end - t.started;
      // The rows written inside the handler are render time, not the database's.
      const db = Math.max(0, total - t.plan - t.render);
      const render = t.render + Math.max(0, now - end);
      reply.header('server-timing', `plan;dur=${t.plan.toFixed(2)}, db;dur=${db.toFixed(2)}, render;dur=${render.toFixed(2)}`);
    }
    return payload;
  });
}

const digest = (parts: string[]) => createHash('sha256').update(parts.join('\n')).digest('base64url').slice(0, 27);

/** The opaque part of a tag: If-None-Match compares weakly (RFC 9110 13.1.2), so `W/` does not count. */
const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);

/** Whether If-None-Match lists this tag or is `*`. Say so only for a request known to be valid. */
const matches = (request: FastifyRequest, etag: string) => {
  const match = request.headers['if-none-match'];
  if (typeof match !== 'string') return false;
  const tag = opaque(etag);
  return match.split(',').some((m) => {
    const given = m.trim();
    return given === '*' || opaque(given) === tag;
  });
};

/**
 * Computations of one answer at most: a third import committing during one request is not
 * waited out. The request is then a 503 the client can retry; an answer that could not be
 * confirmed at one data version is never sent.
 */
const MAX_ATTEMPTS = 3;

export class DataChangedDuringAnswer extends DataChanged {
  constructor() {
    super(`the data changed (imports committed) each of the ${MAX_ATTEMPTS} times the answer was computed; retry`);
  }
}

/** 304 with the tag a 200 would carry (RFC 9110 15.4.5). */
const notModified = (reply: FastifyReply, etag: string) => reply.code(304).header('etag', etag).send();

/**
 * Runs one report operation. With `etag`, the response is conditional: the tag is a hash
 * of the data version, the caller's organization, the URL and the body, and, when the
 * body counts days back from now, of the windows in effect (which change with the clock
 * only when a window's start passes a stored date), so it changes whenever the answer can.
 */
export async function runReport<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  reports: ReportService,
  call: ReportCall,
  operation: (call: ReportCall) => Promise<T>,
  options: { etag: boolean; now?: () => number; answers?: AnswerMemo } = { etag: true },
): Promise<T | FastifyReply> {
  const timing = { plan: 0, render: 0, handlerEnd: 0, started: performance.now() };
  request.reportTiming = timing;
  let etag: string | undefined;
  let version: string | undefined;
  let requestTag: string | undefined;
  let relative = false;
  // The version an answer was computed at, confirmed after it was computed (below); set
  // when an import committed meanwhile, and the answer is computed again at it.
  let confirmed: string | undefined;
  try {
    for (let attempt = 1; ; attempt++) {
      etag = undefined;
      if (options.etag) {
        // The version the access stage read for this request, else one read now: either way
        // read after the request arrived.
        version = confirmed ?? request.serviceState?.dataVersion ?? (await reports.dataVersion());
        const body = JSON.stringify(request.body ?? {});
        requestTag = digest([version, String(call.caller.orgId), request.method, request.url, body]);
        relative = /Days"/.test(body);
        if (!relative) etag = `W/"${version}-${requestTag}"`;
        else {
          // Tagged before planning only while the clock is inside the span the windows
          // last seen stay in effect; otherwise the tag follows from the plan (below).
          const known = options.answers?.windows.get(requestTag);
          const now = Math.floor((options.now ?? Date.now)() / 1000);
          if (known && now > known.after && now <= known.until) etag = known.etag;
        }
        // Fast path, no plan and no query: this process gave this tag to a successful answer
        // of this very request (same data version, organization, URL and body), so the
        // request is valid and the condition can be evaluated now.
        if (etag && options.answers?.issued.has(etag) && matches(request, etag)) return notModified(reply, etag);
      }
      const answers = etag ? options.answers?.answers : undefined;
      const known = answers ? (answers.get(etag!)?.deref() as T | undefined) : undefined;
      if (known !== undefined) {
        // A remembered answer was a successful one: the request is valid.
        if (matches(request, etag!)) return notModified(reply, etag!);
        reply.header('etag', etag!);
        return known;
      }
      // Every plan of the answer reports its windows: the tag names them all, and holds
      // over the seconds where all of them hold.
      let windows: WindowValidity | undefined;
      const windowsInEffect = (v: WindowValidity) => {
        windows = windows ? together(windows, v) : v;
      };
      const result = await operation({ ...call, timing, windowsInEffect, ...(version === undefined ? {} : { dataVersion: version }) });
      // An answer's statements run one by one on pooled connections, each with its own
      // snapshot: an import that commits between them (it swaps the report tables and bumps
      // the version in one transaction) would give a count of the old data with rows of the
      // new, or old columns over new rows. Read after the answer was computed, an unchanged
      // version proves every statement ran before any such commit; otherwise the answer is
      // computed again at the new version (no tag, no memo, nothing issued for the old one).
      // Caches may hold a figure computed across the commit under the old version's key,
      // but every answer built from one is confirmed here, and fails this check.
      if (version !== undefined) {
        const after = await reports.dataVersion();
        if (after !== version) {
          if (attempt >= MAX_ATTEMPTS) throw new DataChangedDuringAnswer();
          confirmed = after;
          continue;
        }
      }
      // Only successful answers get a tag, and only they get a 304: an operation that
      // refuses the request throws above, so its error is sent (without a tag) whatever
      // If-None-Match says.
      // Derived again from the windows the answer was computed with, even when the memo
      // gave a tag: a plan made just after a window moved must not answer to the old tag.
      if (relative && requestTag !== undefined) {
        etag = `W/"${version}-${digest([requestTag, windows?.key ?? ''])}"`;
        if (windows && options.answers) options.answers.windows.set(requestTag, { ...windows, etag });
      }
      if (etag) {
        options.answers?.issued.set(etag, true);
        // The answer is computed already; a client holding it (or sending `*`) still gets the short reply.
        if (matches(request, etag)) return notModified(reply, etag);
        reply.header('etag', etag);
        if (options.answers && isJsonText(result)) options.answers.answers.set(etag, new WeakRef(result));
      }
      return result;
    }
  } finally {
    timing.handlerEnd = performance.now();
  }
}
