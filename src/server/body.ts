/**
 * What a request body may be: JSON in UTF-8, sent as it is (contract section 1: 415 for a
 * body that is not JSON). Decided here, before any route sees the body:
 * - `application/json` (any case, any parameters) is parsed; an empty or blank body is `{}`
 *   (filterdata and columns accept an empty body), and so is an empty body of any other
 *   type (`Content-Length: 0`; `curl -d ''` labels one form-encoded): there is nothing in
 *   it that is not JSON.
 * - Bytes that are not UTF-8 are 400, `body` "is not valid UTF-8": decoding them would
 *   quietly turn them into U+FFFD (a search for it would match nothing, say).
 * - A UTF-8 byte order mark before the JSON is skipped (RFC 8259 section 8.1 lets a parser
 *   ignore it; PowerShell 5 writes one).
 * - A `charset` other than UTF-8 is 415 naming the one allowed: decoding latin-1 bytes as
 *   UTF-8 would quietly turn "é" into U+FFFD and match nothing.
 * - A compressed body (`Content-Encoding` other than identity) is 415 with
 *   `Accept-Encoding: identity` (RFC 9110 section 15.5.16): the bodies are small JSON
 *   documents, and inflating them would have to be bounded by the 1 MiB limit as well.
 * - Any other type with content is 415.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, validationError } from './errors.js';

const unsupported = (detail: string, headers?: Record<string, string>) =>
  new ApiError({ status: 415, code: 'PR115', title: 'Unsupported Media Type', detail, ...(headers ? { headers } : {}) });

/** The 415 of a body that is not JSON (also what toApiError gives Fastify's own). */
export const notJson = () => unsupported('request body must be application/json');

/** The problem with how the body is encoded, if any. */
function encodingProblem(request: FastifyRequest): ApiError | undefined {
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    return unsupported(`request body must not be compressed (Content-Encoding: ${JSON.stringify(encoding).slice(1, -1).slice(0, 40)}); send it as it is`, { 'accept-encoding': 'identity' });
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(request.headers['content-type'] ?? '')?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) return unsupported(`request body must be application/json in UTF-8, not charset ${charset.slice(0, 40)}`);
  return undefined;
}

/** Throws on bytes that are not UTF-8; keeps a byte order mark (removed below, as before). */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const problem = encodingProblem(request);
    if (problem) return done(problem, undefined);
    let text: string;
    try {
      // JSON is UTF-8 (RFC 8259): bytes that are not are refused, not read as U+FFFD.
      text = STRICT_UTF8.decode(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
    } catch {
      return done(validationError([{ field: 'body', message: 'is not valid UTF-8 (a JSON body is UTF-8, RFC 8259)' }], 'PR101'), undefined);
    }
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      done(validationError([{ field: 'body', message: 'is not valid JSON' }], 'PR101'), undefined);
    }
  });
  // Every other type (and a body without one): an empty one is `{}`, anything else 415 as
  // soon as that is known: from Content-Length without reading a byte (so a large body is
  // 415, not 413), from the first byte of a chunked one (an empty chunked body is `{}`).
  app.addContentTypeParser('*', (request, payload, done) => {
    const length = request.headers['content-length'];
    if (length !== undefined) return Number(length) === 0 ? done(null, {}) : done(notJson(), undefined);
    if (request.headers['transfer-encoding'] === undefined) return done(null, {});
    let settled = false;
    const settle = (error: Error | null, body?: unknown) => {
      if (settled) return;
      settled = true;
      done(error, body);
    };
    // Fastify closes the connection after a refused body; whatever of it still comes is dropped.
    payload.on('data', (chunk: Buffer) => chunk.length > 0 && settle(notJson()));
    payload.on('end', () => settle(null, {}));
    // A client that gave up before the first byte: nobody waits for the answer, and it is
    // no failure of the service (its ECONNRESET would read as a database down, a 503).
    payload.on('error', () => settle(notJson()));
  });
}

interface ObjectSchema {
  properties?: Record<string, unknown>;
  required?: readonly string[];
}

/**
 * Optional body fields sent as `null` are taken as absent, at the top level and inside
 * nested objects the schema describes (the attribution `context`): clients generated from
 * the specification's DTOs (ReportRequestJsonDto) send `null` for every field left unset,
 * and `{"search": null}` means what `{}` means. Only fields the route's schema names and
 * does not require: an unknown field stays to be refused (a typo such as `filter` is 400
 * whatever its value, contract section 4), a required one to be named, and the values
 * of a record the schema does not name field by field (a filter's value) keep their type
 * check. Changes `body` in place.
 */
export function dropNullOptionals(body: unknown, schema: unknown): void {
  if (!isPlainObject(body) || !isPlainObject(schema)) return;
  const { properties, required = [] } = schema as ObjectSchema;
  if (!properties) return;
  for (const [name, value] of Object.entries(body)) {
    if (!Object.hasOwn(properties, name)) continue;
    if (value === null && !required.includes(name)) delete body[name];
    else dropNullOptionals(value, properties[name]);
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
