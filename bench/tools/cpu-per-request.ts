/**
 * CPU per request, split between the server process and PostgreSQL: drives a running
 * server at concurrency 10 with page requests new to every cache (as bench/run.ts does),
 * or with one repeated request (`repeated-*` modes), and reads the CPU time (user +
 * system) that the server's process, every process of the `postgres` user and this one
 * (the load generator) spent meanwhile, from /proc (Linux).
 *   node --import tsx bench/tools/cpu-per-request.ts <server url> <api key> <server pid> [seconds=12] [unique|sort|repeated-... ...]
 *
 * On two cores shared by the server, PostgreSQL and the load generator, the service's p50
 * at concurrency 10 follows the server's CPU per request once its one thread is busy: this
 * is the figure a change to the request path must lower. The ratio to PostgreSQL's CPU for
 * the same requests is steadier than either figure from one run to the next, because a
 * slower machine (neighbours on the host) inflates both.
 *
 * With STATS_DB=<postgres url of the server's database> it also prints the statements
 * (committed transactions of that database, pg_stat_database) per measured request: a
 * count that other work on the machine does not blur, as long as it uses other databases.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import pg from 'pg';
import { uniqueCondition } from '../unique-condition.js';

const [url, key, pid, seconds = '12', ...modes] = process.argv.slice(2);
if (!url || !key || !pid) throw new Error('usage: cpu-per-request.ts <server url> <api key> <server pid> [seconds] [unique|sort|repeated-default|repeated-exact|repeated-range ...]');

const TICK_MS = 1000 / 100; // USER_HZ: 100 on Linux
const GVA = '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records';
const scenarios: Record<string, { path: string; body: (n: number) => object }> = {
  unique: { path: GVA, body: (n) => ({ filters: uniqueCondition(n) }) },
  sort: { path: `${GVA}?sort=annual_revenue,desc`, body: (n) => ({ filters: uniqueCondition(n) }) },
  // The same request every time: after the first, a page-cache hit (the throughput target).
  'repeated-default': { path: GVA, body: () => ({}) },
  'repeated-exact': { path: GVA, body: () => ({ filters: { country: 'DE' } }) },
  'repeated-range': { path: GVA, body: () => ({ filters: { partner_first_match_date: '1735689600<->1767225600', number_of_employees: '100<->5000' } }) },
};

/** utime + stime of a process, in clock ticks (fields 14 and 15 of /proc/<pid>/stat). */
function ticks(p: string): number {
  try {
    const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0; // a process that ended meanwhile
  }
}

const postgresUid = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'))?.split(':')[2];

function postgresTicks(): number {
  let total = 0;
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${p}/status`, 'utf8').match(/^Uid:\s+(\d+)/m)?.[1] === postgresUid) total += ticks(p);
    } catch {
      /* gone */
    }
  }
  return total;
}

/** Committed transactions of STATS_DB so far, read after PostgreSQL flushed its backends' counts (at most once a second). */
async function statements(): Promise<number | undefined> {
  const url = process.env.STATS_DB;
  if (!url) return undefined;
  await sleep(1500);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('select xact_commit as n from pg_stat_database where datname = current_database()');
    return Number(rows[0]!.n); // without this read's own transaction, counted once it ends
  } finally {
    await client.end();
  }
}

let counter = Math.floor(Math.random() * 1e9);
for (const mode of modes.length ? modes : ['unique', 'sort']) {
  const s = scenarios[mode];
  if (!s) throw new Error(`unknown mode ${mode}: ${Object.keys(scenarios).join(', ')}`);
  const drive = (duration: number) =>
    autocannon({
      url: url + s.path,
      method: 'POST',
      headers: { 'api-key': key, 'content-type': 'application/json' },
      body: '{}',
      connections: 10,
      duration,
      requests: [{ setupRequest: (req: any) => ({ ...req, body: JSON.stringify(s.body(counter++)) }) }],
    });
  await drive(3); // warm-up
  const statements0 = await statements();
  const [server0, pg0, own0] = [ticks(pid), postgresTicks(), process.cpuUsage()];
  const r = await drive(Number(seconds));
  const [server1, pg1, own1] = [ticks(pid), postgresTicks(), process.cpuUsage(own0)];
  const statements1 = await statements();
  const n = r.requests.total;
  const serverMs = ((server1 - server0) * TICK_MS) / n;
  const pgMs = ((pg1 - pg0) * TICK_MS) / n;
  // The load generator (autocannon, this process) shares the machine's cores too.
  const clientMs = (own1.user + own1.system) / 1000 / n;
  console.log(`${mode}: ${n} requests, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ${Math.round(r.requests.average)} req/s, non-2xx ${r.non2xx}; CPU per request: server ${serverMs.toFixed(3)} ms, PostgreSQL ${pgMs.toFixed(3)} ms, ratio ${(serverMs / pgMs).toFixed(2)}; load generator ${clientMs.toFixed(3)} ms${statements0 === undefined ? '' : `; statements per request ${((statements1! - statements0 - 1) / n).toFixed(3)}`}`);
}
