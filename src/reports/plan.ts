/**
 * Plan stage: resolve the request's names against the report catalog and the caller
 * (custom fields, connected partners, share settings, event types). Every 400 about
 * meaning happens here, all at once. Pure: the metadata and the clock are inputs, so it
 * is tested without a database. The result is an immutable Plan that query.ts compiles.
 */
import { ACCOUNT_FIELDS, partnerCustomKey } from './catalog/account-fields.js';
import { apiType, OPERATIONS_BY_TYPE, type Column, type ColumnType, type FilterOperation, type ReportDefinition } from './catalog/types.js';
import { decimalNumber, operationOf, parseFilter, type ParsedFilter } from './filter-language.js';
import type { CustomFieldMeta, OrgMetadata, PartnerMeta } from './metadata.js';
import { MAX_SEARCH_TERMS, searchTerms, type Direction, type Paging, type RawContext, type ReportBody } from './request.js';
import { clip, MAX_FIELD_LENGTH, validationError, type FieldError } from '../server/errors.js';

export interface FilterPlan {
  column: Column;
  filter: ParsedFilter;
}

export interface DateWindow {
  min: number | null;
  max: number | null;
}

/** Row scope beyond the organization: what `context` and the channel body select. */
export interface Scope {
  partnerOrgIds?: readonly number[];
  eventTypeCodes?: readonly string[];
  eventDate?: DateWindow;
  oppCreatedDate?: DateWindow;
  /** Connected partners: mutual ones only. */
  mutualOnly?: boolean;
  /** Matched accounts: only rows whose partner account is in the same place. */
  sameLocation?: boolean;
}

export interface OutputColumn {
  /** Key in the row (an alias key when one was asked for). */
  key: string;
  column: Column;
}

export interface Plan {
  report: ReportDefinition;
  orgId: number;
  /** Every column of this report for this caller: catalog, custom, partner. */
  columns: readonly Column[];
  output: readonly OutputColumn[];
  filters: readonly FilterPlan[];
  search: readonly string[];
  searchColumns: readonly Column[];
  sort: readonly { column: Column; direction: Direction }[];
  scope: Scope;
  page: number;
  size: number;
  /** Whether the caller asked for a sort (the envelope's `sort.sorted`). */
  sorted: boolean;
  /** Whether the caller chose the columns (`columns` in the body). */
  explicitColumns: boolean;
  /** Matched accounts: the partner whose fields fill `partnerFields`. */
  partner?: PartnerMeta;
  /** Filter values: the column whose values are listed (`excludeFilterOn` resolved, aliases included). */
  filterField?: Column;
}

export interface ChannelOptions {
  matchingType?: string | undefined;
  companyPartnerPublicId?: string | undefined;
  mapByLocations?: boolean | undefined;
}

export interface PlanInput {
  report: ReportDefinition;
  meta: OrgMetadata;
  body: ReportBody;
  paging: Paging;
  /** Seconds since the epoch ("last N days" counts back from here). */
  nowSeconds: number;
  channel?: ChannelOptions;
  /**
   * For filter values: the column listed (query `filterField`). It must be a column of the
   * report, and a filter on it is validated like any other but not applied, so a filter UI
   * can offer more values for a column already filtered (contract section 4).
   */
  excludeFilterOn?: string;
  /**
   * Filter values and columns accept `{}` for every report (contract sections 4 and 5):
   * an attribution report without a context then ranges over all of the caller's rows
   * (every connected partner, every event type, no date window). A context that is given
   * is validated as always. Records, download and dashboard leave this unset.
   */
  contextOptional?: boolean;
  /**
   * Matched accounts without `matchingType`: spec 4.5 requires it on `/records` only (its
   * `/columns` body marks it optional, its `/filterdata` body does not require it). A
   * value that is given must still be MUTUAL.
   */
  matchingTypeOptional?: boolean;
  /**
   * Problems found before planning (the query's page, size and filter-values parameters):
   * reported with the plan's own, so one answer lists every bad field (contract section 1).
   */
  earlier?: readonly FieldError[];
}

const SQL_TYPE: Record<ColumnType, string> = {
  string: 'text', uuid: 'text', name: 'text', email: 'text', title: 'text', phone: 'text',
  number: 'double precision', currency: 'double precision', date: 'bigint', boolean: 'boolean',
};

export function sqlTypeOf(type: ColumnType): string {
  return SQL_TYPE[type];
}

function customColumn(f: CustomFieldMeta, key: string, json: 'custom' | 'partner_fields', source: 'custom' | 'partner', jsonKey: string): Column {
  const c: Column = { key, title: f.title, type: f.type, sql: '', json: { column: json, key: jsonKey }, source };
  if (source === 'custom') {
    c.classification = f.classification;
    c.entity = f.entity;
  }
  return c;
}

/** The caller's custom columns for a report, in the catalog's entity precedence (first definition of a key wins). */
export function customColumns(report: ReportDefinition, meta: Pick<OrgMetadata, 'customFields'>): Column[] {
  const seen = new Set(report.columns.map((c) => c.key));
  const out: Column[] = [];
  for (const entity of report.customEntities) {
    for (const f of meta.customFields) {
      if (f.entity !== entity) continue;
      const key = `custom_${f.key}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(customColumn(f, key, 'custom', 'custom', f.key));
    }
  }
  return out;
}

/** Columns for the fields one partner shares (matched accounts' `partnerFields`). */
export function partnerColumns(partner: PartnerMeta, meta: OrgMetadata): Column[] {
  const shared = new Set(partner.sharedFields);
  const out: Column[] = [];
  for (const f of ACCOUNT_FIELDS) {
    if (!f.sharedBy.some((s) => shared.has(s))) continue;
    out.push({ key: f.partnerKey, title: f.title, type: f.type, sql: '', json: { column: 'partner_fields', key: f.partnerKey }, source: 'partner' });
  }
  const defs = meta.partnerCustomFields.get(partner.orgId) ?? [];
  for (const name of partner.sharedFields) {
    if (!name.startsWith('custom.')) continue;
    const key = name.slice('custom.'.length);
    // A key the partner defines no account field for is in no report (docs/api.md, Import).
    const def = defs.find((d) => d.key === key);
    if (!def) continue;
    const partnerKey = partnerCustomKey(key);
    // Standard keys are the standard fields' whether shared or not: a custom field never
    // takes `partneraccountname` because the name is not shared (materialize.ts says the same).
    if (STANDARD_PARTNER_KEYS.has(partnerKey) || out.some((c) => c.key === partnerKey)) continue;
    out.push(customColumn({ ...def, title: `Partner ${def.title}` }, partnerKey, 'partner_fields', 'partner', partnerKey));
  }
  return out;
}

const STANDARD_PARTNER_KEYS: ReadonlySet<string> = new Set(ACCOUNT_FIELDS.map((f) => f.partnerKey));

const OPERATION_NAMES: Record<FilterOperation, string> = {
  exact: 'exact match',
  notEqual: 'not equal (-!-)',
  contains: 'contains (-?-)',
  doesNotContain: 'does not contain (-^-)',
  range: 'range (min<->max)',
};

export function describeOperations(type: ColumnType): string {
  return OPERATIONS_BY_TYPE[type].map((o) => OPERATION_NAMES[o]).join(', ');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function buildPlan(input: PlanInput): Plan {
  const { report, meta, body, paging } = input;
  const errors: FieldError[] = [...(input.earlier ?? [])];
  const scope: Scope = {};
  let partner: PartnerMeta | undefined;

  if (report.id === 'PARTNER_ORG_MATCHED_ACCOUNTS') {
    partner = resolveMatchedPartner(input.channel ?? {}, meta, errors, input.matchingTypeOptional ?? false);
    scope.partnerOrgIds = partner ? [partner.orgId] : [];
    if (input.channel?.mapByLocations) scope.sameLocation = true;
  } else if (report.id === 'PARTNER_ORG_CONNECTED_PARTNER_ORGS') {
    const mt = input.channel?.matchingType;
    if (mt !== undefined && mt !== 'ALL_PARTNER_ORGS' && mt !== 'MUTUAL') errors.push({ field: 'matchingType', message: `must be ALL_PARTNER_ORGS or MUTUAL, got ${JSON.stringify(mt)}` });
    if (mt === 'MUTUAL') scope.mutualOnly = true;
  }
  if (report.context !== 'none' && !(body.context === undefined && input.contextOptional)) {
    Object.assign(scope, planContext(report, body.context, meta, input.nowSeconds, errors));
  }

  const columns: Column[] = [...report.columns, ...customColumns(report, meta), ...(partner ? partnerColumns(partner, meta) : [])];
  const byKey = new Map(columns.map((c) => [c.key, c]));
  const aliases = report.aliases ?? {};
  const resolve = (key: string): Column | undefined => byKey.get(aliases[key] ?? key);
  const keys = () => [...columns.map((c) => c.key), ...Object.keys(aliases)];
  // The first unknown key's message lists every key; later ones refer to it, so a body of
  // many unknown keys is not answered with the list many times over (errors.ts bounds a
  // message at 2,000 characters, which holds the widest report's list; a tenant's many
  // custom columns may still be cut off, and the whole list is one `/columns` call away).
  // A key written in another case or with other separators (`Custom_Tier`, `accountName`
  // for `account_name`) is named first. The key itself is echoed clipped (caller text).
  const loose = (key: string) => key.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
  let listedFor: string | undefined;
  const unknown = (field: string, what: string, key: string, listed: string, note = '') => {
    const near = keys().find((k) => loose(k) === loose(key));
    const head = `${what} "${clip(key, MAX_FIELD_LENGTH)}"${note}${near ? `; did you mean "${near}"?` : ''}; ${listed} of ${report.id}`;
    if (listedFor !== undefined) return `${head}: as listed for ${listedFor} (all of them: /columns)`;
    listedFor = field;
    return `${head} (all of them: /columns): ${keys().join(', ')}`;
  };

  // The filter-values column, resolved here so that an unknown one is reported with the
  // other problems of the request.
  let excluded: Column | undefined;
  if (input.excludeFilterOn !== undefined) {
    excluded = resolve(input.excludeFilterOn);
    if (!excluded) errors.push({ field: 'filterField', message: unknown('filterField', 'unknown column', input.excludeFilterOn, 'columns') });
  }

  // Filters.
  const filters: FilterPlan[] = [];
  for (const [key, raw] of Object.entries(body.filters)) {
    const field = `filters.${key}`;
    const column = resolve(key);
    if (!column) {
      errors.push({ field, message: unknown(field, 'unknown column', key, 'filterable columns') });
      continue;
    }
    const operation = operationOf(raw);
    if (!OPERATIONS_BY_TYPE[column.type].includes(operation)) {
      errors.push({ field, message: `column "${key}" is ${apiType(column.type)}: it supports ${describeOperations(column.type)}, not ${OPERATION_NAMES[operation]}` });
      continue;
    }
    const parsed = parseFilter(raw);
    if (!parsed.ok) {
      errors.push({ field, message: parsed.message });
      continue;
    }
    if (column.type === 'boolean' && parsed.filter.operation === 'exact' && parsed.filter.values.some((v) => v !== 'true' && v !== 'false')) {
      errors.push({ field, message: `column "${key}" is boolean: values are "true" or "false"` });
      continue;
    }
    const filter = parsed.filter.operation === 'range' && column.type === 'date'
      ? { ...parsed.filter, min: epochBound(parsed.filter.min, 'min'), max: epochBound(parsed.filter.max, 'max') }
      : parsed.filter;
    // Validated above like any filter (a bad one is a 400 here as on /records), not applied.
    if (column === excluded) continue;
    filters.push({ column, filter });
  }

  // Sort.
  const sort: { column: Column; direction: Direction }[] = [];
  for (const term of paging.sort) {
    const column = resolve(term.key);
    // `sort=city,up` reads as two properties (Spring Data's `a,b,desc`); its last part may have been meant as a direction.
    if (!column) errors.push({ field: 'sort', message: unknown('sort', 'unknown sort property', term.key, 'sortable columns', term.orDirection ? ' (nor a direction: asc or desc)' : '') });
    else sort.push({ column, direction: term.direction });
  }

  // Column selection.
  let output: OutputColumn[];
  if (body.columns) {
    output = [];
    const seen = new Set<string>();
    body.columns.forEach((key, i) => {
      const column = resolve(key);
      if (!column) errors.push({ field: `columns[${i}]`, message: unknown(`columns[${i}]`, 'unknown column', key, 'columns') });
      else if (!seen.has(key)) {
        seen.add(key);
        output.push({ key, column });
      }
    });
  } else {
    output = columns.map((c) => ({ key: c.key, column: c }));
    for (const [alias, target] of Object.entries(aliases)) {
      const column = byKey.get(target);
      if (column) output.push({ key: alias, column });
    }
  }

  const search = searchTerms(body.search);
  if (search.length > MAX_SEARCH_TERMS) errors.push({ field: 'search', message: `has ${search.length} terms: at most ${MAX_SEARCH_TERMS} (every term must occur in the row)` });

  if (errors.length) throw validationError(errors);

  const plan: Plan = {
    report,
    orgId: meta.orgId,
    columns,
    output,
    filters,
    search,
    searchColumns: columns.filter((c) => c.type !== 'boolean' && c.type !== 'date' && c.type !== 'number' && c.type !== 'currency'),
    sort,
    scope,
    page: paging.page,
    size: paging.size,
    sorted: sort.length > 0,
    explicitColumns: body.columns !== undefined,
  };
  if (partner) plan.partner = partner;
  if (excluded) plan.filterField = excluded;
  return plan;
}

function resolveMatchedPartner(channel: ChannelOptions, meta: OrgMetadata, errors: FieldError[], matchingTypeOptional: boolean): PartnerMeta | undefined {
  if (channel.matchingType === undefined) {
    if (!matchingTypeOptional) errors.push({ field: 'matchingType', message: 'is required for PARTNER_ORG_MATCHED_ACCOUNTS: use MUTUAL' });
  } else if (channel.matchingType !== 'MUTUAL') errors.push({ field: 'matchingType', message: `must be MUTUAL for PARTNER_ORG_MATCHED_ACCOUNTS, got ${JSON.stringify(channel.matchingType)}` });
  const id = channel.companyPartnerPublicId;
  if (id === undefined || id === '') {
    errors.push({ field: 'companyPartnerPublicId', message: 'is required for PARTNER_ORG_MATCHED_ACCOUNTS: the publicId of a connected partner (see PARTNER_ORG_CONNECTED_PARTNER_ORGS)' });
    return undefined;
  }
  const partner = meta.partners.get(id.toLowerCase());
  // Same message whether the organization exists elsewhere or not.
  if (!partner) errors.push({ field: 'companyPartnerPublicId', message: `"${id}" is not a partner connected to your organization` });
  return partner;
}

// ---- context (spec 4.3, contract section 4) ---------------------------------------------

/**
 * A bound on an epoch-seconds column as the integer that selects the same rows: dates are
 * whole seconds, so `>= 1.5` is `>= 2` and `<= 2.5` is `<= 2`; bounds past the safe
 * integer range (every stored date is within it) clamp to its ends. The SQL then
 * compares bigint with bigint, and no request value can overflow it.
 */
export function epochBound(value: number | null, side: 'min' | 'max'): number | null {
  if (value === null) return null;
  const whole = side === 'min' ? Math.ceil(value) : Math.floor(value);
  return Math.min(Number.MAX_SAFE_INTEGER, Math.max(-Number.MAX_SAFE_INTEGER, whole));
}

function epoch(value: unknown, field: string, errors: FieldError[]): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  const n = typeof value === 'string' ? decimalNumber(value) : undefined;
  if (n !== undefined) return n;
  errors.push({ field, message: `must be epoch seconds: a number, or a string holding one ("1700000000", "1.7e9"), got ${JSON.stringify(value)}` });
  return null;
}

function dayCount(value: unknown, field: string, errors: FieldError[]): number | null {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  errors.push({ field, message: `must be a non-negative integer number of days, got ${JSON.stringify(value)}` });
  return null;
}

/** Rules 1-3 of spec 4.3 for one date: both bounds > day count > unbounded. */
function dateWindow(context: RawContext, days: keyof RawContext, start: keyof RawContext, end: keyof RawContext, nowSeconds: number, errors: FieldError[]): DateWindow | undefined {
  const has = (k: keyof RawContext) => context[k] !== undefined && context[k] !== null;
  let window: DateWindow | undefined;
  if (has(start) !== has(end)) {
    const missing = has(start) ? end : start;
    const given = has(start) ? start : end;
    errors.push({ field: `context.${missing}`, message: `is required when context.${given} is given (the two bounds go together)` });
    epoch(context[given], `context.${given}`, errors); // its own problem too, all in one answer
  } else if (has(start) && has(end)) {
    const min = epoch(context[start], `context.${start}`, errors);
    const max = epoch(context[end], `context.${end}`, errors);
    if (min !== null && max !== null) {
      if (min > max) errors.push({ field: `context.${start}`, message: `${min} is after context.${end} ${max}` });
      else window = { min: epochBound(min, 'min'), max: epochBound(max, 'max') };
    }
  }
  if (has(days)) {
    const n = dayCount(context[days], `context.${days}`, errors);
    // Ignored when both bounds are set (they take precedence), but still validated.
    if (n !== null && !window) window = { min: epochBound(nowSeconds - n * 86400, 'min'), max: null };
  }
  return window;
}

function planContext(report: ReportDefinition, raw: RawContext | undefined, meta: OrgMetadata, nowSeconds: number, errors: FieldError[]): Scope {
  const scope: Scope = {};
  const context: RawContext = raw ?? {};
  const list = (key: 'partnerPublicIds' | 'eventTypeCodes'): string[] | null => {
    const value = context[key];
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) {
      // Contract section 4: missing or empty "is 400 listing which"; a body without a
      // context misses both, and each is listed under its own name.
      errors.push({ field: `context.${key}`, message: raw === undefined ? `is required for ${report.id} (the body has no context)` : 'is required and must not be empty' });
      return null;
    }
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
      errors.push({ field: `context.${key}`, message: 'must be an array of strings' });
      return null;
    }
    return value as string[];
  };
  const ids = list('partnerPublicIds');
  if (ids) {
    const orgIds: number[] = [];
    ids.forEach((id, i) => {
      const p = UUID.test(id) ? meta.partners.get(id.toLowerCase()) : undefined;
      if (!p) errors.push({ field: `context.partnerPublicIds[${i}]`, message: `"${id}" is not a partner connected to your organization` });
      else orgIds.push(p.orgId);
    });
    scope.partnerOrgIds = [...new Set(orgIds)];
  }
  const codes = list('eventTypeCodes');
  if (codes) {
    codes.forEach((code, i) => {
      if (!meta.eventTypeCodes.has(code)) {
        errors.push({ field: `context.eventTypeCodes[${i}]`, message: `"${code}" is not an event type code; valid codes (GET /v1/attribution/event-types): ${[...meta.eventTypeCodes].join(', ')}` });
      }
    });
    scope.eventTypeCodes = [...new Set(codes)];
  }
  const eventDate = dateWindow(context, 'dateRangeDays', 'eventDateStart', 'eventDateEnd', nowSeconds, errors);
  if (eventDate) scope.eventDate = eventDate;
  // Validated on every attribution report (contract section 4 lists the bad values as
  // 400), applied only where there are opportunities to choose.
  const opp = dateWindow(context, 'oppCreatedDateDays', 'oppCreatedDateStart', 'oppCreatedDateEnd', nowSeconds, errors);
  if (opp && report.context === 'events-and-opportunities') scope.oppCreatedDate = opp;
  return scope;
}
