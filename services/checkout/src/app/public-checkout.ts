import { checkoutStatus, publicLineItems, type CheckoutDoc, type CheckoutStatus } from '../domain/checkout';
import { effectiveVatIdValidation, sitePresentationOf, type VatIdValidation } from '../domain/settings';
import { loadCheckoutForBuyer } from './access';
import { enabledProviders } from './resolve-provider';
import type { PaymentsDeps } from './payments-deps';

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
 * Whether the organization's tax settings allow VIES in the session's mode; undefined (counts as
 * "not allowed") when the tax service cannot answer: the buyer still gets the checkout.
 */
async function taxAllowsVies(deps: PaymentsDeps, checkout: CheckoutDoc): Promise<boolean | undefined> {
  try {
    return await deps.tax.viesAllowed({ organizationId: checkout.organizationId, testMode: checkout.mode === 'test' });
  } catch (err) {
    deps.logger.warn(
      { err, organizationId: checkout.organizationId, checkoutId: checkout.id },
      'tax settings unavailable; showing VAT ID validation vies as format',
    );
    return undefined;
  }
}

/**
 * Public view of a checkout session (licence and origin rules apply). `providers` lists the
 * distinct types of the organization's enabled providers in the session's mode.
 */
export async function getPublicCheckout(deps: PaymentsDeps, sessionPublicId: string, browserOrigin: string): Promise<PublicCheckoutView> {
  const { checkout, site } = await loadCheckoutForBuyer(deps, sessionPublicId, browserOrigin, { enforceLicense: true });
  const presentation = sitePresentationOf(site);
  const [providerList, viesAllowed] = await Promise.all([
    enabledProviders(deps, checkout),
    presentation.vatIdValidation === 'vies' ? taxAllowsVies(deps, checkout) : Promise.resolve(undefined),
  ]);
  const providers = [...new Set(providerList.map((p) => p.type))];
  return {
    id: checkout.sessionPublicId,
    currency: checkout.currency,
    amount: checkout.amount,
    status: checkoutStatus(checkout, deps.clock.now()),
    lineItems: publicLineItems(checkout),
    providers,
    branding: { logo: presentation.logo, primaryColor: presentation.primaryColor },
    expiresAt: checkout.expiresAt,
    vatIdValidation: effectiveVatIdValidation(presentation.vatIdValidation, viesAllowed),
  };
}
