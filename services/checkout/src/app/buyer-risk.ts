import type { CheckoutDoc } from '../domain/checkout';
import {
  assertCheckoutAllowed,
  assertPaymentAllowed,
  buyerKeys,
  buyerOf,
  judgeBuyer,
  type BuyerBlockDoc,
  type BuyerIdentity,
  type BuyerVerdict,
} from '../domain/customer-hold';
import { BUYER_BLOCKS } from '../store/collections';
import type { CheckoutCreationGuard, PaymentsDeps } from './payments-deps';
import { enabledProviders } from './resolve-provider';

/** More flags than this for one buyer are not read: the strictest kinds sort first anyway. */
const MAX_BLOCKS = 100;

/** What the buyer's active disputes and holds allow (indexed reads, cached per organization and buyer; none without an identity). */
export async function buyerVerdict(
  deps: Pick<PaymentsDeps, 'store'>,
  scope: Pick<CheckoutDoc, 'organizationId' | 'mode'>,
  buyer: BuyerIdentity,
): Promise<BuyerVerdict> {
  const keys = buyerKeys(buyer);
  if (keys.length === 0) return { kind: 'clear' };
  const collection = deps.store.collection<BuyerBlockDoc>(BUYER_BLOCKS);
  // Most organizations have no block at all: one cached read per organization says so.
  if (!(await collection.findOne({ organizationId: scope.organizationId, mode: scope.mode }))) return { kind: 'clear' };
  const blocks = await collection.find(
    { organizationId: scope.organizationId, mode: scope.mode, key: { $in: keys } },
    { limit: MAX_BLOCKS },
  );
  return judgeBuyer(blocks.items);
}

/** The buyer of a checkout session, optionally with the e-mail the buyer entered. */
export function checkoutBuyer(
  checkout: Pick<CheckoutDoc, 'email' | 'clientId'>,
  buyerEmail?: string | null,
): BuyerIdentity {
  return buyerOf([checkout.email, buyerEmail], checkout.clientId);
}

/**
 * Checkout creation guard: a buyer (the checkout's e-mail or client ID) with an active dispute or a
 * block/review hold is refused with the coded 409; a restricted buyer only when the organization
 * has no enabled provider of a safe type.
 */
export function buyerRiskGuard(deps: PaymentsDeps): CheckoutCreationGuard {
  return {
    name: 'buyer-risk',
    async check({ checkout }) {
      const verdict = await buyerVerdict(deps, checkout, checkoutBuyer(checkout));
      if (verdict.kind === 'clear') return;
      const offered =
        verdict.kind === 'restricted' ? [...new Set((await enabledProviders(deps, checkout)).map((p) => p.type))] : [];
      assertCheckoutAllowed(verdict, offered);
    },
  };
}

/** Buyer actions that pick a provider (handoff, transaction create): the same rules, for that provider type. */
export async function assertBuyerMayPay(
  deps: PaymentsDeps,
  checkout: Pick<CheckoutDoc, 'organizationId' | 'mode' | 'email' | 'clientId'>,
  buyerEmail: string | null | undefined,
  providerType: string,
): Promise<void> {
  assertPaymentAllowed(await buyerVerdict(deps, checkout, checkoutBuyer(checkout, buyerEmail)), providerType);
}
