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

export function memoryFigureCache(maxEntries = 20_000): FigureCache {
  const lru = new LRUCache<string, { v: unknown }>({ max: maxEntries });
  return {
    async get<T>(key: string) {
      return lru.get(key)?.v as T | undefined;
    },
    async set<T>(key: string, value: T) {
      lru.set(key, { v: value });
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
 * Marks a value that never changes again (a cached page) so that its JSON text is made
 * once, by the first jsonOf, and kept with it (a property JSON.stringify does not see).
 */
export function keepsJson<T extends object>(value: T): T {
  Object.defineProperty(value, JSON_TEXT, { value: undefined, writable: true, enumerable: false });
  return value;
}

/** JSON.stringify(value), made only once for a value marked by keepsJson. */
export function jsonOf(value: unknown): string {
  if (typeof value !== 'object' || value === null || !(JSON_TEXT in value)) return JSON.stringify(value);
  const slot = value as { [JSON_TEXT]?: string };
  return (slot[JSON_TEXT] ??= JSON.stringify(value));
}

/** Whether keepsJson marked the value (it never changes, so it may be answered again as is). */
export function isKept(value: unknown): value is object {
  return typeof value === 'object' && value !== null && JSON_TEXT in value;
}
