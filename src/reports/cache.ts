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

/** Returns the cached value, or computes, stores and returns it. */
export async function cached<T>(cache: FigureCache, key: string, compute: () => Promise<T>): Promise<T> {
  const hit = await cache.get<T>(key);
  if (hit !== undefined) return hit;
  const value = await compute();
  await cache.set(key, value);
  return value;
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
