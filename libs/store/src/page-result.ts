import { totalFromPage, type Paging } from './filter';
import type { Page } from './port';

/**
 * A find's answer from the items it read, the same for every store: every item when unpaged; the
 * page without a total unless one is asked for; otherwise the total the page proves by itself (a
 * short or empty first page), or else `count()` — counted up to `paging.countUpTo`, so a total at
 * that bound is only a lower bound.
 */
export async function pageResult<T>(
  items: T[],
  paging: Paging,
  withTotal: boolean,
  count: () => Promise<number>,
): Promise<Page<T>> {
  if (paging.limit === undefined) return { items, total: items.length, page: 1, limit: items.length };
  if (!withTotal) return { items, page: paging.page, limit: paging.limit };
  const proven = totalFromPage({ offset: paging.offset, limit: paging.limit }, items.length);
  if (proven !== undefined) return { items, total: proven, page: paging.page, limit: paging.limit };
  const total = await count();
  const bounded = paging.countUpTo !== undefined && total >= paging.countUpTo;
  return { items, total, ...(bounded ? { totalIsLowerBound: true } : {}), page: paging.page, limit: paging.limit };
}
