import type { billing } from '@paymesh/proto';
import { creditNotePdf, invoicePdf } from '../app/document-pdf';
import type { InvoiceDeps } from '../app/invoice-deps';
import { billingEdge, idOf, orgKeyOf } from './json';

type PdfMethods = 'getInvoicePdf' | 'regenerateInvoicePdf' | 'getCreditNotePdf';

/** gRPC handlers of the document PDF RPCs (bytes, not JSON). */
export function documentsHandlers(deps: InvoiceDeps): Pick<billing.BillingServiceServer, PdfMethods> {
  const rpc = billingEdge(deps.logger);
  return {
    getInvoicePdf: rpc.file('getInvoicePdf', async (_body, req): Promise<billing.BillingPdfResponse> =>
      invoicePdf(deps, orgKeyOf(req), idOf(req), false),
    ),
    regenerateInvoicePdf: rpc.file('regenerateInvoicePdf', async (_body, req): Promise<billing.BillingPdfResponse> =>
      invoicePdf(deps, orgKeyOf(req), idOf(req), true),
    ),
    getCreditNotePdf: rpc.file('getCreditNotePdf', async (_body, req): Promise<billing.BillingPdfResponse> =>
      creditNotePdf(deps, orgKeyOf(req), idOf(req), false),
    ),
  };
}
