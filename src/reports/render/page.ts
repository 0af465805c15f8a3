/** Render stage: the page envelope of spec 2.1 with the rules of contract section 2. */
export interface SortState {
  sorted: boolean;
  unsorted: boolean;
  empty: boolean;
}

export interface PageEnvelope<T> {
  totalElements: number;
  totalPages: number;
  sort: SortState;
  first: boolean;
  last: boolean;
  number: number;
  pageable: { pageNumber: number; pageSize: number; sort: SortState; offset: number; unpaged: boolean; paged: boolean };
  numberOfElements: number;
  size: number;
  empty: boolean;
  content: T[];
  noDataFoundMessage: string | null;
}

export const NO_DATA_MESSAGE = 'No data found for the selected criteria';

export function pageEnvelope<T>(content: T[], totalElements: number, page: number, size: number, sorted: boolean): PageEnvelope<T> {
  const totalPages = Math.ceil(totalElements / size);
  const sort = { sorted, unsorted: !sorted, empty: !sorted };
  return {
    totalElements,
    totalPages,
    sort,
    first: page === 0,
    last: page + 1 >= totalPages,
    number: page,
    pageable: { pageNumber: page, pageSize: size, sort: { ...sort }, offset: page * size, unpaged: false, paged: true },
    numberOfElements: content.length,
    size,
    empty: content.length === 0,
    content,
    noDataFoundMessage: totalElements === 0 ? NO_DATA_MESSAGE : null,
  };
}

/**
 * The envelope's JSON text around the content's text (rows.ts `rowsJson`): the same bytes
 * as JSON.stringify of `pageEnvelope` with those rows, without building them as objects.
 */
export function pageEnvelopeJson(contentJson: string, numberOfElements: number, totalElements: number, page: number, size: number, sorted: boolean): string {
  const { content: _content, noDataFoundMessage, ...head } = pageEnvelope([], totalElements, page, size, sorted);
  head.numberOfElements = numberOfElements;
  head.empty = numberOfElements === 0;
  const before = JSON.stringify(head);
  return `${before.slice(0, -1)},"content":${contentJson},"noDataFoundMessage":${JSON.stringify(noDataFoundMessage)}}`;
}
