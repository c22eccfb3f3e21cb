import type { Filter, StoredDoc } from '@paymesh/store';
import type { BillingDeps } from './deps';

/**
 * Every document matching `filter`, in pages of `limit`, in id order: each page starts after the
 * last id of the one before (keyset), so a page costs the same however deep the export is, and a
 * document written or updated meanwhile neither shifts a page nor comes twice. The collection
 * needs an index on (organizationId, mode, id) for the pages to be read in index order.
 */
export async function* keysetPages<D extends StoredDoc>(
  deps: Pick<BillingDeps, 'store'>,
  collection: string,
  filter: Filter,
  limit: number,
): AsyncGenerator<D[]> {
  let after: string | null = null;
  for (;;) {
    const page: Filter = after === null ? filter : { ...filter, id: { $gt: after } };
    const res = await deps.store.collection<D>(collection).find(page, { sort: { id: 1 }, limit });
    if (res.items.length > 0) yield res.items;
    if (res.items.length < limit) return;
    after = res.items[res.items.length - 1]!.id;
  }
}
