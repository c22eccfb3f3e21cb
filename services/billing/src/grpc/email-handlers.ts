import type { billing } from '@paymesh/proto';
import type { InvoiceDeps } from '../app/invoice-deps';
import { sendDocumentEmail } from '../app/send-document-email';
import { idOf, jsonUnary, orgKeyOf } from './json';

/** gRPC handlers of the document e-mail RPCs. */
export function emailHandlers(
  deps: InvoiceDeps,
): Pick<billing.BillingServiceServer, 'sendInvoiceEmail' | 'sendCreditNoteEmail'> {
  return {
    sendInvoiceEmail: jsonUnary(deps.logger, 'billing/SendInvoiceEmail', async (req) =>
      sendDocumentEmail(deps, orgKeyOf(req), 'invoice', idOf(req), req.bodyJson),
    ),
    sendCreditNoteEmail: jsonUnary(deps.logger, 'billing/SendCreditNoteEmail', async (req) =>
      sendDocumentEmail(deps, orgKeyOf(req), 'credit_note', idOf(req), req.bodyJson),
    ),
  };
}
