import { isObjectId, NotFoundError } from '@paymesh/core';
import type { CountedPage, Filter } from '@paymesh/store';
import type { CustomerHoldListQuery } from '@paymesh/contracts';
import { holdRef, liftHold, normalizeEmail, type BuyerBlockDoc, type CustomerHoldDoc } from '../domain/customer-hold';
import type { Mode } from '../domain/site';
import { BUYER_BLOCKS, CUSTOMER_HOLDS } from '../store/collections';
import type { CheckoutDeps } from './deps';

export interface HoldRef {
  organizationId: string;
  mode: Mode;
  id: string;
}

/**
 * Holds of the organization in the mode, newest first. `email` matches the hold's first buyer
 * e-mail (the transaction's, which is the one the buyer entered), `clientId` its client ID.
 */
export async function listCustomerHolds(
  deps: CheckoutDeps,
  scope: { organizationId: string; mode: Mode },
  q: CustomerHoldListQuery,
): Promise<CountedPage<CustomerHoldDoc>> {
  const filter: Filter = { organizationId: scope.organizationId, mode: scope.mode };
  if (q.status) filter.status = q.status;
  if (q.transactionId) filter['source.transactionId'] = q.transactionId;
  if (q.email !== undefined) filter.buyerEmail = normalizeEmail(q.email) ?? '';
  if (q.clientId) filter['buyer.clientId'] = q.clientId.toLowerCase();
  return deps.store
    .collection<CustomerHoldDoc>(CUSTOMER_HOLDS)
    .find(filter, { sort: { createdAt: -1 }, page: q.page, limit: q.limit, total: true });
}

export async function getCustomerHold(deps: CheckoutDeps, ref: HoldRef): Promise<CustomerHoldDoc> {
  const doc = isObjectId(ref.id) ? await deps.store.collection<CustomerHoldDoc>(CUSTOMER_HOLDS).get(ref.id) : null;
  if (!doc || doc.organizationId !== ref.organizationId || doc.mode !== ref.mode)
    throw new NotFoundError('customer hold not found');
  return doc;
}

/**
 * Lifts an active hold: the record keeps who lifted it, when and why, and the buyer's lookup keys
 * of the hold go, in one store transaction (compare-and-set on the hold). Lifting a lifted hold
 * answers it unchanged.
 */
export async function liftCustomerHold(
  deps: CheckoutDeps,
  ref: HoldRef,
  input: { actor: string; reason: string | null },
): Promise<CustomerHoldDoc> {
  const current = await getCustomerHold(deps, ref);
  const at = deps.clock.now().toISOString();
  const lifted = await deps.outbox.commit(async (tx) => {
    const holds = tx.collection<CustomerHoldDoc>(CUSTOMER_HOLDS);
    const cur = (await holds.get(current.id)) ?? current;
    const next = liftHold(cur, { actor: input.actor, reason: input.reason, at });
    if (!next) return null;
    const stored = await holds.replace(next);
    await tx.collection<BuyerBlockDoc>(BUYER_BLOCKS).deleteMany({ ref: holdRef(cur.id) });
    return stored;
  });
  if (!lifted) return getCustomerHold(deps, ref);
  deps.logger.info(
    { holdId: lifted.id, organizationId: lifted.organizationId, actor: input.actor },
    'customer hold lifted',
  );
  return lifted;
}
