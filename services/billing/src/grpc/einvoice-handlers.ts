import type { billing } from '@paymesh/proto';
import type { InvoiceDeps } from '../app/invoice-deps';
import {
  getEInvoiceReadiness,
  listEInvoiceReports,
  renderCreditNoteEInvoice,
  renderInvoiceEInvoice,
  type EInvoiceFile,
} from '../app/einvoice-export';
import { billingEdge, idOf, orgKeyOf } from './json';

export const fileMessage = (f: EInvoiceFile): billing.BillingFileResponse => ({
  content: f.content,
  contentType: f.contentType,
  fileName: f.fileName,
});

/** gRPC handlers of the e-invoice RPCs. */
export function einvoiceHandlers(
  deps: InvoiceDeps,
): Pick<
  billing.BillingServiceServer,
  'renderInvoiceEInvoice' | 'renderCreditNoteEInvoice' | 'listEInvoiceReports' | 'getEInvoiceReadiness'
> {
  const rpc = billingEdge(deps.logger);
  return {
    renderInvoiceEInvoice: rpc.file('renderInvoiceEInvoice', async (request, req) =>
      fileMessage(await renderInvoiceEInvoice(deps, orgKeyOf(req), idOf(req), request)),
    ),
    renderCreditNoteEInvoice: rpc.file('renderCreditNoteEInvoice', async (request, req) =>
      fileMessage(await renderCreditNoteEInvoice(deps, orgKeyOf(req), idOf(req), request)),
    ),
    listEInvoiceReports: rpc.json('listEInvoiceReports', async ({ documentKind }, req) =>
      listEInvoiceReports(deps, orgKeyOf(req), documentKind, idOf(req)),
    ),
    getEInvoiceReadiness: rpc.json('getEInvoiceReadiness', async (_body, req) =>
      getEInvoiceReadiness(deps, orgKeyOf(req)),
    ),
  };
}
