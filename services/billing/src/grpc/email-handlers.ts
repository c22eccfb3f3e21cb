import type { billing } from '@paymesh/proto';
import type { InvoiceDeps } from '../app/invoice-deps';
import { sendDocumentEmail } from '../app/send-document-email';
import { billingEdge, idOf, orgKeyOf } from './json';

/** gRPC handlers of the document e-mail RPCs. */
export function emailHandlers(
  deps: InvoiceDeps,
): Pick<billing.BillingServiceServer, 'sendInvoiceEmail' | 'sendCreditNoteEmail'> {
  const rpc = billingEdge(deps.logger);
  return {
    sendInvoiceEmail: rpc.json('sendInvoiceEmail', async (input, req) =>
      sendDocumentEmail(deps, orgKeyOf(req), 'invoice', idOf(req), input),
    ),
    sendCreditNoteEmail: rpc.json('sendCreditNoteEmail', async (input, req) =>
      sendDocumentEmail(deps, orgKeyOf(req), 'credit_note', idOf(req), input),
    ),
  };
}
