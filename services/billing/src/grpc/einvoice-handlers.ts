import type { billing } from '@paymesh/proto';
import { unary } from '@paymesh/grpc';
import { z } from 'zod';
import type { InvoiceDeps } from '../app/invoice-deps';
import {
  listEInvoiceReports,
  renderCreditNoteEInvoice,
  renderInvoiceEInvoice,
  type EInvoiceFile,
} from '../app/einvoice-export';
import { bodyOf, idOf, jsonUnary, orgKeyOf } from './json';

const raw = (req: billing.BillingJsonRequest) => req.bodyJson || '{}';
const fileMessage = (f: EInvoiceFile): billing.BillingFileResponse => ({
  content: f.content,
  contentType: f.contentType,
  fileName: f.fileName,
});

/** gRPC handlers of the e-invoice RPCs. */
export function einvoiceHandlers(
  deps: InvoiceDeps,
): Pick<billing.BillingServiceServer, 'renderInvoiceEInvoice' | 'renderCreditNoteEInvoice' | 'listEInvoiceReports'> {
  return {
    renderInvoiceEInvoice: unary(
      deps.logger,
      'billing/RenderInvoiceEInvoice',
      async (req: billing.BillingJsonRequest) =>
        fileMessage(await renderInvoiceEInvoice(deps, orgKeyOf(req), idOf(req), raw(req))),
    ),
    renderCreditNoteEInvoice: unary(
      deps.logger,
      'billing/RenderCreditNoteEInvoice',
      async (req: billing.BillingJsonRequest) =>
        fileMessage(await renderCreditNoteEInvoice(deps, orgKeyOf(req), idOf(req), raw(req))),
    ),
    listEInvoiceReports: jsonUnary(deps.logger, 'billing/ListEInvoiceReports', async (req) => {
      const { documentKind } = bodyOf(req, z.object({ documentKind: z.enum(['invoice', 'credit_note']) }).strict());
      return listEInvoiceReports(deps, orgKeyOf(req), documentKind, idOf(req));
    }),
  };
}
