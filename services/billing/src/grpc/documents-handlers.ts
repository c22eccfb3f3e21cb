import { unary } from '@paymesh/grpc';
import type { billing } from '@paymesh/proto';
import { creditNotePdf, invoicePdf } from '../app/document-pdf';
import type { InvoiceDeps } from '../app/invoice-deps';
import { idOf, orgKeyOf } from './json';

type PdfMethods = 'getInvoicePdf' | 'regenerateInvoicePdf' | 'getCreditNotePdf';

/** gRPC handlers of the document PDF RPCs (bytes, not JSON). */
export function documentsHandlers(deps: InvoiceDeps): Pick<billing.BillingServiceServer, PdfMethods> {
  const pdfUnary = (method: string, load: (req: billing.BillingJsonRequest) => ReturnType<typeof invoicePdf>) =>
    unary(deps.logger, method, async (req: billing.BillingJsonRequest): Promise<billing.BillingPdfResponse> =>
      load(req),
    );
  return {
    getInvoicePdf: pdfUnary('billing/GetInvoicePdf', (req) => invoicePdf(deps, orgKeyOf(req), idOf(req), false)),
    regenerateInvoicePdf: pdfUnary('billing/RegenerateInvoicePdf', (req) =>
      invoicePdf(deps, orgKeyOf(req), idOf(req), true),
    ),
    getCreditNotePdf: pdfUnary('billing/GetCreditNotePdf', (req) =>
      creditNotePdf(deps, orgKeyOf(req), idOf(req), false),
    ),
  };
}
