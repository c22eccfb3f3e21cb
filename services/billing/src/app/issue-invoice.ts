import { ConflictError, ErrorCode } from '@paymesh/core';
import { appendChainEntry, invoiceEntry } from './document-chain';
import { eventId } from '@paymesh/bus';
import { Subjects, type InvoiceRecord, TransactionStatus } from '@paymesh/contracts';
import { type InvoiceDoc, type StoredSnapshot, totalsOf } from '../domain/invoice';
import { zonedDay } from '../domain/numbering';
import { effectivePrefixes } from '../domain/site-invoicing';
import { INVOICES } from '../store/collections';
import type { OrgKey } from './deps';
import { drawDocumentNumber } from './document-number';
import { buyerOf, notDraft } from './draft-invoice';
import { sitePrefixes } from './init-site-invoicing';
import type { InvoiceDeps } from './invoice-deps';
import { recordPayment } from './invoice-transaction-events';
import { sealBuyer } from './invoice-sealing';
import { invoiceTax } from './invoice-tax';
import { invoiceView, loadInvoice } from './invoice-view';
import { getInvoicingSettings } from './invoicing-settings';
import { printOf } from './document-view';

/** `YYYY-MM-DD` plus days. */
export function addDays(day: string, days: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/**
 * `POST /invoices/:id/issue`. Freezes the legal snapshot (seller, buyer, lines, tax recomputed with
 * the issue date as tax point, settings, dates), then in ONE store transaction draws the number,
 * saves the issued invoice and emits `billing.invoice.issued`. Issuing an issued invoice answers
 * it as it is (idempotent); a draft edited meanwhile is refused (retry issues the new content).
 */
export async function issueInvoice(deps: InvoiceDeps, key: OrgKey, id: string): Promise<InvoiceRecord> {
  const draft = await loadInvoice(deps, key, id);
  if (draft.status !== 'draft') {
    if (draft.status === 'void') throw notDraft(draft, 'issued');
    return invoiceView(deps.secrets, key, draft);
  }
  const settings = (await getInvoicingSettings(deps, key)).settings;
  const timeZone = settings.timeZone ?? 'UTC';
  const now = deps.clock.now();
  const issueDate = draft.issueDate ?? zonedDay(now, timeZone);
  const dueDate =
    draft.dueDate ?? (draft.paymentTermsDays !== null ? addDays(issueDate, draft.paymentTermsDays) : null);
  const [buyer, sellerTax, prefixes] = await Promise.all([
    buyerOf(deps, key, draft.clientId),
    deps.tax.settings(key),
    sitePrefixes(deps, key, draft.siteId),
  ]);
  // A draft generated from a transaction keeps the transaction's stored tax (the tax of what was paid).
  const calc =
    draft.taxFromTransaction && draft.taxCalculation
      ? draft.taxCalculation
      : await invoiceTax(deps, key, {
          buyer,
          items: draft.items,
          currency: draft.currency,
          date: issueDate,
          seller: sellerTax,
        });
  const layout = { ...settings.invoiceNumberLayout, prefix: effectivePrefixes(prefixes, settings).invoicePrefix };
  const issuedAt = now.toISOString();
  const totals = totalsOf(calc);
  const frozen: Omit<StoredSnapshot, 'number'> = {
    issueDate,
    dueDate,
    servicePeriod: draft.servicePeriod,
    currency: draft.currency,
    seller: {
      companyName: settings.companyName,
      address: settings.companyAddress,
      email: settings.companyEmail,
      vatId: sellerTax.vatId,
      homeCountry: sellerTax.homeCountry,
      bankIBANMasked: settings.bankIBAN?.masked ?? null,
      bankIBANSealed: settings.bankIBAN?.sealed ?? null,
      phone: settings.companyPhone ?? null,
      peppolRoutingAddress: settings.eInvoice.sellerPeppolRoutingAddress,
    },
    buyer: sealBuyer(deps.secrets, key, buyer),
    lines: draft.items,
    taxCalculation: calc,
    totals,
    settings: { numberLayout: layout, timeZone, priceMode: calc.settings.priceMode, rounding: calc.settings.rounding },
    print: printOf(settings, buyer.language),
    issuedAt,
  };

  const issued = await deps.outbox.commit(async (tx) => {
    const coll = tx.collection<InvoiceDoc>(INVOICES);
    const cur = await coll.get(id);
    if (!cur) throw new ConflictError('invoice was deleted while being issued', { code: ErrorCode.INVOICE_NOT_DRAFT });
    if (cur.status !== 'draft') return cur;
    if (cur.version !== draft.version)
      throw new ConflictError('the draft changed while being issued; issue it again', {
        code: ErrorCode.INVOICE_NOT_DRAFT,
      });
    const number = await drawDocumentNumber(tx, key, 'invoice', layout, issueDate);
    const next = await coll.replace({
      ...cur,
      status: 'issued',
      number,
      issueDate,
      dueDate,
      taxCalculation: calc,
      totals,
      snapshot: { ...frozen, number },
      issuedAt,
      updatedAt: issuedAt,
    });
    // Tamper evidence: the issued snapshot joins the organization's invoice chain in this transaction.
    await appendChainEntry(tx, key, invoiceEntry(next, 'invoice', issuedAt));
    tx.emit(
      Subjects.invoiceIssued,
      {
        organizationId: key.organizationId,
        mode: key.mode,
        siteId: cur.siteId,
        currency: cur.currency,
        taxCalculation: calc,
        transactionId: cur.transactionId,
        occurredAt: issuedAt,
        invoiceId: id,
        number,
        issueDate,
      },
      { id: eventId(Subjects.invoiceIssued, id), occurredAt: issuedAt },
    );
    return next;
  });
  if (issued.issuedAt === issuedAt)
    deps.logger.info({ invoiceId: id, number: issued.number, organizationId: key.organizationId }, 'invoice issued');
  if (issued.transactionId && (await recordCompletedPayment(deps, key, issued.id, issued.transactionId))) {
    return invoiceView(deps.secrets, key, await loadInvoice(deps, key, id));
  }
  return invoiceView(deps.secrets, key, issued);
}

/**
 * An invoice issued for a transaction that has already completed (from-transaction, automatic
 * invoices, a draft linked to a paid transaction) is paid by it: the status event that records
 * payments came before the invoice was issued (or before it existed), so the payment is recorded
 * here. Once: the event's consumer and this find the payment recorded by transaction id. A
 * disputed transaction (4) was paid too; refunded ones (3) are left to the refund path.
 */
async function recordCompletedPayment(
  deps: InvoiceDeps,
  key: OrgKey,
  id: string,
  transactionId: string,
): Promise<boolean> {
  const tx = await deps.checkout.transaction(key, transactionId);
  if (!tx || (tx.status !== TransactionStatus.completed && tx.status !== TransactionStatus.disputed)) return false;
  await recordPayment(
    deps,
    id,
    { transactionId, amount: tx.amount, changedAt: deps.clock.now().toISOString() },
    { invoiceId: id, transactionId, source: 'issue' },
  );
  return true;
}
