import { NotFoundError, ofTenant, type SecretBox } from '@paymesh/core';
import type { CreditNoteRecord, InvoiceRecord } from '@paymesh/contracts';
import { proformaNumberOf, type CreditNoteDoc, type InvoiceDoc, type StoredSnapshot } from '../domain/invoice';
import { CREDIT_NOTES, INVOICES } from '../store/collections';
import type { BillingDeps, OrgKey } from './deps';
import { openBuyer, sellerView } from './invoice-sealing';
import { settlementOf } from '../domain/invoice-payments';
import { paymentStateOf } from './invoice-payment-state';

/** The invoice of the organization and mode; another tenant's is indistinguishable from a missing one. */
export async function loadInvoice(deps: BillingDeps, key: OrgKey, id: string): Promise<InvoiceDoc> {
  const doc = await deps.store.collection<InvoiceDoc>(INVOICES).get(id);
  if (!ofTenant(doc, key)) throw new NotFoundError('invoice not found', { field: 'id' });
  return doc;
}

/** How a snapshot is printed stays internal (the PDF shows it); the API's snapshot is what was invoiced. */
function withoutPrint(s: StoredSnapshot): Omit<StoredSnapshot, 'print'> {
  const { print: _print, ...rest } = s;
  return rest;
}

export function invoiceView(secrets: SecretBox, key: OrgKey, d: InvoiceDoc): InvoiceRecord {
  const snap = d.snapshot ? withoutPrint(d.snapshot) : null;
  return {
    id: d.id,
    testMode: d.mode === 'test',
    status: d.status,
    number: d.number,
    proformaNumber: d.status === 'draft' ? proformaNumberOf(d.id) : null,
    siteId: d.siteId,
    clientId: d.clientId,
    currency: d.currency,
    items: d.items,
    issueDate: d.issueDate,
    dueDate: d.dueDate,
    paymentTermsDays: d.paymentTermsDays,
    servicePeriod: d.servicePeriod,
    notes: d.notes,
    taxCalculation: d.taxCalculation,
    totals: d.totals,
    amountPaid: d.amountPaid,
    amountDue: d.status === 'void' ? 0 : settlementOf(paymentStateOf(d)).amountDue,
    payments: d.payments,
    paymentReversals: d.paymentReversals ?? [],
    paymentLinks: d.paymentLinks ?? [],
    transactionId: d.transactionId,
    sourceTransactionId: d.sourceTransactionId,
    snapshot: snap ? { ...snap, seller: sellerView(snap.seller), buyer: openBuyer(secrets, key, snap.buyer) } : null,
    corrections: d.corrections,
    creditNoteIds: d.creditNoteIds,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    issuedAt: d.issuedAt,
    voidedAt: d.voidedAt,
    voidReason: d.voidReason,
    ...(d.emails ? { emails: d.emails } : {}),
  };
}

export async function loadCreditNote(deps: BillingDeps, key: OrgKey, id: string): Promise<CreditNoteDoc> {
  const doc = await deps.store.collection<CreditNoteDoc>(CREDIT_NOTES).get(id);
  if (!ofTenant(doc, key)) throw new NotFoundError('credit note not found', { field: 'id' });
  return doc;
}

export function creditNoteView(secrets: SecretBox, key: OrgKey, d: CreditNoteDoc): CreditNoteRecord {
  return {
    id: d.id,
    testMode: d.mode === 'test',
    number: d.number,
    invoiceId: d.invoiceId,
    invoiceNumber: d.invoiceNumber,
    kind: d.kind,
    reason: d.reason,
    siteId: d.siteId,
    clientId: d.clientId,
    currency: d.currency,
    issueDate: d.issueDate,
    seller: sellerView(d.seller),
    buyer: openBuyer(secrets, key, d.buyer),
    lines: d.lines,
    taxCalculation: d.taxCalculation,
    totals: d.totals,
    transactionId: d.transactionId,
    createdAt: d.createdAt,
    ...(d.emails ? { emails: d.emails } : {}),
  };
}
