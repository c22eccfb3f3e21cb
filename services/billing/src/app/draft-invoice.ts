import { ErrorCode, ConflictError, NotFoundError } from '@paymesh/core';
import {
  type InvoiceCreate,
  type InvoiceTaxPreviewRequest,
  type InvoiceUpdate,
  type TaxCalculation,
  type InvoiceRecord,
} from '@paymesh/contracts';
import { zonedDay } from '../domain/numbering';
import { totalsOf, type InvoiceDoc } from '../domain/invoice';
import { INVOICES } from '../store/collections';
import { loadInvoiceBuyer, type InvoiceBuyer } from './client-port';
import type { OrgKey } from './deps';
import type { InvoiceDeps } from './invoice-deps';
import { getInvoicingSettings } from './invoicing-settings';
import { invoiceTax } from './invoice-tax';
import { invoiceView, loadInvoice } from './invoice-view';

/** The buyer of an invoice; an unknown client (or another organization's) is a 404 naming `clientId`. */
export async function buyerOf(deps: InvoiceDeps, key: OrgKey, clientId: string): Promise<InvoiceBuyer> {
  try {
    return await loadInvoiceBuyer(deps, key, clientId);
  } catch (err) {
    if (err instanceof NotFoundError)
      throw new NotFoundError(`clientId: client ${clientId} not found`, { field: 'clientId' });
    throw err;
  }
}

async function requireSite(deps: InvoiceDeps, key: OrgKey, siteId: string): Promise<void> {
  if (!(await deps.checkout.siteExists(key, siteId)))
    throw new NotFoundError(`siteId: site ${siteId} not found`, { field: 'siteId' });
}

/** The tax the engine puts on a draft for its client (tax point: the wanted issue date, else today in the organization's zone). */
async function draftTax(
  deps: InvoiceDeps,
  key: OrgKey,
  input: Pick<InvoiceCreate, 'clientId' | 'items' | 'currency' | 'issueDate'>,
) {
  const buyer = await buyerOf(deps, key, input.clientId);
  const settings = (await getInvoicingSettings(deps, key)).settings;
  const date = input.issueDate ?? zonedDay(deps.clock.now(), settings.timeZone ?? 'UTC');
  return invoiceTax(deps, key, { buyer, items: input.items, currency: input.currency, date });
}

/** A draft's wanted issue date, due date or payment terms and service period; null where not given. */
export function draftTerms(input: Pick<InvoiceCreate, 'issueDate' | 'dueDate' | 'paymentTermsDays' | 'servicePeriod'>) {
  return {
    issueDate: input.issueDate ?? null,
    dueDate: input.dueDate ?? null,
    paymentTermsDays: input.paymentTermsDays ?? null,
    servicePeriod: input.servicePeriod ?? null,
  };
}

/**
 * Every field of the draft payload as the invoice stores it, null where not given. Typed by the
 * payload's keys: a field added to the draft schema does not compile until the invoice stores it.
 */
export function storedDraft(input: InvoiceCreate): Pick<InvoiceDoc, keyof InvoiceCreate> {
  return {
    siteId: input.siteId,
    clientId: input.clientId,
    currency: input.currency,
    items: input.items,
    ...draftTerms(input),
    notes: input.notes ?? null,
  };
}

/** The editable fields of a draft and its tax preview (tax point: the wanted issue date, else today). */
export async function draftFields(deps: InvoiceDeps, key: OrgKey, input: InvoiceCreate) {
  await requireSite(deps, key, input.siteId);
  const calc = await draftTax(deps, key, input);
  return {
    ...storedDraft(input),
    taxCalculation: calc,
    totals: totalsOf(calc),
    taxFromTransaction: false,
  };
}

/**
 * Tax the engine would put on a draft (nothing stored), exactly as creating it would: the Admin
 * `preview-tax` of a draft payload and the recurring service's upcoming charges. The site, when
 * given, must exist as on create.
 */
export async function previewInvoiceTax(
  deps: InvoiceDeps,
  key: OrgKey,
  input: InvoiceTaxPreviewRequest,
): Promise<{ taxCalculation: TaxCalculation; totals: ReturnType<typeof totalsOf> }> {
  if (input.siteId) await requireSite(deps, key, input.siteId);
  const calc = await draftTax(deps, key, input);
  return { taxCalculation: calc, totals: totalsOf(calc) };
}

/** What a draft is made of: its editable fields and tax, and whatever marks how it was made. */
type DraftContent = Pick<InvoiceDoc, keyof InvoiceCreate | 'taxCalculation' | 'totals'> &
  Partial<Omit<InvoiceDoc, 'id' | 'version'>>;

/**
 * A new draft of the organization: `content`, with nothing issued, paid, corrected or voided yet
 * (no transaction linked unless `content` links one). Every way of making a draft writes this.
 */
export function newDraft<C extends DraftContent>(key: OrgKey, now: string, content: C) {
  return {
    organizationId: key.organizationId,
    mode: key.mode,
    status: 'draft' as const,
    number: null,
    amountPaid: 0,
    payments: [],
    transactionId: null,
    sourceTransactionId: null,
    snapshot: null,
    corrections: [],
    creditNoteIds: [],
    createdAt: now,
    updatedAt: now,
    issuedAt: null,
    voidedAt: null,
    voidReason: null,
    ...content,
  };
}

export interface CreateInvoiceOptions {
  /**
   * Internal callers' idempotency key (RPC only, not the public route): a repeat answers the
   * invoice the first call created, whatever happened to it since, and creates nothing.
   */
  idempotencyKey?: string;
}

/** `POST /invoices`: a draft, taxed by the engine. Nothing is written when any input is refused. */
export async function createInvoice(
  deps: InvoiceDeps,
  key: OrgKey,
  input: InvoiceCreate,
  options: CreateInvoiceOptions = {},
): Promise<InvoiceRecord> {
  const coll = deps.store.collection<InvoiceDoc>(INVOICES);
  const idempotencyKey = options.idempotencyKey ?? null;
  const earlier = async () =>
    idempotencyKey ? coll.findOne({ organizationId: key.organizationId, mode: key.mode, idempotencyKey }) : null;
  const before = await earlier();
  if (before) return invoiceView(deps.secrets, key, before);
  const fields = await draftFields(deps, key, input);
  const now = deps.clock.now().toISOString();
  let doc: InvoiceDoc;
  try {
    doc = await coll.insert(newDraft(key, now, { ...fields, ...(idempotencyKey ? { idempotencyKey } : {}) }));
  } catch (err) {
    // A concurrent call with the same key won the unique index: answer its invoice.
    const raced = err instanceof ConflictError && err.code === ErrorCode.DUPLICATE_KEY ? await earlier() : null;
    if (raced) return invoiceView(deps.secrets, key, raced);
    throw err;
  }
  deps.logger.info(
    { invoiceId: doc.id, organizationId: key.organizationId, lines: doc.items.length },
    'invoice draft created',
  );
  return invoiceView(deps.secrets, key, doc);
}

export function notDraft(doc: InvoiceDoc, action: string): ConflictError {
  return new ConflictError(
    `invoice ${doc.number ?? doc.id} is ${doc.status}: only drafts can be ${action}; correct or void an issued invoice instead`,
    {
      code: ErrorCode.INVOICE_NOT_DRAFT,
    },
  );
}

/** `PUT /invoices/:id`: replaces a draft's editable fields and recomputes its tax. */
export async function updateInvoice(
  deps: InvoiceDeps,
  key: OrgKey,
  id: string,
  input: InvoiceUpdate,
): Promise<InvoiceRecord> {
  const current = await loadInvoice(deps, key, id);
  if (current.status !== 'draft') throw notDraft(current, 'edited');
  const fields = await draftFields(deps, key, input);
  const now = deps.clock.now().toISOString();
  // Compare-and-set against the draft that was checked: an issue in between wins and this is refused.
  const stored = await deps.store.collection<InvoiceDoc>(INVOICES).update(
    id,
    (cur) => {
      if (cur.status !== 'draft') throw notDraft(cur, 'edited');
      return { ...cur, ...fields, updatedAt: now };
    },
    3,
  );
  return invoiceView(deps.secrets, key, stored);
}

/** `DELETE /invoices/:id`: drafts only; an issued invoice is kept for good (void it). */
export async function deleteInvoice(
  deps: InvoiceDeps,
  key: OrgKey,
  id: string,
): Promise<{ id: string; deleted: true }> {
  const doc = await loadInvoice(deps, key, id);
  if (doc.status !== 'draft') throw notDraft(doc, 'deleted');
  await deps.store.transaction(async (tx) => {
    const coll = tx.collection<InvoiceDoc>(INVOICES);
    const cur = await coll.get(id);
    if (!cur) return;
    if (cur.status !== 'draft') throw notDraft(cur, 'deleted');
    await coll.delete(id);
  });
  deps.logger.info({ invoiceId: id, organizationId: key.organizationId }, 'invoice draft deleted');
  return { id, deleted: true };
}
