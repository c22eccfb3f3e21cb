import type { CheckoutDoc } from '../domain/checkout';
import { effectiveVatIdValidation, type VatIdValidation } from '../domain/settings';
import type { PaymentsDeps } from './payments-deps';

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
      'tax settings unavailable; treating VAT ID validation vies as format',
    );
    return undefined;
  }
}

/**
 * The effective VAT ID validation mode of a session: the site's configured mode, with `vies`
 * downgraded to `format` unless the organization's tax settings allow VIES (asked only for `vies`
 * sites). The public view shows it and the tax of the session is computed with it.
 */
export async function effectiveVatIdModeOf(
  deps: PaymentsDeps,
  checkout: CheckoutDoc,
  configured: VatIdValidation | undefined,
): Promise<VatIdValidation> {
  const allowed = configured === 'vies' ? await taxAllowsVies(deps, checkout) : undefined;
  return effectiveVatIdValidation(configured, allowed);
}
