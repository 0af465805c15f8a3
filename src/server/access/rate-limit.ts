/**
 * The rolling rate limit: at most `limit` requests in any 60-second window per identity
 * (an API key, or sub+org for a bearer token). An exact sliding log: each identity keeps
 * the timestamps of its accepted requests of the last window; a request is accepted when
 * fewer than `limit` remain, and only accepted requests are recorded, so rejected ones
 * do not consume quota.
 */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the oldest counted request leaves the window (when a slot frees up). */
  resetSeconds: number;
}

export interface RateLimiter {
  check(identity: string): Promise<RateDecision>;
  close(): Promise<void>;
}

export const WINDOW_MS = 60_000;

export function memoryRateLimiter(limit: number, clock: () => number): RateLimiter {
  const logs = new Map<string, number[]>();
  let sweeps = 0;
  return {
    async check(identity) {
      const now = clock();
      const since = now - WINDOW_MS;
      let log = logs.get(identity);
      if (!log) logs.set(identity, (log = []));
      // Timestamps are appended in order, so expired ones are a prefix.
      let expired = 0;
      while (expired < log.length && log[expired]! <= since) expired++;
      if (expired) log.splice(0, expired);
      const allowed = log.length < limit;
      if (allowed) log.push(now);
      // Forget idle identities now and then so memory follows the active keys only.
      if (++sweeps % 10_000 === 0) for (const [k, v] of logs) if (!v.length || v[v.length - 1]! <= since) logs.delete(k);
      const oldest = log[0];
      const resetSeconds = oldest === undefined ? 0 : Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000));
      return { allowed, limit, remaining: Math.max(0, limit - log.length), resetSeconds };
    },
    async close() {
      logs.clear();
    },
  };
}
