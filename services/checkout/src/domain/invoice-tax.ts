import { ValidationError } from '@paymesh/core';
import { checkoutInvoiceTax, type CheckoutInvoiceTax } from '@paymesh/contracts';

/**
 * Parses and checks the fixed invoice tax of a new checkout (JSON from billing): well formed, in
 * the checkout's currency, allocated to exactly the checkout's amount, and not combined with items
 * (the tax basis of an invoice checkout is the invoice, not line items).
 */
export function parseInvoiceTax(
  json: string | undefined,
  checkout: { amount: number; currency: string; itemCount: number },
): CheckoutInvoiceTax | null {
  if (json === undefined || json.trim() === '') return null;
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new ValidationError('invoiceTax must be JSON', { field: 'invoiceTax' });
  }
  const parsed = checkoutInvoiceTax.safeParse(raw);
  if (!parsed.success)
    throw new ValidationError(`invoiceTax is malformed: ${parsed.error.issues[0]?.message ?? 'invalid'}`, {
      field: 'invoiceTax',
    });
  const tax = parsed.data;
  if (checkout.itemCount > 0)
    throw new ValidationError('a checkout with an invoice tax takes no items', { field: 'items' });
  if (tax.allocation.currency !== checkout.currency)
    throw new ValidationError('invoiceTax currency must be the checkout currency', { field: 'invoiceTax' });
  if (tax.allocation.totalGross !== checkout.amount) {
    throw new ValidationError('invoiceTax must be allocated to exactly the checkout amount', { field: 'invoiceTax' });
  }
  return tax;
}
