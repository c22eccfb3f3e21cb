import { timingSafeEqual } from 'node:crypto';
import { isObjectId, ConflictError, ForbiddenError, NotFoundError, ErrorCode } from '@paymesh/core';
import { checkoutStatus, type CheckoutDoc } from '../domain/checkout';
import { licenseDenial, type LicenseState, type OrgLicenseDoc } from '../domain/license';
import { customDomainAllowsSite, defaultPortHostOf, originAllowed } from '../domain/origin';
import type { CustomDomainDoc } from '../domain/custom-domain';
import type { SiteDoc } from '../domain/site';
import type { TransactionDoc } from '../domain/transaction';
import { CHECKOUTS, CUSTOM_DOMAINS, ORG_LICENSES, SITES, TRANSACTIONS } from '../store/collections';
import type { PaymentsDeps } from './payments-deps';

/** Licence state from the replica; undefined when the organization is not (yet) known. */
export async function licenseStateOf(deps: PaymentsDeps, organizationId: string): Promise<LicenseState | undefined> {
  const doc = await deps.store.collection<OrgLicenseDoc>(ORG_LICENSES).get(organizationId);
  if (!doc) {
    deps.logger.warn({ organizationId }, 'no licence state replicated for organization; treating it as active');
    return undefined;
  }
  return doc.licenseState;
}

/**
 * Refuses a browser request whose origin is neither one of the site's frontend domains nor a
 * verified custom domain of the organization (organization-wide or bound to this site, same
 * mode). An empty `browserOrigin` means the gateway already trusts the caller (no Origin/Referer,
 * or the main frontend).
 */
export async function assertOrigin(deps: PaymentsDeps, site: SiteDoc, browserOrigin: string): Promise<void> {
  if (!browserOrigin || originAllowed(browserOrigin, site.frontendDomains)) return;
  const host = defaultPortHostOf(browserOrigin);
  const domain = host ? await deps.store.collection<CustomDomainDoc>(CUSTOM_DOMAINS).findOne({ hostname: host }) : null;
  if (domain && customDomainAllowsSite(domain, site)) return;
  throw new ForbiddenError('origin not allowed for this checkout');
}

async function siteOf(deps: PaymentsDeps, siteId: string): Promise<SiteDoc> {
  const site = await deps.store.collection<SiteDoc>(SITES).get(siteId);
  if (!site) throw new NotFoundError('checkout not found');
  return site;
}

/**
 * A checkout session by public ID for a buyer-facing call: 404 when unknown, 403 for a foreign
 * browser origin, and (with `enforceLicense`) 403 when the merchant's licence is blocked or not
 * activated.
 */
export async function loadCheckoutForBuyer(
  deps: PaymentsDeps,
  sessionPublicId: string,
  browserOrigin: string,
  opts: { enforceLicense: boolean },
): Promise<{ checkout: CheckoutDoc; site: SiteDoc }> {
  const checkout = sessionPublicId
    ? await deps.store.collection<CheckoutDoc>(CHECKOUTS).findOne({ sessionPublicId })
    : null;
  if (!checkout) throw new NotFoundError('checkout not found');
  const site = await siteOf(deps, checkout.siteId);
  await assertOrigin(deps, site, browserOrigin);
  if (opts.enforceLicense) {
    const denial = licenseDenial(await licenseStateOf(deps, checkout.organizationId));
    if (denial) throw denial;
  }
  return { checkout, site };
}

/** Refuses new payments on a session that is completed or expired (409 with a code). */
export function assertOpenForPayment(checkout: CheckoutDoc, now: Date): void {
  const status = checkoutStatus(checkout, now);
  if (status === 'expired')
    throw new ConflictError('checkout session has expired', { code: ErrorCode.CHECKOUT_EXPIRED });
  if (status === 'completed')
    throw new ConflictError('checkout session is already paid', { code: ErrorCode.CHECKOUT_COMPLETED });
}

/** A (not deleted) transaction by ID for a buyer-facing call; 404 when unknown. */
export async function loadTransaction(deps: PaymentsDeps, transactionId: string): Promise<TransactionDoc> {
  const doc = isObjectId(transactionId)
    ? await deps.store.collection<TransactionDoc>(TRANSACTIONS).get(transactionId)
    : null;
  if (!doc || doc.deletedAt) throw new NotFoundError('transaction not found');
  return doc;
}

/** A transaction as the buyer's page names it: the transaction, its session and the page's origin. */
export interface BuyerTransactionRef {
  transactionId: string;
  browserOrigin: string;
  sessionPublicId: string;
}

/**
 * A transaction a buyer acts on (cancel, mark-pending). Transaction IDs are document IDs and can be
 * guessed, so the caller must also present the checkout session's unguessable public ID; a
 * mismatch is reported as not found, revealing nothing.
 */
export async function loadTransactionForBuyerAction(
  deps: PaymentsDeps,
  input: BuyerTransactionRef,
): Promise<TransactionDoc> {
  const doc = await loadTransaction(deps, input.transactionId);
  if (!doc.sessionPublicId || !sameSecret(doc.sessionPublicId, input.sessionPublicId))
    throw new NotFoundError('transaction not found');
  if (input.browserOrigin) await assertOrigin(deps, await siteOf(deps, doc.siteId), input.browserOrigin);
  return doc;
}

function sameSecret(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

/** A transaction of the organization in the mode (admin); other tenants' transactions are not found. */
export async function loadTransactionForOrg(
  deps: PaymentsDeps,
  organizationId: string,
  mode: 'live' | 'test',
  id: string,
): Promise<TransactionDoc> {
  const doc = isObjectId(id) ? await deps.store.collection<TransactionDoc>(TRANSACTIONS).get(id) : null;
  if (!doc || doc.deletedAt || doc.organizationId !== organizationId || doc.mode !== mode)
    throw new NotFoundError('transaction not found');
  return doc;
}
