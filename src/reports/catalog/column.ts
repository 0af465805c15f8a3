/**
 * Building blocks of catalog definitions: `column()` makes a standard column over the
 * report relation `r`, `group()` a run of them, and `titleOf()` a readable title.
 */
import type { Column, ColumnType } from './types.js';

const WORDS: Record<string, string> = {
  crm: 'CRM', id: 'ID', acv: 'ACV', sic: 'SIC', naics: 'NAICS', nces: 'NCES', duns: 'DUNS', prm: 'PRM',
  opp: 'Opportunity', pt: 'PT', zip: 'Zip', num: 'Number', org: 'Org', avg: 'Avg',
};

/** `opp_crm_account_id` -> "Opportunity CRM Account ID"; `partnerOwnerEmail` -> "Partner Owner Email". */
export function titleOf(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .split('_')
    .filter(Boolean)
    .map((w) => WORDS[w.toLowerCase()] ?? w.charAt(0).toUpperCase() + w.slice(1).toLowerCase())
    .join(' ');
}

export interface ColumnOptions {
  /** Storage column in the report table when it differs from the key. */
  column?: string;
  title?: string;
  group?: string;
  hidden?: boolean;
}

export function column(key: string, type: ColumnType, options: ColumnOptions = {}): Column {
  const c: Column = { key, title: options.title ?? titleOf(key), type, sql: `r.${options.column ?? key}`, source: 'standard' };
  if (options.group) c.group = options.group;
  if (options.hidden) c.hidden = true;
  return c;
}

/** Several columns of one type (and group). */
export function group(type: ColumnType, keys: string[], groupName?: string): Column[] {
  return keys.map((k) => column(k, type, groupName ? { group: groupName } : {}));
}

/** The plain column name of a catalog column stored as-is (`r.<name>`), or null. */
export function storedName(column: Column): string | null {
  if (column.json) return null;
  const m = /^r\.([a-z_][a-z0-9_]*)$/.exec(column.sql);
  return m ? m[1]! : null;
}
