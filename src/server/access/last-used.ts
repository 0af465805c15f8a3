/**
 * `lastUsedAt` of API keys, written off the request path: a request only notes the key
 * in memory; a timer flushes the noted keys in one UPDATE at most once a minute per key
 * (and on shutdown), so authentication never waits for a write.
 */
import { sql, type Kysely } from 'kysely';
import type { Schema } from '../../db/schema.js';

export interface LastUsedRecorder {
  note(keyId: string): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function lastUsedRecorder(db: Kysely<Schema>, clock: () => number, intervalMs = 60_000): LastUsedRecorder {
  const pending = new Map<string, number>();
  const written = new Map<string, number>();
  const flush = async () => {
    if (!pending.size) return;
    const batch = [...pending];
    pending.clear();
    const ids = batch.map(([id]) => id);
    const times = batch.map(([, t]) => new Date(t).toISOString());
    await sql`update api_keys k set last_used_at = v.t::timestamptz
      from unnest(${ids}::uuid[], ${times}::text[]) as v(id, t)
      where k.id = v.id and (k.last_used_at is null or k.last_used_at < v.t::timestamptz)`.execute(db);
  };
  const timer = setInterval(() => void flush().catch(() => undefined), Math.min(intervalMs, 10_000));
  timer.unref();
  return {
    note(keyId) {
      const now = clock();
      const last = written.get(keyId);
      if (last !== undefined && now - last < intervalMs) return;
      written.set(keyId, now);
      pending.set(keyId, now);
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush().catch(() => undefined);
    },
  };
}
