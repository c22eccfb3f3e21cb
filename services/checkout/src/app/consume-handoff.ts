import { NotFoundError } from '@paymesh/core';
import type { BillingAddress } from '../domain/billing-address';
import { hashHandoffToken, type HandoffDoc } from '../domain/handoff';
import { HANDOFFS } from '../store/collections';
import { loadCheckoutForBuyer } from './access';
import type { PaymentsDeps } from './payments-deps';

export interface ConsumedHandoff {
  providerId: string;
  billingAddress: BillingAddress | null;
  createdAt: string;
}

/**
 * Redeems a handoff token once: the delete decides the single winner, so a second (or concurrent)
 * consume, an expired token and a token of another session all get the same 404.
 */
export async function consumeHandoff(
  deps: PaymentsDeps,
  input: { sessionPublicId: string; token: string; browserOrigin: string },
): Promise<ConsumedHandoff> {
  const { checkout } = await loadCheckoutForBuyer(deps, input.sessionPublicId, input.browserOrigin, {
    enforceLicense: false,
  });
  const notFound = new NotFoundError('handoff token not found, already used or expired');
  if (!input.token) throw notFound;
  const handoffs = deps.store.collection<HandoffDoc>(HANDOFFS);
  const doc = await handoffs.findOne({ tokenHash: hashHandoffToken(input.token) });
  if (!doc || doc.checkoutId !== checkout.id) throw notFound;
  const removed = await handoffs.delete(doc.id);
  if (!removed) throw notFound;
  if (Date.parse(doc.expiresAt) <= deps.clock.now().getTime()) throw notFound;
  deps.logger.info({ checkoutId: checkout.id }, 'handoff consumed');
  return { providerId: doc.providerId, billingAddress: doc.billingAddress, createdAt: doc.createdAt };
}
