import { documentEmailRequest } from '@paymesh/contracts';
import { documentEmailResponse } from '../responses/document-email';
import { resource } from '../route-table';
import { actorOf, billingJson } from './billing-rpc';
import { idParams } from './common';

const invoices = resource({ tag: 'Invoices', scopePrefix: 'invoice' });
const creditNotes = resource({ tag: 'Credit notes', scopePrefix: 'credit_note' });

/**
 * POST <path>/:id/send-email of an issued document: billing's send<Document>Email with the body and
 * who acts, within the deadline of calls that render a document (the PDF is attached).
 */
function sendEmail(
  row: typeof invoices,
  path: '/invoices' | '/credit-notes',
  document: 'Invoice' | 'CreditNote',
  summary: string,
) {
  const operationId = `send${document}Email` as const;
  return row({
    method: 'POST',
    path: `${path}/:id/send-email`,
    operationId,
    action: 'execute',
    response: documentEmailResponse,
    errors: [409, 503],
    summary,
    params: idParams,
    body: documentEmailRequest,
    async handler({ deps, org, params, body, principal }) {
      return billingJson(deps, org, operationId, {
        id: params.id,
        body,
        actor: actorOf(principal),
        deadlineMs: deps.clients.documentDeadlineMs,
      });
    },
  });
}

/**
 * E-mail of issued invoices and credit notes through notifications-ipn's outbox (SMTP, retried);
 * billing records each send on the document and settles it when the outcome is announced.
 */
export const documentEmailRoutes = [
  sendEmail(
    invoices,
    '/invoices',
    'Invoice',
    'E-mail an issued invoice (its PDF attached) to `to` or the buyer; queued and retried, the send is recorded on the invoice (drafts: 409 INVOICE_NOT_ISSUED; no recipient: 400 EMAIL_RECIPIENT_MISSING)',
  ),
  sendEmail(
    creditNotes,
    '/credit-notes',
    'CreditNote',
    'E-mail a credit note (its PDF attached) to `to` or the buyer; queued and retried, the send is recorded on the credit note',
  ),
];
