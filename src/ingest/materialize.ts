/**
 * Derived data, rebuilt inside the import transaction: top parent accounts, pipeline
 * attribution links and the materialized report tables (migration 0002).
 * (Filled in with the report engine.)
 */
import type { Kysely } from 'kysely';

export async function materialize(_db: Kysely<any>): Promise<void> {}
