/**
 * HTTP shell of the report-analytics reports (spec 4.2). One literal route per report and
 * operation, so the OpenAPI document shows each report's own row schema; a parametric
 * fallback answers unknown report types with a 404 naming the valid ones. Handlers only
 * hand the caller, query and body to the report service.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { ANALYTICS_REPORTS, ANALYTICS_REPORT_IDS } from '../../reports/catalog/index.js';
import type { ReportDefinition } from '../../reports/catalog/types.js';
import type { Operation, ReportCall, ReportService } from '../../reports/service.js';
import { filterValuesQueryProblems, pageQueryProblems } from '../../reports/request.js';
import { registerReportTiming, runReport, type AnswerMemo } from './report-call.js';
import { notFound } from '../errors.js';
import {
  ColumnMetadataSchema,
  DashboardSchema,
  ERROR_RESPONSES,
  FilterDataQuerySchema,
  FilterValuesSchema,
  PagingQuerySchema,
  ProblemSchema,
  ReportRequestSchema,
  envelopeSchema,
  rowSchema,
} from './schemas.js';

const BASE = '/v1/report-analytics/report';

/**
 * The same stream with its first chunks already read (the header row and the first batch
 * of rows), so an error of the first query is thrown here, before any status is sent;
 * the rest is still pulled on demand, and closing the result closes `stream`.
 */
async function primed(stream: Readable, chunks = 2): Promise<Readable> {
  const source = stream[Symbol.asyncIterator]();
  const head: unknown[] = [];
  let done = false;
  try {
    while (head.length < chunks) {
      const next = await source.next();
      if (next.done) {
        done = true;
        break;
      }
      head.push(next.value);
    }
  } catch (error) {
    stream.destroy();
    throw error;
  }
  const rest = async function* () {
    try {
      yield* head;
      if (done) return;
      for (;;) {
        const next = await source.next();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      // Also when the client went away: the download then starts no further batch.
      stream.destroy();
    }
  };
  return Readable.from(rest(), { objectMode: false });
}
const OPERATIONS = ['records', 'filterdata', 'columns', 'download', 'dashboard'] as const;

type Req = FastifyRequest<{ Body: Record<string, unknown>; Querystring: Record<string, unknown> }>;

const call = (report: ReportDefinition, request: Req) => ({
  caller: request.caller,
  reportId: report.id,
  query: request.query ?? {},
  body: request.body ?? {},
});

export function registerReportAnalyticsRoutes(app: FastifyInstance, deps: { reports: ReportService; clock: () => number; answers?: AnswerMemo }): void {
  const { reports } = deps;
  const run = <T>(request: Req, reply: FastifyReply, report: ReportDefinition, op: (c: ReportCall) => Promise<T>, etag = true) =>
    runReport(request, reply, reports, call(report, request), op, { etag, now: deps.clock, ...(deps.answers ? { answers: deps.answers } : {}) });
  const problemsOf = (report: ReportDefinition, operation: Operation) => (request: FastifyRequest, parts: { body: Record<string, unknown>; query: Record<string, unknown> }) =>
    reports.problems(operation, { ...call(report, request as Req), ...parts });
  registerReportTiming(app);
  for (const report of ANALYTICS_REPORTS) {
    const url = `${BASE}/${report.id}`;
    const tags = ['report-analytics'];
    const row = rowSchema(report);

    app.post(`${url}/records`, {
      config: { queryProblems: pageQueryProblems, planProblems: problemsOf(report, 'records') },
      schema: {
        tags,
        summary: `${report.title}: a page of rows`,
        description: `Rows of ${report.id} in the page envelope. Default order: ${report.defaultOrder}.`,
        querystring: PagingQuerySchema,
        body: ReportRequestSchema,
        response: { 200: envelopeSchema(row), ...ERROR_RESPONSES },
      },
      handler: async (request: Req, reply: FastifyReply) => run(request, reply, report, reports.records),
    });

    app.post(`${url}/filterdata`, {
      config: { queryProblems: filterValuesQueryProblems, planProblems: problemsOf(report, 'filterData') },
      schema: {
        tags,
        summary: `${report.title}: values of one column`,
        description: 'Distinct values (string and boolean columns) or min/max (number, currency, date columns) over the rows the body selects, ignoring the filter on filterField itself.',
        querystring: FilterDataQuerySchema,
        body: ReportRequestSchema,
        response: { 200: FilterValuesSchema, ...ERROR_RESPONSES },
      },
      handler: async (request: Req, reply: FastifyReply) => run(request, reply, report, reports.filterData),
    });

    app.post(`${url}/columns`, {
      config: { queryProblems: pageQueryProblems, planProblems: problemsOf(report, 'columns') },
      schema: {
        tags,
        summary: `${report.title}: column metadata`,
        querystring: PagingQuerySchema,
        body: ReportRequestSchema,
        response: { 200: Type.Array(ColumnMetadataSchema), ...ERROR_RESPONSES },
      },
      handler: async (request: Req, reply: FastifyReply) => run(request, reply, report, reports.columns),
    });

    app.post(`${url}/download`, {
      config: { queryProblems: pageQueryProblems, planProblems: problemsOf(report, 'download') },
      schema: {
        tags,
        summary: `${report.title}: every matching row as CSV`,
        description: 'text/csv; charset=utf-8, streamed; header row of column keys; RFC 4180 quoting, CRLF.',
        querystring: PagingQuerySchema,
        body: ReportRequestSchema,
        produces: ['text/csv'],
        response: { 200: { description: 'CSV file', content: { 'text/csv': { schema: { type: 'string' } } } }, ...ERROR_RESPONSES },
      },
      handler: async (request: Req, reply: FastifyReply) => {
        const result = await run(request, reply, report, reports.download, false);
        const { filename, stream } = result as Awaited<ReturnType<ReportService['download']>>;
        // The first batch is read before the status is sent, so a query the database refuses
        // is a problem answer, not a 200 cut off mid-stream.
        const body = await primed(stream);
        return reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${filename}"`).send(body);
      },
    });

    app.post(`${url}/dashboard`, {
      config: { queryProblems: pageQueryProblems, planProblems: problemsOf(report, 'dashboard') },
      schema: {
        tags,
        summary: `${report.title}: totals and per-partner breakdown`,
        querystring: PagingQuerySchema,
        body: ReportRequestSchema,
        response: { 200: DashboardSchema, ...ERROR_RESPONSES },
      },
      handler: async (request: Req, reply: FastifyReply) => run(request, reply, report, reports.dashboard),
    });
  }

  // Unknown report types: 404 naming the valid ones (static routes above win over this).
  // Like an unknown path, answered before any credential check and before the body is
  // read: the route is public to the access stage and answers in its own onRequest hook
  // (it serves nothing, so there is nothing to protect).
  const unknownReportType = async (request: FastifyRequest) => {
    const { reportType } = request.params as { reportType: string };
    throw notFound(`unknown reportType "${reportType}"; valid report types: ${ANALYTICS_REPORT_IDS.join(', ')}`);
  };
  // Every method: an unknown report type is no endpoint at all, so it is 404 whatever the
  // method, never 405 with an Allow that would not work either.
  for (const op of OPERATIONS) {
    app.route({
      method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      url: `${BASE}/:reportType/${op}`,
      config: { public: true },
      schema: { hide: true, response: { 404: ProblemSchema } },
      onRequest: unknownReportType,
      handler: unknownReportType,
    });
  }

  app.get('/v1/attribution/event-types', {
    schema: {
      tags: ['report-analytics'],
      summary: 'Valid eventTypeCodes with their subtypes',
      response: {
        200: Type.Array(Type.Object({ code: Type.String(), displayName: Type.String(), group: Type.String(), subtypes: Type.Array(Type.Object({ code: Type.String(), displayName: Type.String() })) })),
        401: ProblemSchema,
        429: ProblemSchema,
      },
    },
    handler: async () => reports.eventTypes(),
  });
}
