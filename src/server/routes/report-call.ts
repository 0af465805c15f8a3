/**
 * What every report route does around the report service: the conditional request
 * (`ETag` from the data version and the request; `If-None-Match` answered 304 before
 * any report query runs) and the `Server-Timing` header (plan, db, render).
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { ReportCall, ReportService, StageTiming } from '../../reports/service.js';
import { isJsonText } from '../../reports/cache.js';

declare module 'fastify' {
  interface FastifyRequest {
    reportTiming?: StageTiming & { handlerEnd: number; started: number };
  }
}

/**
 * Answers by ETag. The tag names everything the answer depends on (that is what lets a
 * 304 stand for it), so an answer the service marked as never changing (JsonText: a
 * cached page) is answered again to the same tag without planning the request again.
 * Weak references: an answer lives only as long as the service's own cache (or a request)
 * holds it, so this adds no memory of its own beyond the keys. buildApp makes one per app.
 */
export type AnswerMemo = LRUCache<string, WeakRef<object>>;

export function createAnswerMemo(): AnswerMemo {
  return new LRUCache({ max: 10_000 });
}

/** Adds the Server-Timing header to responses of report routes. */
export function registerReportTiming(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const t = request.reportTiming;
    if (t) {
      const total = t.handlerEnd - t.started;
      const db = Math.max(0, total - t.plan);
      const render = Math.max(0, performance.now() - t.handlerEnd);
      reply.header('server-timing', `plan;dur=${t.plan.toFixed(2)}, db;dur=${db.toFixed(2)}, render;dur=${render.toFixed(2)}`);
    }
    return payload;
  });
}

/**
 * Runs one report operation. With `etag`, the response is conditional: the tag is a hash
 * of the data version, the caller's organization, the URL and the body (and the current
 * second when the body counts days back from now), so it changes whenever the answer can.
 */
export async function runReport<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  reports: ReportService,
  call: ReportCall,
  operation: (call: ReportCall) => Promise<T>,
  options: { etag: boolean; now?: () => number; answers?: AnswerMemo } = { etag: true },
): Promise<T | FastifyReply> {
  const timing = { plan: 0, db: 0, handlerEnd: 0, started: performance.now() };
  request.reportTiming = timing;
  let etag: string | undefined;
  let version: string | undefined;
  try {
    if (options.etag) {
      // The version the access stage read for this request, else one read now: either way
      // read after the request arrived.
      version = request.serviceState?.dataVersion ?? (await reports.dataVersion());
      const body = JSON.stringify(request.body ?? {});
      const relative = /Days"/.test(body) ? String(Math.floor((options.now ?? Date.now)() / 1000)) : '';
      const digest = createHash('sha256').update([version, call.caller.orgId, request.method, request.url, body, relative].join('\n')).digest('base64url').slice(0, 27);
      etag = `W/"${version}-${digest}"`;
      const match = request.headers['if-none-match'];
      if (typeof match === 'string' && match.split(',').some((m) => m.trim() === etag || m.trim() === '*')) {
        return reply.code(304).header('etag', etag).send();
      }
    }
    const answers = etag ? options.answers : undefined;
    const known = answers ? (answers.get(etag!)?.deref() as T | undefined) : undefined;
    if (known !== undefined) {
      reply.header('etag', etag!);
      return known;
    }
    const result = await operation({ ...call, timing, ...(version === undefined ? {} : { dataVersion: version }) });
    // Only successful answers get a tag, so a 304 can never stand for an error.
    if (etag) {
      reply.header('etag', etag);
      if (answers && isJsonText(result)) answers.set(etag, new WeakRef(result));
    }
    return result;
  } finally {
    timing.handlerEnd = performance.now();
  }
}
