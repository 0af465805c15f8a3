import { openDatabase } from '../src/db/database.js';
import { sql } from 'kysely';
const d = await openDatabase({});
console.log((await sql`select count(*) as n from information_schema.tables where table_schema='public'`.execute(d.db)).rows);
await d.close();
const p = await openDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:5432/test' });
console.log((await sql`select count(*) as n from information_schema.tables where table_schema='public'`.execute(p.db)).rows);
await p.close();
