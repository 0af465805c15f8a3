/**
 * Environment -> one typed, validated Config. Every bad variable is reported at once
 * so an operator fixes them in one go instead of one restart per typo.
 */
export interface Config {
  /** PostgreSQL URL; when absent the embedded PGlite database in `dataDir` is used. */
  databaseUrl: string | undefined;
  dataDir: string;
  port: number;
  host: string;
  redisUrl: string | undefined;
  jwtSecret: string | undefined;
  jwtJwksUrl: string | undefined;
  jwtIssuer: string | undefined;
  jwtAudience: string | undefined;
  rateLimitPerMinute: number;
  logLevel: string;
  corsOrigins: string[];
  /** Upper bound for one SQL statement; a runaway query ends as a 503, not a hung socket. */
  statementTimeoutMs: number;
  /**
   * Upper bound for receiving a request, and for a connection without any traffic either
   * way (a client that stopped reading a download holds its socket and buffers no longer).
   */
  requestTimeoutMs: number;
  /** How long a stopping server waits for requests in flight before it closes their connections. */
  shutdownTimeoutMs: number;
  /**
   * How far V8 lets the heap grow past the live data before its next full collection, in
   * percent (server/heap.ts); 0 leaves V8's own heuristics.
   */
  heapGrowthPercent: number;
  /**
   * MiB of large tenants' account columns held in memory for counts and filter values
   * (reports/column-store.ts); 0 turns the store off.
   */
  columnStoreMb: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/** docs/benchmarks.md, seventh session: the measurements behind this default. */
export const DEFAULT_HEAP_GROWTH_PERCENT = 60;

/** docs/benchmarks.md, ninth session: two 2,000,000-row date/number columns and a few dictionary columns. */
export const DEFAULT_COLUMN_STORE_MB = 64;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * A number written in decimal digits only, else NaN: Number() would also read "0x10",
 * "1e2", "0b11" and " 50". The environment's numbers and the command line's options both
 * take it.
 */
export const decimalInteger = (raw: string): number => (/^\d{1,16}$/.test(raw) ? Number(raw) : NaN);

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];

  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = decimalInteger(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name}=${JSON.stringify(raw)}: must be an integer from ${min} to ${max}`);
      return fallback;
    }
    return n;
  };
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    try {
      const u = new URL(raw);
      if (!protocols.includes(u.protocol)) {
        problems.push(`${name}: protocol must be one of ${protocols.join(', ')}`);
      }
    } catch {
      problems.push(`${name}: not a valid URL`);
    }
    return raw;
  };
  const opt = (name: string): string | undefined => (env[name] === undefined || env[name] === '' ? undefined : env[name]);

  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL=${JSON.stringify(logLevel)}: must be one of ${LOG_LEVELS.join(', ')}`);

  const jwtJwksUrl = opt('JWT_JWKS_URL');
  // Anything with another scheme (`ftp:`, `s3:`) is refused; anything without one is a file path, relative ones too.
  if (jwtJwksUrl && /^[a-z][a-z0-9+.-]*:/i.test(jwtJwksUrl) && !/^(https?|file):/i.test(jwtJwksUrl)) problems.push('JWT_JWKS_URL: must be an http(s) URL, a file: URL or a file path');

  const config: Config = {
    databaseUrl: url('DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: env.DATA_DIR || './data',
    port: int('PORT', 8080, 0, 65535),
    host: env.HOST || '127.0.0.1',
    redisUrl: url('REDIS_URL', ['redis:', 'rediss:']),
    jwtSecret: opt('JWT_SECRET'),
    jwtJwksUrl,
    jwtIssuer: opt('JWT_ISSUER'),
    jwtAudience: opt('JWT_AUDIENCE'),
    rateLimitPerMinute: int('RATE_LIMIT_PER_MINUTE', 100, 1, 10_000_000),
    logLevel,
    corsOrigins: (env.CORS_ORIGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    statementTimeoutMs: int('STATEMENT_TIMEOUT_MS', 30_000, 100, 3_600_000),
    requestTimeoutMs: int('REQUEST_TIMEOUT_MS', 120_000, 1_000, 3_600_000),
    shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS', 25_000, 0, 3_600_000),
    heapGrowthPercent: int('HEAP_GROWTH_PERCENT', DEFAULT_HEAP_GROWTH_PERCENT, 0, 400),
    columnStoreMb: int('COLUMN_STORE_MB', DEFAULT_COLUMN_STORE_MB, 0, 65_536),
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}
