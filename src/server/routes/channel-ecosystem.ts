/**
 * HTTP shell of the channel-ecosystem reports (spec 4.5). The report is chosen by
 * `channelReportType` in the body; the same report service (catalog, planner, query,
 * renderers) serves it as it serves the report-analytics reports.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { CHANNEL_REPORTS, CHANNEL_REPORT_IDS } from '../../reports/catalog/index.js';
import type { Operation, ReportCall, ReportService } from '../../reports/service.js';
import { filterValuesQueryProblems, pageQueryProblems } from '../../reports/request.js';
import { runReport, type AnswerMemo } from './report-call.js';
import { ApiError, MAX_FIELD_LENGTH, clip, validationError, type FieldError } from '../errors.js';
import {
  ChannelColumnsSchema,
  ChannelFilterDataSchema,
  ChannelRecordsSchema,
  ColumnMetadataSchema,
  ERROR_RESPONSES,
  FilterDataQuerySchema,
  FilterValuesSchema,
  PagingQuerySchema,
  ProblemSchema,
  envelopeSchema,
} from './schemas.js';

type Req = FastifyRequest<{ Body: Record<string, unknown>; Querystring: Record<string, unknown> }>;

const BODY_ONLY = new Set(['channelReportType', 'matchingType', 'companyPartnerPublicId', 'mapByLocations', 'byOrg']);

type QueryProblems = (query: Record<string, unknown>) => FieldError[];

/**
 * A `channelReportType` that names no channel report is 404, as contract section 1 has it
 * ("404 unknown path or unknown reportType / channelReportType"): the body is where this
 * API names a channel report, as the path names a report-analytics one, so the type is
 * checked before anything else of the body (before its schema: whatever else the body
 * gets wrong, as a path's unknown report type is 404 whatever the rest). The field is
 * named with the allowed values. Missing, or not a string, is a bad body: 400 with the
 * body's other problems.
 */
async function unknownChannelReport(request: FastifyRequest): Promise<void> {
  const body = request.body;
  const type = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).channelReportType : undefined;
  if (typeof type !== 'string' || CHANNEL_REPORT_IDS.includes(type)) return;
  const named = JSON.stringify(clip(type, MAX_FIELD_LENGTH));
  const message = `must be one of ${CHANNEL_REPORT_IDS.join(', ')}, got ${named}`;
  throw new ApiError({ status: 404, code: 'PR404', title: 'Not Found', detail: `unknown channelReportType ${named}; valid channel report types: ${CHANNEL_REPORT_IDS.join(', ')}`, errors: [{ field: 'channelReportType', message }] });
}

/**
 * Splits the channel body into the report's ReportRequest part and the channel options.
 * `queryProblems`: the route's query rules, listed too when there is no report to plan.
 */
function channelCall(request: Req, queryProblems?: QueryProblems) {
  const body = request.body ?? {};
  const type = body.channelReportType;
  if (typeof type !== 'string' || !CHANNEL_REPORT_IDS.includes(type)) {
    // Without a report the planner never runs: check here what can be checked without one,
    // so that one answer lists every problem.
    // The type is missing here: one that is not a string is the schema's to refuse (and left
    // out of the body the planner sees), one naming no report unknownChannelReport's (404).
    const errors: FieldError[] = [{ field: 'channelReportType', message: `is required: one of ${CHANNEL_REPORT_IDS.join(', ')}` }];
    const mt = body.matchingType;
    if (mt !== undefined && mt !== 'ALL_PARTNER_ORGS' && mt !== 'MUTUAL') errors.push({ field: 'matchingType', message: `must be ALL_PARTNER_ORGS or MUTUAL, got ${JSON.stringify(mt)}` });
    if (queryProblems) errors.push(...queryProblems((request.query ?? {}) as Record<string, unknown>));
    throw validationError(errors);
  }
  const reportBody = Object.fromEntries(Object.entries(body).filter(([k]) => !BODY_ONLY.has(k)));
  return {
    caller: request.caller,
    reportId: type,
    query: request.query ?? {},
    body: reportBody,
    channel: {
      matchingType: body.matchingType as string | undefined,
      companyPartnerPublicId: body.companyPartnerPublicId as string | undefined,
      mapByLocations: body.mapByLocations === true,
    },
  };
}

export function registerChannelEcosystemRoutes(app: FastifyInstance, deps: { reports: ReportService; clock: () => number; answers?: AnswerMemo }): void {
  const { reports } = deps;
  // The route's own query rules (its config's queryProblems), for channelCall to list too.
  const queryRules = (request: FastifyRequest) => request.routeOptions.config?.queryProblems;
  const run = <T>(request: Req, reply: FastifyReply, op: (c: ReportCall) => Promise<T>) =>
    runReport(request, reply, reports, channelCall(request, queryRules(request)), op, { etag: true, now: deps.clock, ...(deps.answers ? { answers: deps.answers } : {}) });
  // The body decides the report: a request whose channelReportType the schema refused has
  // none to plan, and channelCall's own problems (the type, matchingType, the query) stand for it.
  const problemsOf = (operation: Operation) => async (request: FastifyRequest, parts: { body: Record<string, unknown>; query: Record<string, unknown> }) => {
    try {
      return await reports.problems(operation, channelCall({ ...request, caller: request.caller, ...parts } as Req, queryRules(request)));
    } catch (err) {
      if (err instanceof ApiError && err.allErrors) return err.allErrors;
      throw err;
    }
  };
  const tags = ['channel-ecosystem'];
  const anyRow = Type.Object({}, { additionalProperties: true, description: 'A connected partner organization or a matched account (spec 2.10)' });

  app.post('/v1/channelecosystem/records', {
    preValidation: unknownChannelReport,
    config: { queryProblems: pageQueryProblems, planProblems: problemsOf('records') },
    schema: { tags, summary: 'A page of a channel report', querystring: PagingQuerySchema, body: ChannelRecordsSchema, response: { 200: envelopeSchema(anyRow), ...ERROR_RESPONSES } },
    handler: async (request: Req, reply: FastifyReply) => run(request, reply, reports.records),
  });

  app.post('/v1/channelecosystem/columns', {
    preValidation: unknownChannelReport,
    config: { queryProblems: pageQueryProblems, planProblems: problemsOf('columns') },
    schema: { tags, summary: 'Column metadata of a channel report (spec 2.11)', querystring: PagingQuerySchema, body: ChannelColumnsSchema, response: { 200: Type.Array(ColumnMetadataSchema), ...ERROR_RESPONSES } },
    handler: async (request: Req, reply: FastifyReply) => run(request, reply, reports.columns),
  });

  app.post('/v1/channelecosystem/filterdata', {
    preValidation: unknownChannelReport,
    config: { queryProblems: filterValuesQueryProblems, planProblems: problemsOf('filterData') },
    schema: { tags, summary: 'Values of one column of a channel report', querystring: FilterDataQuerySchema, body: ChannelFilterDataSchema, response: { 200: FilterValuesSchema, ...ERROR_RESPONSES } },
    handler: async (request: Req, reply: FastifyReply) => run(request, reply, reports.filterData),
  });

  app.get('/v1/channelecosystem/report-names', {
    schema: {
      tags,
      summary: 'The channel report types with their standard columns',
      response: {
        200: Type.Array(Type.Object({ channelReportType: Type.String(), displayName: Type.String(), columns: Type.Array(ColumnMetadataSchema) })),
        401: ProblemSchema,
        429: ProblemSchema,
      },
    },
    handler: async (request) =>
      Promise.all(CHANNEL_REPORTS.map(async (r) => ({ channelReportType: r.id, displayName: r.title, columns: await reports.standardColumns(r, request.caller) }))),
  });
}
