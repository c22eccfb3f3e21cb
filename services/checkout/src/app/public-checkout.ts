import { checkoutStatus, publicLineItems, type CheckoutStatus } from '../domain/checkout';
import { sitePresentationOf, type VatIdValidation } from '../domain/settings';
import { loadCheckoutForBuyer } from './access';
import { enabledProviders } from './resolve-provider';
import { buyerVerdict, checkoutBuyer } from './buyer-risk';
import { allowedProviderTypes } from '../domain/customer-hold';
import type { PaymentsDeps } from './payments-deps';
import { effectiveVatIdModeOf } from './vat-id-mode';

/** The checkout session as the hosted checkout sees it. */
export interface PublicCheckoutView {
  id: string;
  currency: string;
  amount: number;
  status: CheckoutStatus;
  lineItems: { name: string; quantity: number; unitAmount: number }[];
  providers: string[];
  branding: { logo: string | undefined; primaryColor: string | undefined };
  expiresAt: string;
  vatIdValidation: VatIdValidation;
}

/**
 * Public view of a checkout session (licence and origin rules apply). `providers` lists the
 * distinct types of the organization's enabled providers in the session's mode; for a buyer
 * restricted by a customer risk hold only the hold's safe types.
 */
export async function getPublicCheckout(
  deps: PaymentsDeps,
  sessionPublicId: string,
  browserOrigin: string,
): Promise<PublicCheckoutView> {
  const { checkout, site } = await loadCheckoutForBuyer(deps, sessionPublicId, browserOrigin, { enforceLicense: true });
  const presentation = sitePresentationOf(site);
  const [providerList, vatIdValidation, verdict] = await Promise.all([
    enabledProviders(deps, checkout),
    effectiveVatIdModeOf(deps, checkout, presentation.vatIdValidation),
    buyerVerdict(deps, checkout, checkoutBuyer(checkout)),
  ]);
  // A buyer restricted by a customer risk hold sees only the safe (bank-transfer-capable) types.
  const providers = allowedProviderTypes(verdict, [...new Set(providerList.map((p) => p.type))]);
  return {
    id: checkout.sessionPublicId,
    currency: checkout.currency,
    amount: checkout.amount,
    status: checkoutStatus(checkout, deps.clock.now()),
    lineItems: publicLineItems(checkout),
    providers,
    branding: { logo: presentation.logo, primaryColor: presentation.primaryColor },
    expiresAt: checkout.expiresAt,
    vatIdValidation,
  };
}
