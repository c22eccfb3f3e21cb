import { countUpToOf, LIST_COUNT_BOUND, ValidationError } from '@paymesh/core';
import type { FieldOps, Filter, CountedPage } from '@paymesh/store';
import type { Mode } from '../domain/site';
import type { TransactionDoc } from '../domain/transaction';
import { TRANSACTIONS } from '../store/collections';
import { loadTransactionForOrg } from './access';
import type { PaymentsDeps } from './payments-deps';

export { loadTransactionForOrg as getTransaction };

export interface ListTransactionsQuery {
  organizationId: string;
  mode: Mode;
  statuses?: number[] | undefined;
  currency?: string | undefined;
  /** Inclusive bounds on createdAt (ISO 8601 UTC). */
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
  siteIds?: string[] | undefined;
  providerIds?: string[] | undefined;
  /** Exact merchant reference. */
  externalReference?: string | undefined;
  /** Buyer e-mail address, as given or in lower case. */
  email?: string | undefined;
  /** Only these transaction ids (at most 100, a page). */
  ids?: string[] | undefined;
  page: number;
  limit: number;
}

export { LIST_COUNT_BOUND };

/**
 * Transactions of the organization in the mode, newest first (ties by id); soft-deleted ones are
 * left out. The total counts up to {@link LIST_COUNT_BOUND} matches, or up to the page's end when
 * that is further, and one more: a total past that is a lower bound, and a next page exists.
 */
export async function listTransactions(
  deps: PaymentsDeps,
  q: ListTransactionsQuery,
): Promise<CountedPage<TransactionDoc>> {
  const filter: Filter = { organizationId: q.organizationId, mode: q.mode, deletedAt: { $exists: false } };
  if (q.statuses?.length) filter.status = { $in: q.statuses };
  if (q.currency) filter.currency = q.currency.toUpperCase();
  if (q.siteIds?.length) filter.siteId = { $in: q.siteIds };
  if (q.providerIds?.length) filter.providerId = { $in: q.providerIds };
  if (q.externalReference) filter.externalReference = q.externalReference;
  if (q.email) filter.email = { $in: [...new Set([q.email, q.email.toLowerCase()])] };
  if (q.ids?.length) {
    if (q.ids.length > 100) throw new ValidationError('ids: at most 100 transaction ids', { field: 'ids' });
    filter.id = { $in: q.ids };
  }
  const created: FieldOps = {};
  if (q.createdFrom) created.$gte = q.createdFrom;
  if (q.createdTo) created.$lte = q.createdTo;
  if (created.$gte !== undefined || created.$lte !== undefined) filter.createdAt = created;
  return deps.store.collection<TransactionDoc>(TRANSACTIONS).find(filter, {
    sort: { createdAt: -1 },
    page: q.page,
    limit: q.limit,
    total: true,
    countUpTo: countUpToOf(q),
  });
}
