import type { InvoiceDoc } from '../domain/invoice';
import { INVOICES } from '../store/collections';
import type { OrgKey } from './deps';
import type { InvoiceDeps } from './invoice-deps';

/** What a checkout event says about the invoice a transaction pays. */
export interface TransactionInvoiceRef {
  transactionId: string;
  checkoutId?: string | null | undefined;
  invoiceId?: string | null | undefined;
}

/**
 * The invoice a transaction pays: the one its checkout was created for (`invoiceId` of the event,
 * accepted only when that checkout is one of the invoice's payment links), else the invoice the
 * transaction is linked to as its payment. Null when none (most transactions).
 */
export async function invoiceOfTransaction(
  deps: InvoiceDeps,
  key: OrgKey,
  d: TransactionInvoiceRef,
): Promise<InvoiceDoc | null> {
  const invoices = deps.store.collection<InvoiceDoc>(INVOICES);
  if (d.invoiceId) {
    const doc = await invoices.get(d.invoiceId);
    const ours = doc && doc.organizationId === key.organizationId && doc.mode === key.mode;
    if (ours && (doc.paymentLinks ?? []).some((l) => l.checkoutId === d.checkoutId)) return doc;
    deps.logger.warn(
      { transactionId: d.transactionId, invoiceId: d.invoiceId, checkoutId: d.checkoutId },
      'transaction names an invoice whose payment links do not include its checkout; ignored',
    );
  }
  const linked = await invoices.find(
    { organizationId: key.organizationId, mode: key.mode, transactionId: d.transactionId },
    { limit: 1 },
  );
  return linked.items[0] ?? null;
}
