import { toWire } from '@paymesh/core';
import type { checkoutPayments } from '@paymesh/proto';
import type { CreatedCheckout, InvoiceCheckoutRequest } from '../app/checkout-port';

/**
 * checkout's `CreateCheckout` request of an invoice payment link. It carries no items: the tax of
 * an invoice checkout is the invoice's (`invoice_tax_json`, allocated from its tax snapshot), never
 * rate codes for checkout to resolve, so reverse-charge, export, exempt, zero-rated and manual
 * codes of the invoice never become checkout tax-rate codes.
 */
export function createCheckoutMessage(req: InvoiceCheckoutRequest): checkoutPayments.CreateCheckoutRequest {
  return {
    ...toWire(req),
    siteId: req.siteId,
    amount: req.amount,
    currency: req.currency,
    email: req.email ?? undefined,
    returnUrl: req.returnUrl ?? undefined,
    cancelUrl: req.cancelUrl ?? undefined,
    invoiceNumber: req.invoiceNumber,
    clientId: req.clientId ?? undefined,
    items: [],
    metadata: req.metadata,
    expiresAt: req.expiresAt,
    invoiceTaxJson: JSON.stringify(req.invoiceTax),
  };
}

export function createdCheckoutOf(res: checkoutPayments.CheckoutRecord): CreatedCheckout {
  return {
    id: res.id,
    sessionPublicId: res.sessionPublicId,
    paymentUrl: res.paymentUrl,
    amount: res.amount,
    expiresAt: res.expiresAt,
  };
}
