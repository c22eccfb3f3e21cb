import { newObjectId, trackBackground } from '@paymesh/core';
import type { BillingAddressInput } from '../domain/billing-address';
import { validateBillingAddress } from '../domain/billing-address';
import { hashHandoffToken, newHandoffToken, type HandoffDoc } from '../domain/handoff';
import { HANDOFFS } from '../store/collections';
import { assertOpenForPayment, loadCheckoutForBuyer } from './access';
import { resolveProvider } from './resolve-provider';
import { assertBuyerMayPay } from './buyer-risk';
import type { PaymentsDeps } from './payments-deps';

export interface CreateHandoffInput {
  sessionPublicId: string;
  providerId: string;
  billingAddress?: BillingAddressInput | undefined;
  browserOrigin: string;
}

/**
 * Stores the buyer's provider choice (and billing address) under a random single-use token that
 * another checkout frontend redeems; only the token's hash is kept.
 */
export async function createHandoff(
  deps: PaymentsDeps,
  input: CreateHandoffInput,
): Promise<{ token: string; expiresInSeconds: number }> {
  const billingAddress = input.billingAddress ? validateBillingAddress(input.billingAddress) : null;
  const { checkout } = await loadCheckoutForBuyer(deps, input.sessionPublicId, input.browserOrigin, {
    enforceLicense: false,
  });
  const now = deps.clock.now();
  assertOpenForPayment(checkout, now);
  const provider = await resolveProvider(deps, checkout, input.providerId);
  await assertBuyerMayPay(deps, checkout, billingAddress?.email, provider.type);
  const token = newHandoffToken();
  const ttl = deps.settings.handoffTtlSeconds;
  const handoffs = deps.store.collection<HandoffDoc>(HANDOFFS);
  await handoffs.insert({
    id: newObjectId(),
    tokenHash: hashHandoffToken(token),
    checkoutId: checkout.id,
    sessionPublicId: checkout.sessionPublicId,
    providerId: input.providerId.trim(),
    billingAddress,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + ttl * 1000).toISOString(),
  });
  // Housekeeping: expired tokens are useless; drop them without holding up the buyer.
  void trackBackground(handoffs.deleteMany({ expiresAt: { $lte: now.toISOString() } })).catch((err: unknown) =>
    deps.logger.warn({ err }, 'expired handoff cleanup failed'),
  );
  deps.logger.info({ checkoutId: checkout.id }, 'handoff created');
  return { token, expiresInSeconds: ttl };
}
