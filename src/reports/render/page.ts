/** Render stage: the page envelope of spec 2.1 with the rules of contract section 2. */
export interface SortState {
  unsorted: boolean;
  sorted: boolean;
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

/** Every field of the envelope but `content`, in the specification's order. */
function envelopeFields(numberOfElements: number, totalElements: number, page: number, size: number, sorted: boolean): Omit<PageEnvelope<never>, 'content'> {
  const totalPages = Math.ceil(totalElements / size);
  // In the specification's order (2.1): unsorted, sorted, empty.
  const sort = { unsorted: !sorted, sorted, empty: !sorted };
  return {
    totalElements,
    totalPages,
    sort,
    first: page === 0,
    last: page + 1 >= totalPages,
    number: page,
    pageable: { pageNumber: page, pageSize: size, sort: { ...sort }, offset: page * size, unpaged: false, paged: true },
    numberOfElements,
    size,
    empty: numberOfElements === 0,
    noDataFoundMessage: totalElements === 0 ? NO_DATA_MESSAGE : null,
  };
}

/** The page envelope of spec 2.1 around its rows. */
export function pageEnvelope<T>(content: T[], totalElements: number, page: number, size: number, sorted: boolean): PageEnvelope<T> {
  const { noDataFoundMessage, ...head } = envelopeFields(content.length, totalElements, page, size, sorted);
  return { ...head, content, noDataFoundMessage };
}

/**
 * The envelope's JSON text around the content's text (rows.ts `rowsJson`): the bytes of
 * JSON.stringify over `pageEnvelope` of those rows, without building them as objects.
 */
export function pageEnvelopeJson(contentJson: string, numberOfElements: number, totalElements: number, page: number, size: number, sorted: boolean): string {
  const { noDataFoundMessage, ...head } = envelopeFields(numberOfElements, totalElements, page, size, sorted);
  return `${JSON.stringify(head).slice(0, -1)},"content":${contentJson},"noDataFoundMessage":${JSON.stringify(noDataFoundMessage)}}`;
}
