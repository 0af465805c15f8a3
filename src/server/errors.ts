/**
 * The one registry of typed errors. Every stage throws an ApiError (or a subclass);
 * the root error handler in app.ts renders it as RFC 9457 problem+json. Anything that
 * is not an ApiError becomes a 500 whose body carries only the request id.
 *
 * Codes are stable and grouped by stage, PostgREST-style:
 *   PR1xx request (body, query, filter syntax)   PR2xx plan (catalog, context)
 *   PR4xx access (credentials, permissions, limits)   PR5xx dependencies
 */

export interface FieldError {
  field: string;
  message: string;
}

export interface ProblemInit {
  status: number;
  code: string;
  title: string;
  detail: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
  /** What went wrong underneath (logged, never sent): the driver's error, a timeout. */
  cause?: unknown;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly errors: FieldError[] | undefined;
  /** Every entry, before `errors` was bounded: what another list of problems is merged with. */
  readonly allErrors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(init: ProblemInit) {
    super(init.detail, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ApiError';
    this.status = init.status;
    this.code = init.code;
    this.title = init.title;
    this.errors = init.errors && boundedErrors(init.errors);
    this.allErrors = init.errors;
    this.headers = init.headers ?? {};
  }
}

// Caller-supplied text (field names, values, paths) is named in problems, but never
// reflected without bound: a 1 MiB request must not produce a larger answer.
export const MAX_FIELD_LENGTH = 200;
// 2,000: an unknown column's message lists the report's columns (1,656 characters for the
// widest, PIPELINE_ATTRIBUTION_DETAIL); 500 cut the list off.
export const MAX_MESSAGE_LENGTH = 2000;
export const MAX_DETAIL_LENGTH = 2000;
export const MAX_INSTANCE_LENGTH = 1024;
/** At most this many `errors` entries; a last one says how many more there were. */
export const MAX_FIELD_ERRORS = 100;

/** `text` cut to `max` characters (whole code points), marked with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  // Do not leave half a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** A field with its item indexes left out: `context.partnerPublicIds[7]` is `context.partnerPublicIds[]`. */
const fieldFamily = (field: string) => field.replace(/\[\d+\]/g, '[]');

/**
 * The entries listed when there are more than the limit: the first of every field (its
 * items counted as one field) before any second one, then the rest in order, all in their
 * original order. Thousands of bad partner ids must not hide a bad event type code: the
 * contract names every bad field.
 */
function listedErrors(errors: FieldError[]): FieldError[] {
  if (errors.length <= MAX_FIELD_ERRORS) return errors;
  const chosen = new Set<number>();
  const families = new Set<string>();
  errors.forEach((e, i) => {
    const family = fieldFamily(e.field);
    if (chosen.size < MAX_FIELD_ERRORS && !families.has(family)) {
      families.add(family);
      chosen.add(i);
    }
  });
  for (let i = 0; i < errors.length && chosen.size < MAX_FIELD_ERRORS; i++) chosen.add(i);
  return errors.filter((_, i) => chosen.has(i));
}

function boundedErrors(errors: FieldError[]): FieldError[] {
  const clipped = listedErrors(errors).map((e) => ({ field: clip(e.field, MAX_FIELD_LENGTH), message: clip(e.message, MAX_MESSAGE_LENGTH) }));
  if (errors.length > MAX_FIELD_ERRORS) clipped.push({ field: 'request', message: `${errors.length - MAX_FIELD_ERRORS} more problems not listed` });
  return clipped;
}

/** 400 with one entry per bad field; `detail` summarises them all. */
export function validationError(errors: FieldError[], code = 'PR100', cause?: unknown): ApiError {
  const listed = boundedErrors(errors);
  const detail = errors.length === 1 ? `${listed[0]!.field}: ${listed[0]!.message}` : `${errors.length} problems: ${listed.map((e) => `${e.field}: ${e.message}`).join('; ')}`;
  return new ApiError({ status: 400, code, title: 'Bad Request', detail: clip(detail, MAX_DETAIL_LENGTH), errors, cause });
}

export function badRequest(field: string, message: string, code = 'PR100'): ApiError {
  return validationError([{ field, message }], code);
}

export function notFound(detail: string, code = 'PR404'): ApiError {
  return new ApiError({ status: 404, code, title: 'Not Found', detail });
}

export function unauthorized(): ApiError {
  // One message for missing, malformed, unknown, revoked and expired credentials, so a
  // caller cannot probe which keys exist.
  return new ApiError({
    status: 401,
    code: 'PR401',
    title: 'Unauthorized',
    detail: 'missing or invalid credentials: send a valid `api-key` header or `authorization: Bearer <JWT>`',
    headers: { 'www-authenticate': 'ApiKey, Bearer' },
  });
}

export function forbidden(detail: string): ApiError {
  return new ApiError({ status: 403, code: 'PR403', title: 'Forbidden', detail });
}

export function tooManyRequests(retryAfterSeconds: number, detail: string): ApiError {
  return new ApiError({
    status: 429,
    code: 'PR429',
    title: 'Too Many Requests',
    detail,
    headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  });
}

export function unavailable(detail: string, retryAfterSeconds = 5, cause?: unknown): ApiError {
  return new ApiError({ status: 503, code: 'PR503', title: 'Service Unavailable', detail, headers: { 'retry-after': String(retryAfterSeconds) }, cause });
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code?: string;
  requestId?: string;
  errors?: FieldError[];
}

// A URN rather than a made-up web address: the problem code is the stable identifier.
export const PROBLEM_TYPE_BASE = 'urn:partner-reports:problem:';

export function problemBody(err: ApiError, instance: string, requestId: string): ProblemBody {
  const body: ProblemBody = {
    type: `${PROBLEM_TYPE_BASE}${err.code}`,
    title: err.title,
    status: err.status,
    detail: clip(err.message, MAX_DETAIL_LENGTH),
    instance: clip(instance, MAX_INSTANCE_LENGTH),
    code: err.code,
    requestId,
  };
  if (err.errors) body.errors = err.errors;
  return body;
}
