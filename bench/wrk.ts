/**
 * wrk (Debian's `wrk` package) as the load generator of the repeated scenarios, when it is
 * installed. Written in C, it spends about 0.04 ms of CPU per 42 KB answer where
 * autocannon spent 0.2-0.3 ms, as much as the server itself (bench/tools/cpu-per-request.ts
 * prints both): on two cores shared by the server, PostgreSQL and the load generator,
 * autocannon's thread capped a repeated page near 3,500 answers a second however fast the
 * server was (docs/benchmarks.md, seventeenth session).
 *
 * One thread, `connections` connections, and a Lua script that sets method, headers and
 * body: the same request every time, or for a first-seen scenario a new body per request
 * (`vary`: the Lua `request` hook writes a counter into the body's template, so no request
 * repeats one before it). Its text report is parsed here: wrk has no machine-readable
 * output. Its percentiles are corrected for coordinated omission (a request far slower
 * than the usual interval adds samples for the requests a steady client would have sent
 * meanwhile), so a few stalls weigh more in its p99 than in autocannon's.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface LoadResult {
  p50: number;
  p99: number;
  rps: number;
  requests: number;
  /** Connection errors and timeouts. */
  errors: number;
  non2xx: number;
}

export interface WrkRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  /**
   * The body; or a new body per request, `vary(n)` for n = from, from + 1, ... (n must
   * appear in it as written, as its decimal digits: the body is a template over them).
   */
  body: string | { vary: (n: number) => string; from: number };
  connections: number;
  seconds: number;
  timeoutSeconds: number;
}

const run = promisify(execFile);

/** Whether `wrk` can be run here. */
export async function wrkAvailable(): Promise<boolean> {
  try {
    await run('wrk', ['--version']);
    return true;
  } catch (e) {
    // wrk prints its version with usage and exits 1; only a missing binary is "not available".
    return (e as { code?: unknown }).code !== 'ENOENT';
  }
}

/** A Lua long string holding `text` verbatim (a level of `=` that `text` does not close). */
function luaString(text: string): string {
  let level = '';
  while (text.includes(`]${level}]`)) level += '=';
  return `[${level}[${text}]${level}]`;
}

/** Milliseconds of a wrk duration such as `812.00us`, `1.51ms` or `1.20s`. */
export function wrkMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (!m) throw new Error(`not a wrk duration: ${text}`);
  const scale = { us: 0.001, ms: 1, s: 1000, m: 60_000 }[m[2] as 'us' | 'ms' | 's' | 'm'];
  return Number(m[1]) * scale;
}

/** The figures of wrk's `--latency` report. */
export function parseWrk(out: string): LoadResult {
  const latency = (p: string) => {
    const m = new RegExp(`^\\s*${p}%\\s+(\\S+)`, 'm').exec(out);
    if (!m) throw new Error(`wrk printed no ${p}% latency:\n${out}`);
    return Number(wrkMs(m[1]!).toFixed(2));
  };
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  if (!Number.isFinite(requests) || !Number.isFinite(rps)) throw new Error(`unexpected wrk output:\n${out}`);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = socket ? socket.slice(1).reduce((n, x) => n + Number(x), 0) : 0;
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  return { p50: latency('50'), p99: latency('99'), rps: Math.round(rps), requests, errors, non2xx };
}

// Two numbers no body holds by chance: a body made with one, its digits replaced by the
// other, must be the body made with the other, or `vary` does more than write n.
const SENTINELS = [7_391_046_528, 8_205_917_364] as const;

/**
 * `vary` as the pieces between its n: vary(n) is the pieces joined by n's digits. Throws
 * when vary(n) is not of that form (n transformed, as in `5000 + n`), since wrk could then
 * not send what the scenario asks.
 */
export function bodyTemplate(vary: (n: number) => string): string[] {
  const [a, b] = SENTINELS;
  const pieces = vary(a).split(String(a));
  if (pieces.length < 2 || pieces.join(String(b)) !== vary(b)) throw new Error(`a varying body must hold its n as written: ${vary(a)}`);
  return pieces;
}

/** The Lua body lines: a fixed body, or a `request` hook writing a counter into the template. */
function bodyScript(body: WrkRequest['body']): string[] {
  if (typeof body === 'string') return [`wrk.body = ${luaString(body)}`];
  if (!Number.isSafeInteger(body.from) || body.from < 0 || body.from > 1e13) throw new Error(`vary must start at a whole number below 1e13, got ${body.from}`);
  // LuaJIT prints a whole number of up to 14 digits as its digits ("%.14g").
  return [
    `local pieces = { ${bodyTemplate(body.vary).map(luaString).join(', ')} }`,
    `local n = ${body.from - 1}`,
    'request = function()',
    '  n = n + 1',
    '  return wrk.format(nil, nil, nil, table.concat(pieces, string.format("%d", n)))',
    'end',
  ];
}

export async function runWrk(r: WrkRequest): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  try {
    const script = join(dir, 'request.lua');
    // Spaces inside the brackets: `t[[[k]]]` would read as a call of t with the string `[k`.
    const headers = Object.entries(r.headers).map(([k, v]) => `wrk.headers[ ${luaString(k)} ] = ${luaString(v)}`);
    writeFileSync(script, [`wrk.method = ${luaString(r.method)}`, ...headers, ...bodyScript(r.body), ''].join('\n'));
    const { stdout, stderr } = await run('wrk', ['-t1', `-c${r.connections}`, `-d${r.seconds}s`, `--timeout`, `${r.timeoutSeconds}s`, '--latency', '-s', script, r.url], { maxBuffer: 1 << 20 });
    // A script error is printed, and wrk goes on sending its default GET.
    if (stderr.trim()) throw new Error(`wrk: ${stderr.trim()}`);
    return parseWrk(stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
