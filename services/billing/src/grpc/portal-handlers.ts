import type { billing } from '@paymesh/proto';
import { unary } from '@paymesh/grpc';
import type { InvoiceDeps } from '../app/invoice-deps';
import { countPortalDocuments, listPortalDocuments, portalDocumentPdf, portalEInvoice } from '../app/portal-documents';
import { proformaPreviewPdf } from '../app/proforma-preview';
import { jsonUnary, orgKeyOf } from './json';

type PortalMethods =
  | 'countPortalDocuments'
  | 'listPortalDocuments'
  | 'getPortalDocumentPdf'
  | 'renderPortalEInvoice'
  | 'renderProformaPreview';

/** gRPC handlers of the buyer portal's document RPCs (gateway-public). */
export function portalHandlers(deps: InvoiceDeps): Pick<billing.BillingServiceServer, PortalMethods> {
  return {
    countPortalDocuments: jsonUnary(deps.logger, 'billing/CountPortalDocuments', async (req) =>
      countPortalDocuments(deps, orgKeyOf(req), req.bodyJson),
    ),
    listPortalDocuments: jsonUnary(deps.logger, 'billing/ListPortalDocuments', async (req) =>
      listPortalDocuments(deps, orgKeyOf(req), req.bodyJson),
    ),
    getPortalDocumentPdf: unary(
      deps.logger,
      'billing/GetPortalDocumentPdf',
      async (req: billing.BillingJsonRequest): Promise<billing.BillingPdfResponse> =>
        portalDocumentPdf(deps, orgKeyOf(req), req.id, req.bodyJson),
    ),
    renderPortalEInvoice: unary(
      deps.logger,
      'billing/RenderPortalEInvoice',
      async (req: billing.BillingJsonRequest): Promise<billing.BillingFileResponse> => {
        const f = await portalEInvoice(deps, orgKeyOf(req), req.id, req.bodyJson);
        return { content: f.content, contentType: f.contentType, fileName: f.fileName };
      },
    ),
    renderProformaPreview: unary(
      deps.logger,
      'billing/RenderProformaPreview',
      async (req: billing.BillingJsonRequest): Promise<billing.BillingPdfResponse> =>
        proformaPreviewPdf(deps, orgKeyOf(req), req.bodyJson),
    ),
  };
}
