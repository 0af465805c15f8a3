/**
 * Cache of computed figures (counts, filter values, dashboards, caller metadata), keyed
 * by organization, data version and the normalized request. Every import bumps the data
 * version, so a cached figure is never served after the data it was computed from
 * changed. In memory per process; a shared store can implement the same interface.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

export interface FigureCache {
  get<T>(key: string): Promise<T | undefined>;
  set<T>(key: string, value: T): Promise<void>;
}

/**
 * In memory, as JSON text within `maxBytes` (default 8 MiB; counted as UTF-16, two bytes
 * a character). Bounded by bytes, not entries: 20,000 pages of filter values kept as
 * objects held about 60 MB (the server's RSS during a download after the benchmark's
 * first-seen filter values rose from 254 to 343 MiB); their text is a third of that. A
 * hit is parsed again, a few microseconds for these small figures.
 */
export function memoryFigureCache(maxBytes = 8 * 1024 * 1024): FigureCache {
  const lru = new LRUCache<string, string>({ maxSize: maxBytes, sizeCalculation: (text, key) => Math.max(1, 2 * (text.length + key.length)) });
  return {
    async get<T>(key: string) {
      const text = lru.get(key);
      return text === undefined ? undefined : (JSON.parse(text) as T);
    },
    async set<T>(key: string, value: T) {
      const text = JSON.stringify(value);
      if (text !== undefined) lru.set(key, text);
    },
  };
}

/** A short, stable key for any JSON-able description of a request. */
export function cacheKey(kind: string, orgId: number, dataVersion: string, description: unknown): string {
  const digest = createHash('sha256').update(JSON.stringify(description)).digest('base64url').slice(0, 32);
  return `${kind}:${orgId}:${dataVersion}:${digest}`;
}

/**
 * Joins concurrent computations of the same key: while one is running, a second call with
 * that key gets the first one's promise instead of starting its own. Without it, ten
 * clients asking for the same uncached figure at once ran the same scan ten times side by
 * side (a filtered dashboard at 2,000,000 rows: 7 s each, none finished sooner). The entry
 * goes when the computation settles, so a failure is not remembered.
 */
export type SingleFlight = <T>(key: string, compute: () => Promise<T>) => Promise<T>;

export function singleFlight(): SingleFlight {
  const running = new Map<string, Promise<unknown>>();
  return <T>(key: string, compute: () => Promise<T>): Promise<T> => {
    const current = running.get(key);
    if (current) return current as Promise<T>;
    const started = compute().finally(() => running.delete(key));
    running.set(key, started);
    return started;
  };
}

/**
 * Returns the cached value, or computes, stores and returns it; concurrent misses of one
 * key compute once when a SingleFlight is given (the keys hold the organization, data
 * version and request, so callers who share a computation would share its cached value).
 */
export async function cached<T>(cache: FigureCache, key: string, compute: () => Promise<T>, flight?: SingleFlight): Promise<T> {
  const hit = await cache.get<T>(key);
  if (hit !== undefined) return hit;
  const fill = async () => {
    const value = await compute();
    await cache.set(key, value);
    return value;
  };
  return flight ? flight(key, fill) : fill();
}

const JSON_TEXT = Symbol('JSON text');

/**
 * An answer that never changes again (a rendered page), held as the UTF-8 bytes of its
 * JSON text alone: the route sends them as they are (jsonPayload), and the objects it was
 * written from can go. Bytes rather than the string: a repeated page was encoded to UTF-8
 * again on every send, and its length measured again for Content-Length.
 */
export interface JsonText {
  readonly [JSON_TEXT]: Buffer;
}

export function jsonText(text: string): JsonText {
  const value = {};
  Object.defineProperty(value, JSON_TEXT, { value: Buffer.from(text, 'utf8'), enumerable: false });
  return value as JsonText;
}

/** What a response carries: a JsonText's bytes as they are, else JSON.stringify(value). */
export function jsonPayload(value: unknown): string | Buffer {
  return isJsonText(value) ? value[JSON_TEXT] : JSON.stringify(value);
}

/** The JSON text of an answer, as a string (the payload's bytes decoded). */
export function jsonOf(value: unknown): string {
  return String(jsonPayload(value));
}

/** Whether the value is a JsonText (it never changes, so it may be answered again as is). */
export function isJsonText(value: unknown): value is JsonText {
  return typeof value === 'object' && value !== null && JSON_TEXT in value;
}
