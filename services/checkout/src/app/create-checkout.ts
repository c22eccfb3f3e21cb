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
import { checkoutHostFor, frontendUrlOnHost, type CustomDomainDoc } from '../domain/custom-domain';
import type { Mode, SiteDoc } from '../domain/site';
import { CHECKOUTS, CUSTOM_DOMAINS } from '../store/collections';
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
/** Custom domains of one organization and mode read to pick the checkout host (far more than any merchant has). */
const MAX_DOMAINS_READ = 100;

/**
 * The checkout frontend URL of a site's sessions: the default host (`CHECKOUT_FRONTEND_URL`) unless
 * the merchant routed a CNAME-verified custom domain to us for the site or the whole organization
 * (see `checkoutHostFor`).
 */
async function checkoutFrontendUrlOf(deps: PaymentsDeps, site: SiteDoc): Promise<string> {
  const domains = await deps.store
    .collection<CustomDomainDoc>(CUSTOM_DOMAINS)
    .find(
      { organizationId: site.organizationId, mode: site.mode, verified: true },
      { sort: { createdAt: 1 }, limit: MAX_DOMAINS_READ },
    );
  const host = checkoutHostFor(domains.items, site);
  return host ? frontendUrlOnHost(deps.settings.checkoutFrontendUrl, host) : deps.settings.checkoutFrontendUrl;
}

/**
 * Creates a checkout session for a site of the organization (404 for another tenant's site):
 * validates the input, checks the IPN target, runs the creation guards, then stores it with a
 * fresh public session ID and short code (re-drawn on the unlikely collision) and its
 * `paymentUrl` on the site's checkout host.
 */
export async function createCheckout(deps: PaymentsDeps, input: CreateCheckoutInput): Promise<CheckoutDoc> {
  const site = await getSite(deps, input.organizationId, input.mode, input.siteId);
  const now = deps.clock.now();
  const valid = validateCheckoutInput(input, {
    now,
    defaultLifetimeHours: deps.settings.sessionTtlHours,
    ipnPolicy: deps.settings.ipnPolicy,
  });
  const invoiceTax = parseInvoiceTax(input.invoiceTaxJson, {
    amount: valid.amount,
    currency: valid.currency,
    itemCount: valid.items.length,
  });
  await checkIpnTargetResolution(deps, valid.ipnUrl);
  const frontendUrl = await checkoutFrontendUrlOf(deps, site);
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
      paymentUrl: paymentUrlFor(frontendUrl, sessionPublicId),
      status: 'pending',
      ...valid,
      completedTransactionId: null,
      attemptsEnded: false,
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
      deps.logger.info(
        { checkoutId: stored.id, siteId: site.id, organizationId: input.organizationId },
        'checkout created',
      );
      return stored;
    } catch (err) {
      if (!(err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY) || attempt >= MAX_CODE_ATTEMPTS)
        throw err;
      doc = draft();
    }
  }
}
