/**
 * First-seen pages of 2,000 rows, one at a time: the time a running server spends writing
 * each page's JSON (the `render` of its Server-Timing), the rest of its handler's time
 * (`db`), and the CPU its process spent per page (from /proc, Linux). A page of 2,000
 * rows is about 4 MB of JSON: its writing blocks the server's event loop, and every
 * request in flight waits for it. Each page is new to every cache (a condition no other
 * request used, as bench/run.ts's first-seen scenarios), after three such pages as warm-up.
 * With `clients` above 1, that many clients send the pages at once (each `pages` of them):
 * how a busy event loop treats the other requests, e.g. the Redis rate limiter's wait.
 *   node --import tsx bench/tools/large-pages.ts <server url> <api key> <server pid> [pages=20] [clients=1]
 */
import { readFileSync } from 'node:fs';
import { uniqueCondition } from '../unique-condition.js';

const [url, key, pid, count = '20', clientCount = '1'] = process.argv.slice(2);
if (!url || !key || !pid) throw new Error('usage: large-pages.ts <server url> <api key> <server pid> [pages]');

const TICK_MS = 1000 / 100; // USER_HZ: 100 on Linux
const PAGE = '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records?size=2000&page=';

/** utime + stime of the server, in clock ticks (fields 14 and 15 of /proc/<pid>/stat). */
function ticks(): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

let counter = Math.floor(Math.random() * 1e9);
async function page(n: number): Promise<Record<string, number>> {
  const res = await fetch(`${url}${PAGE}${n}`, {
    method: 'POST',
    headers: { 'api-key': key!, 'content-type': 'application/json' },
    body: JSON.stringify({ filters: uniqueCondition(`large-${counter++}`) }),
  });
  const bytes = (await res.arrayBuffer()).byteLength;
  if (res.status !== 200) throw new Error(`page ${n}: ${res.status}`);
  const timing = Object.fromEntries([...(res.headers.get('server-timing') ?? '').matchAll(/(\w+);dur=([\d.]+)/g)].map((m) => [m[1]!, Number(m[2])]));
  return { ...timing, bytes };
}

for (let i = 0; i < 3; i++) await page(i);
const pages = Number(count);
const before = ticks();
const timings: Array<Record<string, number>> = [];
const clients = Number(clientCount);
await Promise.all(
  Array.from({ length: clients }, async () => {
    for (let i = 0; i < pages; i++) timings.push(await page(i % 10));
  }),
);
const cpu = ((ticks() - before) * TICK_MS) / timings.length;
const of = (k: string) => median(timings.map((t) => t[k] ?? 0));
console.log(`${timings.length} first-seen pages of 2,000 rows${clients > 1 ? ` from ${clients} clients at once` : ''} (${Math.round(of('bytes') / 1024)} KiB): render p50 ${of('render').toFixed(1)} ms, db p50 ${of('db').toFixed(1)} ms, plan p50 ${of('plan').toFixed(1)} ms; server CPU ${cpu.toFixed(1)} ms a page`);
