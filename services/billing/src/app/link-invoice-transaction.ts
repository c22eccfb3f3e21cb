import { ConflictError, ErrorCode } from '@paymesh/core';
import type { InvoiceLinkTransaction, InvoiceRecord } from '@paymesh/contracts';
import type { InvoiceDoc } from '../domain/invoice';
import { INVOICES } from '../store/collections';
import type { OrgKey } from './deps';
import type { InvoiceDeps } from './invoice-deps';
import { requireTransaction } from './invoice-from-transaction';
import { invoiceView, loadInvoice } from './invoice-view';

/**
 * `PUT /invoices/:id/transaction`: links the payment of an invoice. The transaction must exist in
 * the organization and mode (404 naming transactionId) and be in the invoice's currency (409
 * INVOICE_CURRENCY_MISMATCH); a void invoice takes no payment. Linking the linked one again answers
 * the invoice unchanged. Recording amounts paid is not done here.
 */
export async function linkInvoiceTransaction(
  deps: InvoiceDeps,
  key: OrgKey,
  id: string,
  { transactionId }: InvoiceLinkTransaction,
): Promise<InvoiceRecord> {
  const invoice = await loadInvoice(deps, key, id);
  if (invoice.transactionId === transactionId) return invoiceView(deps.secrets, key, invoice);
  const tx = await requireTransaction(deps, key, transactionId);
  if (tx.currency.toUpperCase() !== invoice.currency) {
    throw new ConflictError(
      `transactionId: transaction ${transactionId} is in ${tx.currency.toUpperCase()}, the invoice in ${invoice.currency}`,
      {
        code: ErrorCode.INVOICE_CURRENCY_MISMATCH,
        field: 'transactionId',
      },
    );
  }
  const now = deps.clock.now().toISOString();
  const stored = await deps.store.collection<InvoiceDoc>(INVOICES).update(
    id,
    (cur) => {
      if (cur.status === 'void')
        throw new ConflictError(`invoice ${cur.number ?? cur.id} is void: it takes no payment`, { field: 'id' });
      return { ...cur, transactionId, updatedAt: now };
    },
    3,
  );
  deps.logger.info(
    { invoiceId: id, transactionId, organizationId: key.organizationId },
    'invoice payment transaction linked',
  );
  return invoiceView(deps.secrets, key, stored);
}
