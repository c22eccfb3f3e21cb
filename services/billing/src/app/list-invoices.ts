import {
  INVOICE_STATUSES,
  type CreditNoteListQuery,
  type InvoiceListQuery,
  type CreditNotePage,
  type CreditNoteRecord,
  type InvoicePage,
  type InvoiceRecord,
} from '@paymesh/contracts';
import { boundedTotal, countUpToOf, DOCUMENT_LIST_COUNT_BOUND, type Paging } from '@paymesh/core';
import type { Filter, StoredDoc } from '@paymesh/store';
import type { CreditNoteDoc, InvoiceDoc } from '../domain/invoice';
import { CREDIT_NOTES, INVOICES } from '../store/collections';
import type { BillingDeps, OrgKey } from './deps';
import { creditNoteView, invoiceView } from './invoice-view';

function dateRange(startDate?: string, endDate?: string) {
  if (!startDate && !endDate) return undefined;
  return { ...(startDate ? { $gte: startDate } : {}), ...(endDate ? { $lte: endDate } : {}) };
}

/**
 * A page of a document list, newest first (ties by id), with its total counted up to 1,001
 * matches, or one past the page (`countUpToOf`).
 */
async function newestFirst<D extends StoredDoc, R>(
  deps: BillingDeps,
  collection: string,
  filter: Filter,
  q: Paging,
  view: (d: D) => R,
): Promise<{ items: R[]; total: number; totalIsLowerBound?: true; page: number; limit: number }> {
  const page = await deps.store.collection<D>(collection).find(filter, {
    sort: { createdAt: -1 },
    page: q.page,
    limit: q.limit,
    total: true,
    countUpTo: countUpToOf(q, DOCUMENT_LIST_COUNT_BOUND),
  });
  return { items: page.items.map(view), ...boundedTotal(page), page: q.page, limit: q.limit };
}

/**
 * `GET /invoices`: newest first (ties by id); dates filter the issue date (drafts have none until
 * issued). The total counts up to 1,001 matches, or one past the page (`countUpToOf`).
 */
export async function listInvoices(deps: BillingDeps, key: OrgKey, q: InvoiceListQuery): Promise<InvoicePage> {
  const filter: Filter = { organizationId: key.organizationId, mode: key.mode };
  let statuses: string[] = q.status ? [q.status] : [...INVOICE_STATUSES];
  if (q.paid === true) statuses = statuses.filter((s) => s === 'paid');
  if (q.paid === false) statuses = statuses.filter((s) => s === 'draft' || s === 'issued' || s === 'partially_paid');
  if (statuses.length !== INVOICE_STATUSES.length) filter.status = { $in: statuses.length ? statuses : ['(none)'] };
  if (q.clientId) filter.clientId = q.clientId;
  if (q.siteId) filter.siteId = q.siteId;
  if (q.transactionId) filter.transactionId = q.transactionId;
  const range = dateRange(q.startDate, q.endDate);
  if (range) filter.issueDate = range;
  if (q.minAmount !== undefined || q.maxAmount !== undefined)
    filter['totals.gross'] = {
      ...(q.minAmount !== undefined ? { $gte: q.minAmount } : {}),
      ...(q.maxAmount !== undefined ? { $lte: q.maxAmount } : {}),
    };
  if (q.number) {
    // `INV-2027-*`: every number starting with INV-2027- (bytewise range); otherwise exact.
    if (q.number.endsWith('*')) {
      const prefix = q.number.slice(0, -1);
      filter.number = { $gte: prefix, $lt: `${prefix}\u{10FFFF}` };
    } else {
      filter.number = q.number;
    }
  }
  return newestFirst<InvoiceDoc, InvoiceRecord>(deps, INVOICES, filter, q, (d) => invoiceView(deps.secrets, key, d));
}

/** `GET /credit-notes`: newest first; dates filter the issue date. */
export async function listCreditNotes(deps: BillingDeps, key: OrgKey, q: CreditNoteListQuery): Promise<CreditNotePage> {
  const filter: Filter = { organizationId: key.organizationId, mode: key.mode };
  if (q.invoiceId) filter.invoiceId = q.invoiceId;
  const range = dateRange(q.startDate, q.endDate);
  if (range) filter.issueDate = range;
  return newestFirst<CreditNoteDoc, CreditNoteRecord>(deps, CREDIT_NOTES, filter, q, (d) =>
    creditNoteView(deps.secrets, key, d),
  );
}
