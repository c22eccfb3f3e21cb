import type { TaxCalculation } from '@paymesh/contracts';
import { validateTaxAddress } from '../domain/billing-address';
import { validateOptionalShippingAddress, type ShippingAddressInput } from '../domain/shipping-address';
import { assertOpenForPayment, loadCheckoutForBuyer } from './access';
import { checkoutTax } from './checkout-tax';
import type { PaymentsDeps } from './payments-deps';

export interface PreviewCheckoutTaxInput {
  sessionPublicId: string;
  browserOrigin: string;
  billingAddress:
    { country?: string | undefined; postcode?: string | undefined; vatId?: string | undefined } | undefined;
  /** Where the buyer has the goods sent; absent: the checkout's shipping address, if any. */
  shippingAddress?: ShippingAddressInput | undefined;
}

/**
 * The tax a buyer would pay for a checkout session with the given address, computed exactly as
 * transaction create will (its total gross is what will be charged). Session rules as for a
 * handoff: open session, allowed origin; the licence is checked when paying. Stores nothing.
 */
export async function previewCheckoutTax(deps: PaymentsDeps, input: PreviewCheckoutTaxInput): Promise<TaxCalculation> {
  const billing = validateTaxAddress(input.billingAddress ?? {});
  const shipping = validateOptionalShippingAddress(input.shippingAddress);
  const { checkout, site } = await loadCheckoutForBuyer(deps, input.sessionPublicId, input.browserOrigin, {
    enforceLicense: false,
  });
  assertOpenForPayment(checkout, deps.clock.now());
  return (await checkoutTax(deps, checkout, site, { billing, shipping }, 'fail')).tax;
}
