import { invoicePaymentCheckoutRequest } from '@paymesh/contracts';
import type { billing } from '@paymesh/proto';
import type { InvoiceDeps } from '../app/invoice-deps';
import { createPaymentLink } from '../app/create-payment-link';
import { bodyOf, idOf, jsonUnary, orgKeyOf } from './json';

/** gRPC handlers of the invoice payment link RPCs. */
export function paymentLinksHandlers(
  deps: InvoiceDeps,
): Pick<billing.BillingServiceServer, 'createInvoicePaymentCheckout'> {
  return {
    createInvoicePaymentCheckout: jsonUnary(deps.logger, 'billing/CreateInvoicePaymentCheckout', async (req) =>
      createPaymentLink(deps, orgKeyOf(req), idOf(req), bodyOf(req, invoicePaymentCheckoutRequest), req.actor || null),
    ),
  };
}
