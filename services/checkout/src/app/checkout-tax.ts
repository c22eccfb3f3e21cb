import { ErrorCode, isDomainError, UnavailableError } from '@paymesh/core';
import type { CalculateTaxRequest, TaxCalculation } from '@paymesh/contracts';
import type { TaxAddress } from '../domain/billing-address';
import type { CheckoutDoc } from '../domain/checkout';
import { effectiveShippingAddress, type ShippingAddress } from '../domain/shipping-address';
import { sitePresentationOf } from '../domain/settings';
import type { SiteDoc } from '../domain/site';
import { chargedAmount, checkoutTaxRequest, pinnedInput, taxBasisOf, type TaxBasis } from '../domain/tax-basis';
import type { PaymentsDeps } from './payments-deps';
import { effectiveVatIdModeOf } from './vat-id-mode';

export interface CheckoutTax {
  basis: TaxBasis;
  /** The engine's answer; null when the tax service could not answer and the payment may go on without it. */
  tax: TaxCalculation | null;
  /**
   * What the tax was computed from (tax point, price mode and VAT ID check pinned), or the request
   * that could not be answered; null for a checkout of an invoice (its tax is the invoice's).
   */
  input: CalculateTaxRequest | null;
  /** The invoice whose tax snapshot the tax was allocated from; null when the engine computed it. */
  invoiceId: string | null;
  /** What the buyer is charged. */
  amount: number;
  /** The shipping address the tax was computed with (the buyer's, else the checkout's); null: none. */
  shippingAddress: ShippingAddress | null;
}

/** The buyer as tax sees it: the tax part of the billing address, and the shipping address given with it (null: none). */
export interface TaxBuyer {
  billing: TaxAddress;
  shipping: ShippingAddress | null;
}

/**
 * - `fail`: the answer is needed (a preview): 503 TAX_UNAVAILABLE when the tax service cannot answer.
 * - `proceed`: a payment: a tax outage does not block it while the charge does not depend on the tax
 *   (one gross line of the amount, or items of an organization known to price gross); otherwise 503.
 */
export type WhenTaxUnavailable = 'fail' | 'proceed';

/**
 * The tax of a checkout session for a buyer address, the one computation behind the tax preview
 * and transaction create: the basis (the items when they add up to the amount, else one gross line
 * of the amount), the session's effective VAT ID validation mode (as the public view shows it),
 * the shipping destination of goods and shipping lines (the buyer's shipping address, else the
 * checkout's), then tax CalculateTax. Input errors of the tax service pass through (400).
 */
export async function checkoutTax(
  deps: PaymentsDeps,
  checkout: CheckoutDoc,
  site: SiteDoc,
  buyer: TaxBuyer,
  whenUnavailable: 'fail',
): Promise<CheckoutTax & { tax: TaxCalculation }>;
export async function checkoutTax(
  deps: PaymentsDeps,
  checkout: CheckoutDoc,
  site: SiteDoc,
  buyer: TaxBuyer,
  whenUnavailable: WhenTaxUnavailable,
): Promise<CheckoutTax>;
export async function checkoutTax(
  deps: PaymentsDeps,
  checkout: CheckoutDoc,
  site: SiteDoc,
  buyer: TaxBuyer,
  whenUnavailable: WhenTaxUnavailable,
): Promise<CheckoutTax> {
  const basis = taxBasisOf(checkout);
  // The buyer's shipping address wins over the merchant's (see docs/adr/0059-shipping-destination-of-checkouts-and-transactions.md); both are at hand,
  // so this costs no read.
  const shippingAddress = effectiveShippingAddress(buyer.shipping, checkout.shippingAddress);
  if (checkout.invoiceTax) {
    // Settlement tax follows the invoice: the allocation billing made from the invoice's tax
    // snapshot, whatever the buyer's address (the invoice's buyer is fixed).
    return {
      basis,
      tax: checkout.invoiceTax.allocation,
      input: null,
      invoiceId: checkout.invoiceTax.invoiceId,
      amount: checkout.amount,
      shippingAddress,
    };
  }
  const vatIdValidation = await effectiveVatIdModeOf(deps, checkout, sitePresentationOf(site).vatIdValidation);
  const request = checkoutTaxRequest(checkout, basis, buyer.billing, vatIdValidation, shippingAddress?.country);
  let tax: TaxCalculation;
  try {
    tax = await deps.tax.calculate(request);
  } catch (err) {
    if (isDomainError(err) && err.kind === 'validation') throw err;
    const log = {
      err: err instanceof Error ? err.message : String(err),
      organizationId: checkout.organizationId,
      checkoutId: checkout.id,
      basis: basis.kind,
    };
    const known = deps.priceModes.known(checkout.organizationId, checkout.mode);
    if (whenUnavailable === 'proceed' && (basis.kind === 'amount' || known === 'gross')) {
      deps.logger.warn(
        log,
        'tax service unavailable; the payment goes on without tax (the charge does not depend on it)',
      );
      return { basis, tax: null, input: request, invoiceId: null, amount: checkout.amount, shippingAddress };
    }
    deps.logger.warn({ ...log, priceMode: known ?? 'unknown' }, 'tax service unavailable; cannot compute the tax');
    throw new UnavailableError(
      whenUnavailable === 'fail'
        ? 'the tax cannot be computed right now; retry shortly'
        : "the tax cannot be computed right now and this checkout's charge depends on it; retry shortly",
      { code: ErrorCode.TAX_UNAVAILABLE, cause: err },
    );
  }
  deps.priceModes.remember(checkout.organizationId, checkout.mode, tax.settings.priceMode);
  return {
    basis,
    tax,
    input: pinnedInput(request, tax),
    invoiceId: null,
    amount: chargedAmount(checkout, basis, tax),
    shippingAddress,
  };
}
