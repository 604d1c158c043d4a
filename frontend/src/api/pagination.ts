/** The backend's page shape (`PageNumberPagination`, 25 per page) and a helper for pickers that need every row. */

export interface Page<T> {
  count: number;
  next?: string | null;
  previous?: string | null;
  results: T[];
}

/** Rows per page on the server; tables show the same. */
export const PAGE_SIZE = 25;

/** Most pages a picker reads (500 rows): beyond that a select is the wrong widget anyway. */
const MAX_PAGES = 20;

/** Reads pages 1, 2, … until the last one (or `MAX_PAGES`) and returns every row. */
export async function collectPages<T>(fetchPage: (page: number) => Promise<Page<T>>): Promise<T[]> {
  const rows: T[] = [];
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const body = await fetchPage(page);
    rows.push(...body.results);
    if (!body.next) break;
  }
  return rows;
}

export function pageCount(count: number): number {
  return Math.max(1, Math.ceil(count / PAGE_SIZE));
}
