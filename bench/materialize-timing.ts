/**
 * Times every statement of one materialization (the derived part of an import: report
 * tables, indexes, precomputed figures) against an imported database, in one transaction
 * (ROLLBACK=1 leaves the database as it was). Usage: DB=postgres://.../pr_q100 node --import tsx bench/materialize-timing.ts
 *
 * Each line: wall seconds, then the server backend's CPU seconds for the statement (read
 * from /proc when the server runs on this machine; parallel workers not included). On a
 * shared machine the CPU figure moves far less with the load than the wall time does.
 * MATERIALIZE=<path to a materialize.ts> times another checkout's code (a before/after
 * comparison on the same database); MIN_MS sets the logging threshold (default 300).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';

const module = process.env.MATERIALIZE ? pathToFileURL(resolve(process.env.MATERIALIZE)).href : '../src/ingest/materialize.js';
const { materialize } = (await import(module)) as { materialize: (db: Kysely<any>, engine: 'postgres') => Promise<void> };
const pool = new pg.Pool({ connectionString: process.env.DB, max: 2 });
pg.types.setTypeParser(20, (v: string) => Number(v));

let backend = 0;
/** utime + stime of the backend, in seconds (0 when /proc has no such process). */
function cpu(): number {
  try {
    const fields = readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}
let lastCpu = 0;
const minMs = Number(process.env.MIN_MS ?? 300);
const db = new Kysely<any>({
  dialect: new PostgresDialect({ pool }),
  log(e) {
    const now = cpu();
    const used = now - lastCpu;
    lastCpu = now;
    if (e.queryDurationMillis > minMs) console.log((e.queryDurationMillis / 1000).toFixed(2), 's', used.toFixed(2), 'cpu', e.query.sql.replace(/\s+/g, ' ').slice(0, 110));
  },
});
const t = Date.now();
let cpuTotal = 0;
await db
  .transaction()
  .execute(async (trx) => {
    backend = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid;
    const start = (lastCpu = cpu());
    await materialize(trx, 'postgres');
    cpuTotal = cpu() - start;
    if (process.env.ROLLBACK) throw new Error('rollback');
  })
  .catch((e) => console.log(String(e)));
console.log('total', (Date.now() - t) / 1000, 's; backend cpu', cpuTotal.toFixed(1), 's');
await db.destroy();
