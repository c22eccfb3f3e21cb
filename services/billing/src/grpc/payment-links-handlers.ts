import type { billing } from '@paymesh/proto';
import type { InvoiceDeps } from '../app/invoice-deps';
import { createPaymentLink } from '../app/create-payment-link';
import { actorOf, billingEdge, idOf, orgKeyOf } from './json';

/** gRPC handlers of the invoice payment link RPCs. */
export function paymentLinksHandlers(
  deps: InvoiceDeps,
): Pick<billing.BillingServiceServer, 'createInvoicePaymentCheckout'> {
  const rpc = billingEdge(deps.logger);
  return {
    createInvoicePaymentCheckout: rpc.json('createInvoicePaymentCheckout', async (input, req) =>
      createPaymentLink(deps, orgKeyOf(req), idOf(req), input, actorOf(req)),
    ),
  };
}
