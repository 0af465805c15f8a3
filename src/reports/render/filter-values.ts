/** Render stage: filter-data items (spec 2.2) in their envelope. */
import { filterTypeOf, type Column } from '../catalog/types.js';

export interface FilterDataItem {
  filterData: string | null;
  filterRangeMin: number | null;
  filterRangeMax: number | null;
  filterType: 'STRING' | 'NUMBER' | 'CURRENCY' | 'DATE';
}

export interface FilterValuesPage {
  totalElements: number;
  totalPages: number;
  number: number;
  size: number;
  content: FilterDataItem[];
}

export function filterValuesPage(values: string[], totalElements: number, page: number, size: number): FilterValuesPage {
  return {
    totalElements,
    totalPages: Math.ceil(totalElements / size),
    number: page,
    size,
    content: values.map((v) => ({ filterData: v, filterRangeMin: null, filterRangeMax: null, filterType: 'STRING' })),
  };
}

/** Number, currency and date columns: one item with the bounds (null when no rows). */
export function rangeItem(column: Column, min: number | null, max: number | null, page: number, size: number): FilterValuesPage {
  return {
    totalElements: 1,
    totalPages: 1,
    number: page,
    size,
    // The one item is on page 0; a later page is past the end, empty as for a string column.
    content: page === 0 ? [{ filterData: null, filterRangeMin: min, filterRangeMax: max, filterType: filterTypeOf(column.type) }] : [],
  };
}
