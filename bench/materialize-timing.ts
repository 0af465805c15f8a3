/**
 * Times every statement of one materialization (the derived part of an import: report
 * tables, indexes, precomputed figures) against an imported database, in one transaction
 * (ROLLBACK=1 leaves the database as it was). Usage: DB=postgres://.../pr_q100 node --import tsx bench/materialize-timing.ts
 */
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { materialize } from '../src/ingest/materialize.js';
const pool = new pg.Pool({ connectionString: process.env.DB, max: 2 });
pg.types.setTypeParser(20, (v: string) => Number(v));
const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }), log(e) { if (e.queryDurationMillis > Number(process.env.MIN_MS ?? 300)) console.log((e.queryDurationMillis/1000).toFixed(2), 's', e.query.sql.replace(/\s+/g,' ').slice(0, 140)); } });
const t = Date.now();
await db.transaction().execute(async (trx) => { await materialize(trx); if (process.env.ROLLBACK) throw new Error('rollback'); }).catch((e) => console.log(String(e)));
console.log('total', (Date.now() - t) / 1000);
await db.destroy();
