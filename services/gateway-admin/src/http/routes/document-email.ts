import { documentEmailRequest } from '@paymesh/contracts';
import { documentEmailResponse } from '../responses/document-email';
import { resource } from '../route-table';
import { actorOf, billingJson } from './billing-rpc';
import { idParams } from './common';

const invoices = resource({ tag: 'Invoices', scopePrefix: 'invoice' });
const creditNotes = resource({ tag: 'Credit notes', scopePrefix: 'credit_note' });

/**
 * E-mail of issued invoices and credit notes through notifications-ipn's outbox (SMTP, retried);
 * billing records each send on the document and settles it when the outcome is announced.
 */
export const documentEmailRoutes = [
  invoices({
    method: 'POST',
    path: '/invoices/:id/send-email',
    operationId: 'sendInvoiceEmail',
    action: 'execute',
    response: documentEmailResponse,
    errors: [409, 503],
    summary:
      'E-mail an issued invoice (its PDF attached) to `to` or the buyer; queued and retried, the send is recorded on the invoice (drafts: 409 INVOICE_NOT_ISSUED; no recipient: 400 EMAIL_RECIPIENT_MISSING)',
    params: idParams,
    body: documentEmailRequest,
    async handler({ deps, org, params, body, principal }) {
      return billingJson(deps, org, 'sendInvoiceEmail', {
        id: params.id,
        body,
        actor: actorOf(principal),
        deadlineMs: deps.clients.documentDeadlineMs,
      });
    },
  }),
  creditNotes({
    method: 'POST',
    path: '/credit-notes/:id/send-email',
    operationId: 'sendCreditNoteEmail',
    action: 'execute',
    response: documentEmailResponse,
    errors: [409, 503],
    summary:
      'E-mail a credit note (its PDF attached) to `to` or the buyer; queued and retried, the send is recorded on the credit note',
    params: idParams,
    body: documentEmailRequest,
    async handler({ deps, org, params, body, principal }) {
      return billingJson(deps, org, 'sendCreditNoteEmail', {
        id: params.id,
        body,
        actor: actorOf(principal),
        deadlineMs: deps.clients.documentDeadlineMs,
      });
    },
  }),
];
