import type { billing } from '@paymesh/proto';
import type { InvoiceDeps } from '../app/invoice-deps';
import { createInvoice, deleteInvoice, previewInvoiceTax, updateInvoice } from '../app/draft-invoice';
import { issueInvoice } from '../app/issue-invoice';
import { voidInvoice } from '../app/void-invoice';
import { correctInvoice, updateInvoiceNotes } from '../app/correct-invoice';
import { listInvoices } from '../app/list-invoices';
import { createInvoiceFromTransaction } from '../app/invoice-from-transaction';
import { linkInvoiceTransaction } from '../app/link-invoice-transaction';
import { invoiceView, loadInvoice } from '../app/invoice-view';
import { bodyOf, idOf, jsonUnary, orgKeyOf } from './json';
import { z } from 'zod';

const raw = (req: billing.BillingJsonRequest) => req.bodyJson || '{}';
const actorOf = (req: billing.BillingJsonRequest) => req.actor || null;

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
  return {
    listInvoices: jsonUnary(deps.logger, 'billing/ListInvoices', async (req) =>
      listInvoices(deps, orgKeyOf(req), raw(req)),
    ),
    getInvoice: jsonUnary(deps.logger, 'billing/GetInvoice', async (req) => {
      const key = orgKeyOf(req);
      return invoiceView(deps.secrets, key, await loadInvoice(deps, key, idOf(req)));
    }),
    createInvoice: jsonUnary(deps.logger, 'billing/CreateInvoice', async (req) =>
      createInvoice(deps, orgKeyOf(req), raw(req), req.idempotencyKey ? { idempotencyKey: req.idempotencyKey } : {}),
    ),
    previewInvoiceTax: jsonUnary(deps.logger, 'billing/PreviewInvoiceTax', async (req) =>
      previewInvoiceTax(deps, orgKeyOf(req), raw(req)),
    ),
    createInvoiceFromTransaction: jsonUnary(deps.logger, 'billing/CreateInvoiceFromTransaction', async (req) =>
      createInvoiceFromTransaction(deps, orgKeyOf(req), idOf(req, 'transactionId'), raw(req)),
    ),
    updateInvoice: jsonUnary(deps.logger, 'billing/UpdateInvoice', async (req) =>
      updateInvoice(deps, orgKeyOf(req), idOf(req), raw(req)),
    ),
    updateInvoiceNotes: jsonUnary(deps.logger, 'billing/UpdateInvoiceNotes', async (req) =>
      updateInvoiceNotes(deps, orgKeyOf(req), idOf(req), raw(req)),
    ),
    linkInvoiceTransaction: jsonUnary(deps.logger, 'billing/LinkInvoiceTransaction', async (req) =>
      linkInvoiceTransaction(deps, orgKeyOf(req), idOf(req), raw(req)),
    ),
    deleteInvoice: jsonUnary(deps.logger, 'billing/DeleteInvoice', async (req) =>
      deleteInvoice(deps, orgKeyOf(req), idOf(req)),
    ),
    issueInvoice: jsonUnary(deps.logger, 'billing/IssueInvoice', async (req) => {
      bodyOf(req, z.object({}).strict());
      return issueInvoice(deps, orgKeyOf(req), idOf(req));
    }),
    voidInvoice: jsonUnary(deps.logger, 'billing/VoidInvoice', async (req) =>
      voidInvoice(deps, orgKeyOf(req), idOf(req), raw(req), actorOf(req)),
    ),
    correctInvoice: jsonUnary(deps.logger, 'billing/CorrectInvoice', async (req) =>
      correctInvoice(deps, orgKeyOf(req), idOf(req), raw(req), actorOf(req)),
    ),
  };
}
