/**
 * A migrated, empty PGlite data directory that every in-memory test database starts from.
 *
 * PGlite runs initdb inside WebAssembly on each `create`: 3.5-5 s of every open, against
 * 1.6 s to load a dumped directory. The dump is made once per source of the schema (the
 * migrations, the database module, the PGlite version) and kept in the system's temporary
 * directory, so each test file's process loads it instead of running initdb; a change to
 * any of those files names a new dump, and the old ones are removed when it is written.
 * Migrations still run on every open (a no-op on the dump), and the migration tests build
 * their own databases step by step.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, type Database } from '../../src/db/database.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const PREFIX = 'partner-reports-pglite-';

/** Everything the migrated directory depends on, hashed. */
function schemaKey(): string {
  const hash = createHash('sha256');
  const migrations = join(root, 'src/db/migrations');
  const files = [
    join(root, 'src/db/migrate.ts'),
    join(root, 'src/db/database.ts'),
    join(root, 'node_modules/@electric-sql/pglite/package.json'),
    ...readdirSync(migrations)
      .sort()
      .map((f) => join(migrations, f)),
  ];
  for (const f of files) hash.update(f.slice(root.length)).update('\0').update(readFileSync(f)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

let snapshot: Blob | undefined;

/** A fresh, migrated in-memory PGlite database, loaded from the dump when there is one. */
export async function openPgliteFromSnapshot(): Promise<Database> {
  if (snapshot) return openDatabase({ loadDataDir: snapshot });
  const file = join(tmpdir(), `${PREFIX}${schemaKey()}.tar`);
  try {
    const blob = new Blob([readFileSync(file)]);
    const database = await openDatabase({ loadDataDir: blob });
    snapshot = blob;
    return database;
  } catch {
    // No dump yet (or an unreadable one): a new cluster, migrated, then dumped for the next.
  }
  const database = await openDatabase({});
  snapshot = await database.dump!();
  try {
    // Written under a scratch name and renamed, so another process never reads half a dump.
    const scratch = `${file}.${process.pid}`;
    writeFileSync(scratch, Buffer.from(await snapshot.arrayBuffer()));
    renameSync(scratch, file);
    for (const old of readdirSync(tmpdir())) {
      if (old.startsWith(PREFIX) && join(tmpdir(), old) !== file && !old.includes('.tar.')) rmSync(join(tmpdir(), old), { force: true });
    }
  } catch {
    // A temporary directory we cannot write to: this process still loads its dump in memory.
  }
  return database;
}
