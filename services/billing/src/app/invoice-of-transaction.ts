import { ofTenant } from '@paymesh/core';
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
    const ours = ofTenant(doc, key);
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

/**
 * The organization and invoice of a transaction's event (see {@link invoiceOfTransaction}), with
 * the log fields of its handling: the invoice, the transaction, then `fields`. Null when the
 * transaction pays no invoice.
 */
export async function invoiceOfEvent<F extends Record<string, unknown>>(
  deps: InvoiceDeps,
  d: TransactionInvoiceRef & OrgKey,
  fields: F,
): Promise<{ key: OrgKey; found: InvoiceDoc; log: { invoiceId: string; transactionId: string } & F } | null> {
  const key: OrgKey = { organizationId: d.organizationId, mode: d.mode };
  const found = await invoiceOfTransaction(deps, key, d);
  if (!found) return null;
  return { key, found, log: { invoiceId: found.id, transactionId: d.transactionId, ...fields } };
}

/**
 * Whether an invoice takes no payment or reversal because it is not issued (a draft, or void): the
 * event, `what`, is then logged as ignored.
 */
export function ignoredUnlessIssued(
  deps: InvoiceDeps,
  found: InvoiceDoc,
  log: Record<string, unknown>,
  what: string,
): boolean {
  if (found.status !== 'void' && found.status !== 'draft' && found.snapshot) return false;
  deps.logger.warn({ ...log, invoiceStatus: found.status }, `${what} for an invoice that is not issued; ignored`);
  return true;
}
