import type { billing } from '@paymesh/proto';
import type { InvoiceDeps } from '../app/invoice-deps';
import { createInvoice, deleteInvoice, previewInvoiceTax, updateInvoice } from '../app/draft-invoice';
import { issueInvoice } from '../app/issue-invoice';
import { voidInvoice } from '../app/void-invoice';
import { correctInvoice, refuseUncorrectable, updateInvoiceNotes } from '../app/correct-invoice';
import { listInvoices } from '../app/list-invoices';
import { createInvoiceFromTransaction } from '../app/invoice-from-transaction';
import { linkInvoiceTransaction } from '../app/link-invoice-transaction';
import { invoiceView, loadInvoice } from '../app/invoice-view';
import { actorOf, billingEdge, idOf, orgKeyOf } from './json';

/** gRPC handlers of the invoice RPCs. */
export function invoicesHandlers(
  deps: InvoiceDeps,
): Pick<
  billing.BillingServiceServer,
  | 'listInvoices'
  | 'getInvoice'
  | 'createInvoice'
  | 'previewInvoiceTax'
  | 'createInvoiceFromTransaction'
  | 'updateInvoice'
  | 'updateInvoiceNotes'
  | 'linkInvoiceTransaction'
  | 'deleteInvoice'
  | 'issueInvoice'
  | 'voidInvoice'
  | 'correctInvoice'
> {
  const rpc = billingEdge(deps.logger);
  return {
    listInvoices: rpc.json('listInvoices', async (query, req) => listInvoices(deps, orgKeyOf(req), query)),
    getInvoice: rpc.json('getInvoice', async (_body, req) => {
      const key = orgKeyOf(req);
      return invoiceView(deps.secrets, key, await loadInvoice(deps, key, idOf(req)));
    }),
    createInvoice: rpc.json('createInvoice', async (input, req) =>
      createInvoice(deps, orgKeyOf(req), input, req.idempotencyKey ? { idempotencyKey: req.idempotencyKey } : {}),
    ),
    previewInvoiceTax: rpc.json('previewInvoiceTax', async (input, req) =>
      previewInvoiceTax(deps, orgKeyOf(req), input),
    ),
    createInvoiceFromTransaction: rpc.json('createInvoiceFromTransaction', async (input, req) =>
      createInvoiceFromTransaction(deps, orgKeyOf(req), idOf(req, 'transactionId'), input),
    ),
    updateInvoice: rpc.json('updateInvoice', async (input, req) =>
      updateInvoice(deps, orgKeyOf(req), idOf(req), input),
    ),
    updateInvoiceNotes: rpc.json('updateInvoiceNotes', async (input, req) =>
      updateInvoiceNotes(deps, orgKeyOf(req), idOf(req), input),
    ),
    linkInvoiceTransaction: rpc.json('linkInvoiceTransaction', async (input, req) =>
      linkInvoiceTransaction(deps, orgKeyOf(req), idOf(req), input),
    ),
    deleteInvoice: rpc.json('deleteInvoice', async (_body, req) => deleteInvoice(deps, orgKeyOf(req), idOf(req))),
    issueInvoice: rpc.json('issueInvoice', async (_body, req) => issueInvoice(deps, orgKeyOf(req), idOf(req))),
    voidInvoice: rpc.json('voidInvoice', async (input, req) =>
      voidInvoice(deps, orgKeyOf(req), idOf(req), input, actorOf(req)),
    ),
    correctInvoice: rpc.json(
      'correctInvoice',
      async (input, req) => correctInvoice(deps, orgKeyOf(req), idOf(req), input, actorOf(req)),
      { precheck: refuseUncorrectable },
    ),
  };
}
