import { ConflictError, newObjectId, ErrorCode } from '@paymesh/core';
import {
  newSessionPublicId,
  newShortCode,
  paymentUrlFor,
  validateCheckoutInput,
  type CheckoutDoc,
  type CheckoutInput,
} from '../domain/checkout';
import { parseInvoiceTax } from '../domain/invoice-tax';
import type { Mode } from '../domain/site';
import { CHECKOUTS } from '../store/collections';
import { getSite } from './get-site';
import { checkIpnTargetResolution } from './ipn-target-check';
import type { PaymentsDeps } from './payments-deps';

export interface CreateCheckoutInput extends CheckoutInput {
  organizationId: string;
  mode: Mode;
  siteId: string;
  /** JSON `checkoutInvoiceTax` (billing's invoice payment links); empty: none. */
  invoiceTaxJson?: string | undefined;
}

const MAX_CODE_ATTEMPTS = 5;

/**
 * Creates a checkout session for a site of the organization (404 for another tenant's site):
 * validates the input, checks the IPN target, runs the creation guards, then stores it with a
 * fresh public session ID and short code (re-drawn on the unlikely collision).
 */
export async function createCheckout(deps: PaymentsDeps, input: CreateCheckoutInput): Promise<CheckoutDoc> {
  const site = await getSite(deps, input.organizationId, input.mode, input.siteId);
  const now = deps.clock.now();
  const valid = validateCheckoutInput(input, {
    now,
    defaultLifetimeHours: deps.settings.sessionTtlHours,
    ipnPolicy: deps.settings.ipnPolicy,
  });
  const invoiceTax = parseInvoiceTax(input.invoiceTaxJson, { amount: valid.amount, currency: valid.currency, itemCount: valid.items.length });
  await checkIpnTargetResolution(deps, valid.ipnUrl);
  const at = now.toISOString();
  const draft = (): Omit<CheckoutDoc, 'version'> => {
    const sessionPublicId = newSessionPublicId();
    return {
      id: newObjectId(),
      organizationId: input.organizationId,
      siteId: site.id,
      mode: input.mode,
      sessionPublicId,
      shortCode: newShortCode(),
      paymentUrl: paymentUrlFor(deps.settings.checkoutFrontendUrl, sessionPublicId),
      status: 'pending',
      ...valid,
      completedTransactionId: null,
      ...(invoiceTax ? { invoiceTax } : {}),
      createdAt: at,
      updatedAt: at,
    };
  };
  let doc = draft();
  for (const guard of deps.guards) await guard.check({ site, checkout: doc });
  for (let attempt = 1; ; attempt++) {
    try {
      const stored = await deps.store.collection<CheckoutDoc>(CHECKOUTS).insert(doc);
      deps.logger.info({ checkoutId: stored.id, siteId: site.id, organizationId: input.organizationId }, 'checkout created');
      return stored;
    } catch (err) {
      if (!(err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY) || attempt >= MAX_CODE_ATTEMPTS) throw err;
      doc = draft();
    }
  }
}
