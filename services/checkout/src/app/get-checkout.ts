import { isObjectId, NotFoundError } from '@paymesh/core';
import type { Filter, FieldOps, CountedPage } from '@paymesh/store';
import type { CheckoutDoc, CheckoutStatus } from '../domain/checkout';
import type { Mode } from '../domain/site';
import type { TransactionDoc } from '../domain/transaction';
import { CHECKOUTS, TRANSACTIONS } from '../store/collections';
import type { PaymentsDeps } from './payments-deps';

/** A checkout of the organization in the mode; other tenants' checkouts are not found. */
export async function getCheckout(
  deps: PaymentsDeps,
  organizationId: string,
  mode: Mode,
  id: string,
): Promise<CheckoutDoc> {
  const doc = isObjectId(id) ? await deps.store.collection<CheckoutDoc>(CHECKOUTS).get(id) : null;
  if (!doc || doc.organizationId !== organizationId || doc.mode !== mode) throw new NotFoundError('checkout not found');
  return doc;
}

/** Transactions created from a checkout, newest first. */
export async function transactionsOfCheckout(deps: PaymentsDeps, checkout: CheckoutDoc): Promise<TransactionDoc[]> {
  const page = await deps.store
    .collection<TransactionDoc>(TRANSACTIONS)
    .find({ checkoutId: checkout.id, deletedAt: { $exists: false } }, { sort: { createdAt: -1 }, limit: 100 });
  return page.items;
}

export interface ListCheckoutsQuery {
  organizationId: string;
  mode: Mode;
  status?: CheckoutStatus | undefined;
  siteId?: string | undefined;
  externalReference?: string | undefined;
  invoiceNumber?: string | undefined;
  /** Inclusive bounds on createdAt (ISO 8601 UTC). */
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
  page: number;
  limit: number;
}

/** Checkouts of the organization, newest first; `expired` is stored expired or pending past its expiry. */
export async function listCheckouts(deps: PaymentsDeps, q: ListCheckoutsQuery): Promise<CountedPage<CheckoutDoc>> {
  const now = deps.clock.now().toISOString();
  const filter: Filter = { organizationId: q.organizationId, mode: q.mode };
  if (q.status === 'completed') filter.status = 'completed';
  if (q.status === 'pending') Object.assign(filter, { status: 'pending', expiresAt: { $gt: now } });
  // Stored expired by the sweep, or pending past its expiry and not swept yet (an expired session
  // always has expiresAt <= now: PATCH only moves it while the session is open).
  if (q.status === 'expired')
    Object.assign(filter, { status: { $in: ['pending', 'expired'] }, expiresAt: { $lte: now } });
  if (q.siteId) filter.siteId = q.siteId;
  if (q.externalReference) filter.externalReference = q.externalReference;
  if (q.invoiceNumber) filter.invoiceNumber = q.invoiceNumber;
  const created: FieldOps = {};
  if (q.createdFrom) created.$gte = q.createdFrom;
  if (q.createdTo) created.$lte = q.createdTo;
  if (created.$gte !== undefined || created.$lte !== undefined) filter.createdAt = created;
  return deps.store
    .collection<CheckoutDoc>(CHECKOUTS)
    .find(filter, { sort: { createdAt: -1 }, page: q.page, limit: q.limit, total: true });
}
