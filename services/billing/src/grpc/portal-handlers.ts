import type { billing } from '@paymesh/proto';
import type { InvoiceDeps } from '../app/invoice-deps';
import { countPortalDocuments, listPortalDocuments, portalDocumentPdf, portalEInvoice } from '../app/portal-documents';
import { proformaPreviewPdf } from '../app/proforma-preview';
import { fileMessage } from './einvoice-handlers';
import { billingEdge, buyerOf, orgKeyOf } from './json';

type PortalMethods =
  | 'countPortalDocuments'
  | 'listPortalDocuments'
  | 'getPortalDocumentPdf'
  | 'renderPortalEInvoice'
  | 'renderProformaPreview';

/** gRPC handlers of the buyer portal's document RPCs (gateway-public). */
export function portalHandlers(deps: InvoiceDeps): Pick<billing.BillingServiceServer, PortalMethods> {
  const rpc = billingEdge(deps.logger);
  return {
    countPortalDocuments: rpc.json('countPortalDocuments', async (_body, req) =>
      countPortalDocuments(deps, orgKeyOf(req), buyerOf(req)),
    ),
    listPortalDocuments: rpc.json('listPortalDocuments', async (query, req) =>
      listPortalDocuments(deps, orgKeyOf(req), buyerOf(req), query),
    ),
    getPortalDocumentPdf: rpc.file('getPortalDocumentPdf', async ({ type }, req): Promise<billing.BillingPdfResponse> =>
      portalDocumentPdf(deps, orgKeyOf(req), req.id, buyerOf(req), type),
    ),
    renderPortalEInvoice: rpc.file('renderPortalEInvoice', async ({ format }, req) =>
      fileMessage(await portalEInvoice(deps, orgKeyOf(req), req.id, buyerOf(req), format)),
    ),
    renderProformaPreview: rpc.file('renderProformaPreview', async (body, req): Promise<billing.BillingPdfResponse> =>
      proformaPreviewPdf(deps, orgKeyOf(req), body),
    ),
  };
}
