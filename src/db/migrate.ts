/**
 * Runs the migrations in src/db/migrations in order. The list is static (not a folder
 * scan) so the compiled build and the TypeScript sources behave the same and a bundler
 * could not drop one.
 */
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as domain from './migrations/0001-domain.js';
import * as reportTables from './migrations/0002-report-tables.js';
import * as reportSummaries from './migrations/0003-report-summaries.js';
import * as attributionFacts from './migrations/0004-attribution-facts.js';
import * as credentialsVersion from './migrations/0005-credentials-version.js';
import * as topParentsAtImport from './migrations/0006-top-parents-at-import.js';
import * as eventFacts from './migrations/0007-event-facts.js';
import * as accountFacts from './migrations/0008-account-facts.js';
import * as csvLines from './migrations/0009-csv-lines.js';
import * as fillNarrowCopies from './migrations/0010-fill-narrow-copies.js';
import * as accountFactsName from './migrations/0011-account-facts-name.js';
import * as csvLineBlocks from './migrations/0012-csv-line-blocks.js';
import * as attributionFactsCreated from './migrations/0013-attribution-facts-created.js';
import * as accountNameTrigrams from './migrations/0014-account-name-trigrams.js';
import * as searchValues from './migrations/0015-search-values.js';
import * as storedDashboardsRecount from './migrations/0016-stored-dashboards-recount.js';
import * as partnerOwnerKeys from './migrations/0017-partner-owner-keys.js';
import * as partnerCustomKeys from './migrations/0018-partner-custom-keys.js';
import * as jsonStringsFunction from './migrations/0019-json-strings-function.js';
import * as databaseId from './migrations/0020-database-id.js';
import * as dashboardNameOrder from './migrations/0021-dashboard-name-order.js';

export const MIGRATIONS: Record<string, Migration> = {
  '0001-domain': domain,
  '0002-report-tables': reportTables,
  '0003-report-summaries': reportSummaries,
  '0004-attribution-facts': attributionFacts,
  '0005-credentials-version': credentialsVersion,
  '0006-top-parents-at-import': topParentsAtImport,
  '0007-event-facts': eventFacts,
  '0008-account-facts': accountFacts,
  '0009-csv-lines': csvLines,
  '0010-fill-narrow-copies': fillNarrowCopies,
  '0011-account-facts-name': accountFactsName,
  '0012-csv-line-blocks': csvLineBlocks,
  '0013-attribution-facts-created': attributionFactsCreated,
  '0014-account-name-trigrams': accountNameTrigrams,
  '0015-search-values': searchValues,
  '0016-stored-dashboards-recount': storedDashboardsRecount,
  '0017-partner-owner-keys': partnerOwnerKeys,
  '0018-partner-custom-keys': partnerCustomKeys,
  '0019-json-strings-function': jsonStringsFunction,
  '0020-database-id': databaseId,
  '0021-dashboard-name-order': dashboardNameOrder,
};

/**
 * Each migration lifts the statement timeout for the rest of the migrating transaction
 * (Kysely runs the pending migrations in one on PostgreSQL). The pool's timeout is a
 * request's (30 s by default), and a migration over a database of 2,000,000-row reports
 * (rewriting stored keys, building an index) can take longer: cut off there, it failed
 * the server's start. `set local` outside a transaction (PGlite's migrations) is a no-op.
 */
function unbounded(migration: Migration): Migration {
  return {
    up: async (db) => {
      await sql`set local statement_timeout = 0`.execute(db);
      await migration.up(db);
    },
    ...(migration.down ? { down: migration.down } : {}),
  };
}

class StaticProvider implements MigrationProvider {
  constructor(private readonly migrations: Record<string, Migration>) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return Object.fromEntries(Object.entries(this.migrations).map(([name, m]) => [name, unbounded(m)]));
  }
}

/** `migrations`: the project's own, in order; a test may pass others. */
export async function migrateToLatest(db: Kysely<any>, migrations: Record<string, Migration> = MIGRATIONS): Promise<void> {
  const migrator = new Migrator({ db, provider: new StaticProvider(migrations) });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const detail = error instanceof Error ? error.message : String(error ?? '');
    // The cause keeps the driver's error (and its code: a server that cannot be reached
    // is told apart from a migration that failed by it).
    throw new Error(failed ? `database migration ${failed.migrationName} failed: ${detail}` : `the database could not be migrated: ${detail}`, { cause: error });
  }
}
