/**
 * Catalog types. A report is one declarative definition: its base relation, its default
 * order and its columns. Records, filter values, column metadata, CSV, dashboard,
 * validation and the OpenAPI row schema all read these definitions; the catalog lookup
 * is the only way an API name becomes SQL.
 *
 * @example
 *   { key: 'opp_amount', title: 'Opportunity Amount', type: 'currency', sql: 'r.opp_amount' }
 */

/** Value types of the specification's field tables (spec 2.3) plus `uuid`. */
export type ColumnType = 'string' | 'uuid' | 'name' | 'email' | 'title' | 'phone' | 'number' | 'currency' | 'date' | 'boolean';

export type FilterOperation = 'exact' | 'notEqual' | 'contains' | 'doesNotContain' | 'range';

/** The per-type operation table of spec 4.4 (name, email, title and phone are textual). */
export const OPERATIONS_BY_TYPE: Readonly<Record<ColumnType, readonly FilterOperation[]>> = {
  string: ['exact', 'notEqual', 'contains', 'doesNotContain'],
  uuid: ['exact', 'notEqual', 'contains', 'doesNotContain'],
  name: ['exact', 'notEqual', 'contains', 'doesNotContain'],
  email: ['exact', 'notEqual', 'contains', 'doesNotContain'],
  title: ['exact', 'notEqual', 'contains', 'doesNotContain'],
  phone: ['exact', 'notEqual', 'contains', 'doesNotContain'],
  boolean: ['exact'],
  date: ['range'],
  number: ['range'],
  currency: ['range'],
};

/**
 * The type the API shows for a column (spec 2.3 has no `uuid`: it is the catalog's own
 * refinement of string, for its filter rules). `/columns` and error messages use it.
 */
export const apiType = (type: ColumnType): Exclude<ColumnType, 'uuid'> => (type === 'uuid' ? 'string' : type);

export function isTextual(type: ColumnType): boolean {
  return type !== 'boolean' && type !== 'date' && type !== 'number' && type !== 'currency';
}

/** `filterType` of a filter-data item (spec 2.2). */
export function filterTypeOf(type: ColumnType): 'STRING' | 'NUMBER' | 'CURRENCY' | 'DATE' {
  switch (type) {
    case 'number':
      return 'NUMBER';
    case 'currency':
      return 'CURRENCY';
    case 'date':
      return 'DATE';
    default:
      return 'STRING';
  }
}

export type ColumnSource = 'standard' | 'custom' | 'partner';

export interface Column {
  /** API name: the key in rows, filters, sort, `columns` and CSV headers. */
  key: string;
  title: string;
  type: ColumnType;
  /**
   * SQL expression over the report relation aliased `r`. Written in the catalog only,
   * never derived from a request. Custom and partner columns use `jsonPath` instead.
   */
  sql: string;
  /** For custom/partner columns: read `r.<jsonColumn> ->> jsonKey` (the key is bound as a parameter). */
  json?: { column: 'custom' | 'partner_fields'; key: string };
  source: ColumnSource;
  /** `CUSTOM_CRM_FIELD` / `CUSTOM_CRM_OBJECT` for custom columns. */
  classification?: 'CUSTOM_CRM_FIELD' | 'CUSTOM_CRM_OBJECT';
  /** For custom columns: the entity whose custom field it is (the import fills the row's `custom` from that entity's object). */
  entity?: CustomEntity;
  /** Display group (spec 2.5 groups A-D and the like); informational. */
  group?: string;
  /** Hidden by default in a UI (`isHidden`). */
  hidden?: boolean;
}

export type ReportId =
  | 'PIPELINE_ATTRIBUTION_SUMMARY'
  | 'PIPELINE_ATTRIBUTION_DETAIL'
  | 'ATTRIBUTION_EVENTS'
  | 'GLOBAL_VERTICAL_ACCOUNTS'
  | 'GLOBAL_VERTICAL_OPPORTUNITIES'
  | 'PARTNER_ORG_CONNECTED_PARTNER_ORGS'
  | 'PARTNER_ORG_MATCHED_ACCOUNTS';

export type CustomEntity = 'account' | 'opportunity' | 'event';

/** Which `context` keys a report reads (spec 4.3). */
export type ContextKind = 'none' | 'events' | 'events-and-opportunities';

export interface ReportDefinition {
  id: ReportId;
  title: string;
  /** Materialized table (migration 0002) the rows come from. */
  table: string;
  /**
   * `table`: rows are the table's rows. `summary`: rows are new opportunities joined with
   * counters aggregated over the links the context selects (pipeline summary).
   */
  shape: 'table' | 'summary';
  context: ContextKind;
  columns: readonly Column[];
  /** Entities whose custom fields appear as `custom_<key>`, in precedence order. */
  customEntities: readonly CustomEntity[];
  /**
   * The default order, in words (docs). Import assigns `rid` in exactly this order
   * (materialize.ts), so sorting by `rid` gives it and is also the unique tie-breaker.
   */
  defaultOrder: string;
  /** Extra row keys that repeat another column (for example `name` = `accountName`). */
  aliases?: Readonly<Record<string, string>>;
  /** Column holding the partner organization id, for per-partner breakdowns. */
  partnerColumn?: string;
  /**
   * Textual columns (keys) whose values repeat across many rows: people, places, types,
   * the partner's own record. Search tests them through their distinct values (stored at
   * import, src/reports/search-values.ts) and an index entry per row, instead of through
   * the row's trigram-indexed search text, which then holds only the other columns.
   * Changing this list changes what `search_text` holds: it takes an import to apply.
   */
  searchByValue?: readonly string[];
}
