import { invoicePaymentCheckout as contract } from '@paymesh/contracts';

/** Answer of `POST /invoices/:id/payment-checkout`: the hosted payment link of an issued invoice. */
export const invoicePaymentCheckout = contract.extend({
  checkoutId: contract.shape.checkoutId.describe('checkout document ID (Admin checkouts API)'),
  sessionPublicId: contract.shape.sessionPublicId.describe('public checkout session ID the buyer pays'),
  paymentUrl: contract.shape.paymentUrl.describe('hosted checkout address to send the buyer'),
  amount: contract.shape.amount.describe('amount of the link, minor units'),
  expiresAt: contract.shape.expiresAt.describe('when the link expires (ISO 8601 UTC)'),
});
