/**
 * Narrow copies of wide report tables: one row per report row (same org_id and rid), with
 * only the columns that counts most often read. A count whose conditions all fall on such
 * columns reads the copy instead of the report rows, which carry 60-70 columns, the
 * merged custom object and the search text (1.5-2.2 KB a row): at 2,000,000 rows a
 * filtered count over the report rows reads 3.5-4.5 GB, over a copy a tenth of that.
 * Pages are still read from the report rows (an ordered index walk that stops after the
 * page), so the copies hold no output columns; the accounts copy also holds what the
 * report's dashboard aggregates, so a filtered dashboard reads it too.
 *
 * The copies are rebuilt with the report tables at import (src/ingest/materialize.ts);
 * their tables come from migrations 0004, 0007 and 0008.
 */
import { GLOBAL_VERTICAL_ACCOUNTS } from './catalog/global-vertical-accounts.js';
import { storedName } from './catalog/column.js';
import type { Column } from './catalog/types.js';
import type { Plan, Scope } from './plan.js';

export interface NarrowCopy {
  /** The report table it copies. */
  source: string;
  table: string;
  /** The context/channel scope it can apply (org_id is always there). */
  scope: ReadonlySet<keyof Scope>;
  /** Stored catalog columns it holds (`r.<name>`), which filters may then use. */
  columns: ReadonlySet<string>;
  /**
   * Columns with a trigram index on the copy, tenant first (`trigramIndexes` below, built
   * at import): a "contains" on them reads the index's matches (query.ts narrowProbe).
   */
  trigram: ReadonlySet<string>;
}

/**
 * GLOBAL_VERTICAL_ACCOUNTS: every number, currency, date and boolean column of the report,
 * the text columns with few distinct values that people filter by (the account's place,
 * industry and type, and the partner's name and account type), and the account's name.
 */
const ACCOUNT_FACT_TEXT = ['account_type', 'city', 'state', 'country', 'industry', 'territory', 'partner_org_name', 'partner_account_type'] as const;
/** What the report's dashboard (query-dashboard.ts) reads besides the columns above, so a filtered dashboard can aggregate the copy too. */
const ACCOUNT_DASHBOARD_EXTRA = ['crm_account_id', 'is_customer', 'partner_org_public_id'] as const;
/**
 * The account's name, the column people look accounts up by with "contains": about 25
 * bytes a row, so such a count reads the copy instead of 1.6 KB rows (migration 0011
 * added it, last).
 */
const ACCOUNT_FACT_NAMES = ['account_name'] as const;
export const ACCOUNT_FACT_COLUMNS: readonly string[] = [
  ...GLOBAL_VERTICAL_ACCOUNTS.columns.filter((c) => ['number', 'currency', 'date', 'boolean'].includes(c.type)).map(storedName).filter((n): n is string => n !== null),
  ...ACCOUNT_FACT_TEXT,
  ...ACCOUNT_DASHBOARD_EXTRA,
  ...ACCOUNT_FACT_NAMES,
];

export const NARROW_COPIES: readonly NarrowCopy[] = [
  { source: 'rpt_attribution_events', table: 'rpt_event_facts', scope: new Set(['partnerOrgIds', 'eventTypeCodes', 'eventDate']), columns: new Set(['event_date', 'event_type_code']), trigram: new Set() },
  {
    source: 'rpt_attribution_links',
    table: 'rpt_attribution_facts',
    scope: new Set(['partnerOrgIds', 'eventTypeCodes', 'eventDate', 'oppCreatedDate']),
    columns: new Set(['event_date', 'opp_created_date', 'event_type_code', 'event_subtype_code']),
    trigram: new Set(),
  },
  // The account's name, the one high-cardinality text of the copy (migration 0014).
  { source: 'rpt_global_accounts', table: 'rpt_account_facts', scope: new Set(), columns: new Set(ACCOUNT_FACT_COLUMNS), trigram: new Set(ACCOUNT_FACT_NAMES) },
];

/**
 * The copies' trigram indexes as [name, definition] for the import's index list
 * (materialize.ts REPORT_INDEXES). `btree_gin` lets them lead with org_id, so one tenant's
 * "contains" never reads another's matches. Named `<copy>_<column>_trgm`.
 */
export const trigramIndexes = (): Array<readonly [name: string, definition: string]> =>
  NARROW_COPIES.flatMap((c) => [...c.trigram].map((column) => [`${c.table}_${column}_trgm`, `${c.table} using gin (org_id, ${column} gin_trgm_ops)`] as const));

const BY_SOURCE: ReadonlyMap<string, NarrowCopy> = new Map(NARROW_COPIES.map((c) => [c.source, c]));

/** The narrow copy of a report table, if it has one. */
export const narrowCopyOf = (table: string): NarrowCopy | undefined => BY_SOURCE.get(table);

/**
 * The narrow copy that holds every condition of the plan (scope and filter columns) and
 * the further `columns` a query reads, if any. Only reports read from their own table
 * have one (the pipeline summary's table is not a copy's source).
 */
export function narrowCopyFor(plan: Pick<Plan, 'report' | 'scope' | 'filters' | 'search'>, columns: readonly Column[] = []): NarrowCopy | undefined {
  const copy = BY_SOURCE.get(plan.report.table);
  if (!copy || plan.search.length) return undefined;
  if (!(Object.keys(plan.scope) as Array<keyof Scope>).every((k) => plan.scope[k] === undefined || copy.scope.has(k))) return undefined;
  const holds = (c: Column) => {
    const name = storedName(c);
    return name !== null && copy.columns.has(name);
  };
  return plan.filters.every((f) => holds(f.column)) && columns.every(holds) ? copy : undefined;
}
