// JSON:API pagination: page[number] and page[size], meta.pagination and links.
import type { components } from "../../../generated/org-platform/schema.ts";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface Page {
  number: number;
  size: number;
}

/** meta.pagination of a list document. */
export type PaginationMeta = components["schemas"]["Pagination"];

/** links of a list document. */
export type PaginationLinks = components["schemas"]["PaginationLinks"];

/** Where the list lives: its absolute URL without a query, and the query parameters other than page[...]. */
export interface ListLocation {
  url: string;
  query: [string, string][];
}

export function pageOf(number: number | undefined, size: number | undefined): Page {
  return { number: number ?? 1, size: size ?? DEFAULT_PAGE_SIZE };
}

export function paginate<T>(items: T[], page: Page, location: ListLocation): { items: T[]; meta: PaginationMeta; links: PaginationLinks } {
  // Even an empty list has one (empty) page, so that first and last are links to a page.
  const totalPages = Math.max(1, Math.ceil(items.length / page.size));
  const start = (page.number - 1) * page.size;
  const link = pageLinks(location, page.size);
  return {
    items: items.slice(start, start + page.size),
    meta: {
      "current-page": page.number,
      "page-size": page.size,
      "prev-page": page.number > 1 ? page.number - 1 : null,
      "next-page": page.number < totalPages ? page.number + 1 : null,
      "total-pages": totalPages,
      "total-count": items.length,
    },
    links: {
      self: link(page.number),
      first: link(1),
      prev: page.number > 1 ? link(page.number - 1) : null,
      next: page.number < totalPages ? link(page.number + 1) : null,
      last: link(totalPages),
    },
  };
}

/**
 * The page links of a list: the other parameters first (encoded once for every link), then the page
 * parameters with their brackets percent-encoded.
 */
function pageLinks(location: ListLocation, size: number): (number: number) => string {
  const others = location.query.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}&`).join("");
  return (number) => `${location.url}?${others}page%5Bnumber%5D=${number}&page%5Bsize%5D=${size}`;
}
