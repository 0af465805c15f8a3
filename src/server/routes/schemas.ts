/**
 * TypeBox schemas shared by the report routes. They validate requests (unknown body
 * fields are 400) and feed the OpenAPI document; row schemas are generated from the
 * report catalog so the documentation can never drift from the columns served.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { Column, ColumnType, ReportDefinition } from '../../reports/catalog/types.js';

const nullable = (type: 'string' | 'number' | 'boolean' | 'integer', description?: string): TSchema =>
  Type.Unsafe({ type: [type, 'null'], ...(description ? { description } : {}) });

const JSON_TYPE: Record<ColumnType, 'string' | 'number' | 'boolean' | 'integer'> = {
  string: 'string', uuid: 'string', name: 'string', email: 'string', title: 'string', phone: 'string',
  number: 'number', currency: 'number', date: 'integer', boolean: 'boolean',
};

export function columnSchema(c: Column): TSchema {
  return nullable(JSON_TYPE[c.type], `${c.title} (${c.type}${c.type === 'date' ? ', epoch seconds' : ''})`);
}

/** One report row; custom columns (`custom_<key>`) vary per organization, hence additionalProperties. */
export function rowSchema(report: ReportDefinition): TSchema {
  const properties: Record<string, TSchema> = {};
  // Optional: a `columns` selection returns a subset.
  for (const c of report.columns) properties[c.key] = Type.Optional(columnSchema(c));
  for (const [alias, target] of Object.entries(report.aliases ?? {})) {
    const c = report.columns.find((x) => x.key === target);
    if (c) properties[alias] = Type.Optional(columnSchema(c));
  }
  if (report.id === 'PARTNER_ORG_MATCHED_ACCOUNTS') {
    properties.partnerFields = Type.Optional(Type.Object({}, { additionalProperties: true, description: "The partner's shared fields: keys `partner` + field key lower-cased without dots and underscores, in `/columns` order" }));
  }
  return Type.Object(properties, { additionalProperties: true, title: `${report.id} row` });
}

const SortState = Type.Object({ sorted: Type.Boolean(), unsorted: Type.Boolean(), empty: Type.Boolean() });

export function envelopeSchema(row: TSchema): TSchema {
  return Type.Object({
    totalElements: Type.Integer(),
    totalPages: Type.Integer(),
    sort: SortState,
    first: Type.Boolean(),
    last: Type.Boolean(),
    number: Type.Integer(),
    pageable: Type.Object({ pageNumber: Type.Integer(), pageSize: Type.Integer(), sort: SortState, offset: Type.Integer(), unpaged: Type.Boolean(), paged: Type.Boolean() }),
    numberOfElements: Type.Integer(),
    size: Type.Integer(),
    empty: Type.Boolean(),
    content: Type.Array(row),
    noDataFoundMessage: nullable('string'),
  });
}

/** The page envelope of spec 2.1 around filter-data items (spec 2.2; contract section 2). */
export const FilterValuesSchema = envelopeSchema(
  Type.Object({
    filterData: nullable('string'),
    filterRangeMin: nullable('number'),
    filterRangeMax: nullable('number'),
    filterType: Type.Union([Type.Literal('STRING'), Type.Literal('NUMBER'), Type.Literal('CURRENCY'), Type.Literal('DATE')]),
  }),
);

export const ColumnMetadataSchema = Type.Object({
  title: Type.String(),
  key: Type.String(),
  type: Type.String(),
  active: Type.Boolean(),
  isPartnerData: Type.Boolean(),
  isHidden: Type.Boolean(),
  columnIndex: Type.Integer(),
  source: nullable('string'),
  columnClassification: nullable('string'),
  isFromOtherFields: Type.Boolean(),
  isJson: Type.Boolean(),
  values: Type.Object({}, { additionalProperties: true }),
  crmAccountBaseUri: nullable('string'),
  crmOpportunityBaseUri: nullable('string'),
  otherFieldsPrefix: nullable('string'),
  otherFieldsJsonPrefix: nullable('string'),
  prefix: nullable('string'),
  color: nullable('string'),
});

export const DashboardSchema = Type.Object(
  {
    reportType: Type.String(),
    totals: Type.Record(Type.String(), nullable('number')),
    byPartner: Type.Array(Type.Object({ partnerOrgPublicId: nullable('string'), partnerOrgName: nullable('string') }, { additionalProperties: true })),
    byEventType: Type.Optional(Type.Array(Type.Object({ eventTypeCode: Type.String(), displayName: nullable('string'), events: Type.Integer() }))),
  },
  { description: 'Totals over the matching rows and a per-partner breakdown (docs/api.md lists the keys per report)' },
);

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String(),
    code: Type.Optional(Type.String()),
    requestId: Type.Optional(Type.String()),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { additionalProperties: true, description: 'RFC 9457 problem details (application/problem+json)' },
);

export const ERROR_RESPONSES = {
  400: ProblemSchema,
  401: ProblemSchema,
  404: ProblemSchema,
  429: ProblemSchema,
} as const;

const EpochSchema = Type.Union([Type.String(), Type.Number()], { description: 'epoch seconds, as a string or a number' });

// Value rules (day counts >= 0, bounds in pairs, known ids and codes) are checked by the
// planner, not here, so that one 400 lists every bad context field at once.
export const ContextSchema = Type.Object(
  {
    partnerPublicIds: Type.Optional(Type.Array(Type.String(), { description: 'companyPartnerPublicId of connected partners; required, non-empty' })),
    eventTypeCodes: Type.Optional(Type.Array(Type.String(), { description: 'codes from GET /v1/attribution/event-types; required, non-empty' })),
    dateRangeDays: Type.Optional(Type.Integer({ description: 'events of the last N days (>= 0); ignored when both event bounds are set' })),
    eventDateStart: Type.Optional(EpochSchema),
    eventDateEnd: Type.Optional(EpochSchema),
    oppCreatedDateDays: Type.Optional(Type.Integer({ description: 'summary and detail: opportunities created in the last N days (>= 0)' })),
    oppCreatedDateStart: Type.Optional(EpochSchema),
    oppCreatedDateEnd: Type.Optional(EpochSchema),
  },
  { additionalProperties: false, description: 'Scope of the attribution reports (spec 4.3); ignored by the global reports' },
);

const FiltersSchema = Type.Record(Type.String(), Type.String(), { description: 'column key -> filter string (spec 4.4)' });
const ColumnsSchema = Type.Array(Type.String(), { description: 'column keys to return, in this order (default: all)' });
const SearchSchema = Type.String({ description: 'free text; every white-space separated term must occur in some textual column' });

export const ReportRequestSchema = Type.Object(
  {
    filters: Type.Optional(FiltersSchema),
    search: Type.Optional(SearchSchema),
    columns: Type.Optional(ColumnsSchema),
    context: Type.Optional(ContextSchema),
  },
  { additionalProperties: false, title: 'ReportRequest' },
);

export const PagingQuerySchema = Type.Object(
  {
    page: Type.Optional(Type.String({ description: 'zero-based page index (default 0)' })),
    size: Type.Optional(Type.String({ description: 'page size (default 20, maximum 2000; larger is clamped)' })),
    sort: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description: '`property,asc|desc`; repeatable' })),
  },
  { additionalProperties: true },
);

export const FilterDataQuerySchema = Type.Object(
  {
    // Required, but checked by the service, so that a missing one is listed with the
    // request's other problems instead of alone (contract section 1).
    filterField: Type.Optional(Type.String({ description: 'the column to list values of (required)' })),
    filterSearch: Type.Optional(Type.String({ description: 'keep only values containing this text (case-insensitive)' })),
    page: Type.Optional(Type.String({ description: 'zero-based page index (default 0)' })),
    size: Type.Optional(Type.String({ description: 'page size of the values (default 20, maximum 2000; larger is clamped)' })),
    sort: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description: 'validated as on /records (contract section 2); the values keep their ascending order' })),
  },
  { additionalProperties: true },
);

const channelCommon = {
  channelReportType: Type.String({ description: 'PARTNER_ORG_CONNECTED_PARTNER_ORGS or PARTNER_ORG_MATCHED_ACCOUNTS' }),
  matchingType: Type.Optional(Type.String({ description: 'ALL_PARTNER_ORGS (default) or MUTUAL; MUTUAL is required for matched accounts' })),
  companyPartnerPublicId: Type.Optional(Type.String({ description: 'required for PARTNER_ORG_MATCHED_ACCOUNTS' })),
};

export const ChannelRecordsSchema = Type.Object(
  {
    ...channelCommon,
    search: Type.Optional(SearchSchema),
    filters: Type.Optional(FiltersSchema),
    columns: Type.Optional(ColumnsSchema),
    mapByLocations: Type.Optional(Type.Boolean({ description: 'matched accounts: only partner accounts in the same country, state and city' })),
    byOrg: Type.Optional(Type.Boolean({ description: 'accepted for compatibility; no effect' })),
  },
  { additionalProperties: false, title: 'ReportRequestJsonDto' },
);

export const ChannelColumnsSchema = Type.Object({ ...channelCommon, mapByLocations: Type.Optional(Type.Boolean()), byOrg: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

export const ChannelFilterDataSchema = ChannelRecordsSchema;
