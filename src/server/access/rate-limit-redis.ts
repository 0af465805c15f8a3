/**
 * The rolling rate limit in Redis, shared by every instance: the same exact sliding log
 * as the in-memory limiter, as a sorted set of accepted-request timestamps per identity,
 * checked and updated atomically by one Lua script per request.
 *
 * If Redis becomes unreachable the service keeps serving with per-instance in-memory
 * limits (logged once, shown in /readyz) and returns to Redis as soon as it answers.
 * The state follows the connection itself (ioredis' `ready` and `close` events) as well
 * as each command's outcome, so /readyz tells the truth on an instance that serves no
 * request meanwhile, and a Redis that stalls without closing is noticed by its commands.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { memoryRateLimiter, WINDOW_MS, type RateDecision, type RateLimiter } from './rate-limit.js';

const SLIDING_LOG = `
local key, now, window, limit, member = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, member)
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', key, window)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return { allowed, count, oldest[2] or tostring(now) }`;

export interface SharedRateLimiter extends RateLimiter {
  /** 'redis', or 'memory (redis unavailable)' while degraded. */
  store(): string;
}

export interface RedisLimiterOptions {
  url: string;
  limit: number;
  clock: () => number;
  /** Key prefix (tests use their own). */
  prefix?: string;
  onStoreChange?: (store: string) => void;
}

type SlidingLog = (key: string, now: number, window: number, limit: number, member: string) => Promise<[number, number, string]>;

/** How long a request waits for Redis before it is limited per instance: a dead Redis must never hang a request. */
export const ANSWER_WITHIN_MS = 500;
const LATE: unique symbol = Symbol('late');

/**
 * `command`'s outcome, or LATE when it has none `ms` after it was sent and after the
 * replies that arrived meanwhile were read. A timer alone would say LATE whenever the
 * event loop was blocked past `ms`: Node runs due timers before it reads its sockets, so
 * a reply that came during the block is read only after the timer. On the timer, this
 * waits for the next check phase (setImmediate), which comes after the poll phase has
 * read the sockets, and a reply that was there has by then settled the command.
 */
export function answerWithin<T>(command: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const late = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => {
      immediate = setImmediate(resolve, LATE);
    }, ms);
  });
  return Promise.race([command, late]).finally(() => {
    clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
  });
}

export function redisRateLimiter(options: RedisLimiterOptions): SharedRateLimiter {
  const redis = new Redis(options.url, {
    // Fail fast instead of queueing: a dead Redis must never hang a request.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    // The 500 ms a request waits is ANSWER_WITHIN_MS below; ioredis' own command timeout,
    // a plain timer, fired when the event loop was busy (writing 2,000-row pages took
    // 200-300 ms of it at a time) though the reply had arrived, and the instance fell back
    // to its own limits (37 times in a 32-minute soak). This one is only a backstop.
    commandTimeout: 10_000,
    retryStrategy: (times) => Math.min(200 * times, 2000),
  });
  redis.on('error', () => {
    /* the state change is reported through onStoreChange */
  });
  redis.defineCommand('prSlidingLog', { numberOfKeys: 1, lua: SLIDING_LOG });
  const slidingLog = (redis as unknown as { prSlidingLog: SlidingLog }).prSlidingLog.bind(redis);
  const fallback = memoryRateLimiter(options.limit, options.clock);
  const prefix = options.prefix ?? 'pr:rl:';
  let degraded = false;
  const setDegraded = (value: boolean) => {
    if (degraded === value) return;
    degraded = value;
    options.onStoreChange?.(value ? 'memory (redis unavailable)' : 'redis');
  };

  let closing = false;
  redis.on('ready', () => setDegraded(false));
  // Not when this limiter closes the connection itself (a shutdown is no outage).
  redis.on('close', () => closing || setDegraded(true));

  return {
    store: () => (degraded || redis.status !== 'ready' ? 'memory (redis unavailable)' : 'redis'),
    async check(identity): Promise<RateDecision> {
      if (redis.status === 'ready') {
        const now = options.clock();
        try {
          const answer = await answerWithin(slidingLog(`${prefix}${identity}`, now, WINDOW_MS, options.limit, `${now}-${randomBytes(6).toString('hex')}`), ANSWER_WITHIN_MS);
          if (answer !== LATE) {
            const [allowed, count, oldest] = answer;
            setDegraded(false);
            const resetSeconds = Math.max(1, Math.ceil((Number(oldest) + WINDOW_MS - now) / 1000));
            return { allowed: allowed === 1, limit: options.limit, remaining: Math.max(0, options.limit - count), resetSeconds };
          }
        } catch {
          /* failed: like a late answer, the per-instance limiter below */
        }
      }
      setDegraded(true);
      return fallback.check(identity);
    },
    async close() {
      closing = true;
      await fallback.close();
      redis.disconnect();
    },
  };
}
