/** Render stage: filter-data items (spec 2.2) in their envelope. */
import { filterTypeOf, type Column } from '../catalog/types.js';
import { pageEnvelope, type PageEnvelope } from './page.js';

export interface FilterDataItem {
  filterData: string | null;
  filterRangeMin: number | null;
  filterRangeMax: number | null;
  filterType: 'STRING' | 'NUMBER' | 'CURRENCY' | 'DATE';
}

/**
 * A page of filter values: the envelope of spec 2.1 with every field, as contract section
 * 2 asks of `/records` and `/filterdata` alike ("Envelope exactly as section 2.1"); spec
 * 2.2 names five of its fields (`totalElements`, `totalPages`, `number`, `size`,
 * `content`), which it carries. Until the twenty-ninth session it carried only those, so a
 * client paging through values had no `last` to stop at (spec 4.1: "increment `page`
 * until `last` is true").
 */
export type FilterValuesPage = PageEnvelope<FilterDataItem>;

export function filterValuesPage(values: string[], totalElements: number, page: number, size: number, sorted: boolean): FilterValuesPage {
  const content = values.map((v): FilterDataItem => ({ filterData: v, filterRangeMin: null, filterRangeMax: null, filterType: 'STRING' }));
  return pageEnvelope(content, totalElements, page, size, sorted);
}

/** Number, currency and date columns: one item with the bounds (null when no rows). */
export function rangeItem(column: Column, min: number | null, max: number | null, page: number, size: number, sorted: boolean): FilterValuesPage {
  // The one item is on page 0; a later page is past the end, empty as for a string column.
  const content: FilterDataItem[] = page === 0 ? [{ filterData: null, filterRangeMin: min, filterRangeMax: max, filterType: filterTypeOf(column.type) }] : [];
  return pageEnvelope(content, 1, page, size, sorted);
}
