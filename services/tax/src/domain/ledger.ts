import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import { breakdownByRate, splitTaxedLines, type TaxedAmounts } from '@paymesh/core';
import {
  Subjects,
  type CalculateTaxRequest,
  type CreditNoteIssued,
  type InvoiceIssued,
  type InvoiceVoided,
  type RecognitionMode,
  type TaxCalculation,
  type TaxRecord,
  type TaxRecordEntryType,
  type TaxRecordSourceKind,
  type TransactionRefunded,
  type TransactionStatusChanged,
} from '@paymesh/contracts';

/**
 * The tax-record ledger's rules: which entries a consumed event produces. Pure: the caller looks
 * up what the rules need (the sale entry a correction refers to, a tax the engine derived) and
 * writes the answer. Entries are never changed; a refund, void or credit note is a new entry
 * linked to the sale it corrects.
 */

/** A consumed event as the ledger keeps it (envelope id, time and decoded data). */
export type LedgerSource =
  | {
      eventId: string;
      occurredAt: string;
      subject: typeof Subjects.transactionStatusChanged;
      data: TransactionStatusChanged;
    }
  | { eventId: string; occurredAt: string; subject: typeof Subjects.transactionRefunded; data: TransactionRefunded }
  | { eventId: string; occurredAt: string; subject: typeof Subjects.invoiceIssued; data: InvoiceIssued }
  | { eventId: string; occurredAt: string; subject: typeof Subjects.invoiceVoided; data: InvoiceVoided }
  | { eventId: string; occurredAt: string; subject: typeof Subjects.creditNoteIssued; data: CreditNoteIssued };

/** `sale`: may recognize the anchor's sale; `correction`: corrects the anchor's sale; `other`: no entry. */
export type SourceRole = 'sale' | 'correction' | 'other';

/** What a correction knows about the sale entry it corrects. */
export type CorrectedSale =
  | { state: 'recorded'; entry: TaxRecord }
  /** The sale's event was consumed and recorded nothing (it carried no tax): nothing to correct. */
  | { state: 'not_recorded' }
  /** The sale's event was not consumed yet, or waits itself. */
  | { state: 'unknown' };

export interface DeriveContext {
  /** The transaction's tax as the engine derived it from the event's `taxInput` (kept with the source event). */
  derivedTax: TaxCalculation | null;
  /** Read only for corrections. */
  corrected: CorrectedSale;
  /**
   * Read only for a transaction's move to refunded (3) and its provider refunds: the other reversal
   * entries already recorded for the transaction (a refund's own entry left out). A move to 3
   * reverses only what they left; a refund records nothing once the sale is reversed in full.
   */
  refundEntries?: readonly TaxRecord[];
  createdAt: string;
}

export type Derivation =
  | { outcome: 'entries'; entries: TaxRecord[] }
  | { outcome: 'none'; reason: string }
  /** The event has no tax but the engine request behind it: derive the tax, then derive again. */
  | { outcome: 'needs_tax'; request: CalculateTaxRequest }
  /** A correction whose sale entry is not known yet: derive again once it is. */
  | { outcome: 'awaiting_sale'; reason: string };

const COMPLETED = 1;
const REFUNDED = 3;
const DISPUTED = 4;

/** Deterministic 24-hex entry id: one entry per (source event, entry type), whoever writes it. */
export function taxRecordId(sourceEventId: string, entryType: TaxRecordEntryType): string {
  return createHash('sha256').update(`tax-record\n${sourceEventId}\n${entryType}`).digest('hex').slice(0, 24);
}

/**
 * Deterministic 24-hex id of the reversal entry of one provider refund: one entry per refund of a
 * transaction, whichever event (or redelivery) announces it.
 */
export function refundRecordId(transactionId: string, refundId: string): string {
  return createHash('sha256').update(`tax-record-refund\n${transactionId}\n${refundId}`).digest('hex').slice(0, 24);
}

/** Deterministic 24-hex id of a stored source event. */
export function sourceEventDocId(eventId: string): string {
  return createHash('sha256').update(`tax-source-event\n${eventId}`).digest('hex').slice(0, 24);
}

/** The document whose sale and corrections share entries: `transaction:<id>` or `invoice:<id>`. */
export function anchorOf(source: LedgerSource): string {
  switch (source.subject) {
    case Subjects.transactionStatusChanged:
    case Subjects.transactionRefunded:
      return `transaction:${source.data.transactionId}`;
    case Subjects.invoiceIssued:
    case Subjects.invoiceVoided:
    case Subjects.creditNoteIssued:
      return `invoice:${source.data.invoiceId}`;
  }
}

export function roleOf(source: LedgerSource): SourceRole {
  switch (source.subject) {
    case Subjects.transactionStatusChanged: {
      const { status, previousStatus } = source.data;
      // A dispute decided for the merchant (4 -> 1) leaves the original sale standing.
      if (status === COMPLETED) return previousStatus === DISPUTED ? 'other' : 'sale';
      return status === REFUNDED ? 'correction' : 'other';
    }
    case Subjects.invoiceIssued:
      return 'sale';
    case Subjects.transactionRefunded:
    case Subjects.invoiceVoided:
    case Subjects.creditNoteIssued:
      return 'correction';
  }
}

const neg = (n: number): number => (n === 0 ? 0 : -n);
const dateOf = (iso: string): string => new Date(iso).toISOString().slice(0, 10);

type EntryHead = Pick<
  TaxRecord,
  | 'organizationId'
  | 'mode'
  | 'siteId'
  | 'sourceKind'
  | 'sourceId'
  | 'sourceEventId'
  | 'entryType'
  | 'recognitionMode'
  | 'taxPointDate'
  | 'taxPointAt'
  | 'correctsRecordId'
  | 'linkedTransactionId'
  | 'linkedInvoiceId'
  | 'invoicePayment'
  | 'createdAt'
>;

function eurOf(currency: string, rateDate: string, net: number, tax: number): TaxRecord['eur'] {
  // NOTE: other currencies stay unconverted until the ledger has exchange rates.
  return currency === 'EUR' ? { rate: 1, rateDate, net, tax } : null;
}

/** An entry with the calculation's amounts, negated for credits (`sign` -1). */
function fromCalculation(head: EntryHead, calc: TaxCalculation, sign: 1 | -1): TaxRecord {
  const s = (n: number) => (sign === 1 ? n : neg(n));
  const totals = { net: s(calc.totalNet), tax: s(calc.totalTax), gross: s(calc.totalGross) };
  return {
    id: taxRecordId(head.sourceEventId, head.entryType),
    ...head,
    currency: calc.currency,
    totals,
    lines: calc.lines.map((l) => ({
      taxCountry: l.taxCountry,
      taxRateCode: l.taxRateCode,
      taxRate: l.taxRate,
      rateType: l.rateType,
      rateVersion: l.rateVersion,
      decision: l.decision,
      reason: l.reason,
      itemType: l.itemType,
      net: s(l.net),
      tax: s(l.tax),
    })),
    breakdown: calc.taxBreakdown.map((b) => ({
      taxRate: b.taxRate,
      taxRateCode: b.taxRateCode,
      taxableBase: s(b.taxableBase),
      taxAmount: s(b.taxAmount),
    })),
    buyer: { country: calc.buyer.country, type: calc.buyer.type, vatIdCheck: calc.buyer.vatIdCheck },
    seller: { ...calc.seller },
    eur: eurOf(calc.currency, head.taxPointDate, totals.net, totals.tax),
  };
}

/** The exact opposite of `sale`: every amount negated, converted at the sale's rate so the two cancel. */
function reversalOf(head: EntryHead, sale: TaxRecord): TaxRecord {
  return {
    id: taxRecordId(head.sourceEventId, head.entryType),
    ...head,
    currency: sale.currency,
    totals: { net: neg(sale.totals.net), tax: neg(sale.totals.tax), gross: neg(sale.totals.gross) },
    lines: sale.lines.map((l) => ({ ...l, net: neg(l.net), tax: neg(l.tax) })),
    breakdown: sale.breakdown.map((b) => ({ ...b, taxableBase: neg(b.taxableBase), taxAmount: neg(b.taxAmount) })),
    buyer: sale.buyer,
    seller: sale.seller,
    eur: sale.eur ? { ...sale.eur, net: neg(sale.eur.net), tax: neg(sale.eur.tax) } : null,
  };
}

function head(
  source: LedgerSource,
  fields: {
    sourceKind: TaxRecordSourceKind;
    sourceId: string;
    entryType: TaxRecordEntryType;
    recognitionMode: RecognitionMode;
    taxPointDate: string;
    taxPointAt: string | null;
  },
  links: { correctsRecordId: string | null; linkedTransactionId: string | null; linkedInvoiceId: string | null },
  createdAt: string,
): EntryHead {
  return {
    organizationId: source.data.organizationId,
    mode: source.data.mode,
    siteId: source.data.siteId,
    sourceEventId: source.eventId,
    ...fields,
    ...links,
    invoicePayment: fields.sourceKind === 'transaction' && links.linkedInvoiceId !== null,
    createdAt,
  };
}

/**
 * Links of a transaction's reversal: the invoice the transaction paid, as the event names it or,
 * when the invoice was issued for the transaction after it was paid (an automatic invoice), as the
 * sale entry was linked since. The reversal then counts where its sale counts.
 */
function reversalLinks(
  links: { linkedTransactionId: string; linkedInvoiceId: string | null },
  sale: TaxRecord,
): { correctsRecordId: string; linkedTransactionId: string; linkedInvoiceId: string | null } {
  const linkedInvoiceId = links.linkedInvoiceId ?? (sale.invoicePayment ? sale.linkedInvoiceId : null);
  return { ...links, linkedInvoiceId, correctsRecordId: sale.id };
}

/** Outcome of a correction from what is known about the sale it corrects. */
function correction(corrected: CorrectedSale, what: string, build: (sale: TaxRecord) => TaxRecord): Derivation {
  if (corrected.state === 'recorded') return { outcome: 'entries', entries: [build(corrected.entry)] };
  if (corrected.state === 'not_recorded')
    return { outcome: 'none', reason: `${what}: the sale it corrects recorded no tax` };
  return { outcome: 'awaiting_sale', reason: `${what}: the sale entry it corrects is not recorded yet` };
}

function fromTransaction(
  source: LedgerSource & { subject: typeof Subjects.transactionStatusChanged },
  ctx: DeriveContext,
): Derivation {
  const d = source.data;
  const role = roleOf(source);
  if (role === 'other')
    return {
      outcome: 'none',
      reason: `transaction status ${d.status} (from ${String(d.previousStatus)}) records no tax`,
    };
  const taxPointDate = dateOf(d.changedAt);
  const taxPointAt = new Date(d.changedAt).toISOString();
  // A payment of an invoice names it, so reports over both sources count the sale once.
  const links = { linkedTransactionId: d.transactionId, linkedInvoiceId: d.invoiceId ?? null };
  const fields = (entryType: TaxRecordEntryType) => ({
    sourceKind: 'transaction' as const,
    sourceId: d.transactionId,
    entryType,
    recognitionMode: 'cash' as const,
    taxPointDate,
    taxPointAt,
  });
  if (role === 'correction') {
    const refunds = ctx.refundEntries ?? [];
    if (ctx.corrected.state === 'recorded' && refunds.length > 0) {
      // The provider refunds already reversed their part: the move to 3 reverses only the rest.
      const sale = ctx.corrected.entry;
      const rest = remainderReversal(
        head(source, fields('reversal'), reversalLinks(links, sale), ctx.createdAt),
        sale,
        refunds,
      );
      if (rest.totals.gross === 0 && rest.totals.net === 0 && rest.totals.tax === 0) {
        return { outcome: 'none', reason: 'refunded: the recorded provider refunds already reversed the whole sale' };
      }
      return { outcome: 'entries', entries: [rest] };
    }
    return correction(ctx.corrected, 'refund', (sale) =>
      reversalOf(head(source, fields('reversal'), reversalLinks(links, sale), ctx.createdAt), sale),
    );
  }
  const tax = d.tax ?? ctx.derivedTax;
  if (tax)
    return {
      outcome: 'entries',
      entries: [
        fromCalculation(head(source, fields('sale'), { ...links, correctsRecordId: null }, ctx.createdAt), tax, 1),
      ],
    };
  if (d.taxInput) return { outcome: 'needs_tax', request: { ...d.taxInput, date: d.taxInput.date ?? taxPointDate } };
  return {
    outcome: 'none',
    reason:
      'completed transaction carries no tax and no engine request (no billing address, or created before tax was computed)',
  };
}

/**
 * The part of a sale's lines that a cumulative refunded total `cumulative` (minor units) covers:
 * the gross per line by largest remainder (the lines add up to `cumulative` exactly), the tax per
 * line rounded half up from the line's tax in proportion, net = gross - tax. Reaching the sale's
 * gross allocates the sale's own amounts, so refunds that add up to the sale reverse it exactly.
 */
function allocateCumulative(sale: TaxRecord, cumulative: number): TaxedAmounts[] {
  const whole = sale.lines.map((l) => ({ gross: l.net + l.tax, tax: l.tax, net: l.net }));
  const total = whole.reduce((s, p) => s + p.gross, 0);
  const saleGross = sale.totals.gross;
  if (cumulative >= saleGross || total <= 0) return whole;
  if (cumulative <= 0) return whole.map(() => ({ gross: 0, tax: 0, net: 0 }));
  // The share of the lines' gross the refunded part of the sale's gross stands for.
  const amount = Number((BigInt(total) * BigInt(cumulative)) / BigInt(saleGross));
  return splitTaxedLines(whole, amount, total);
}

/** An entry negating `parts` of the sale's lines (converted at the sale's rate). */
function partialReversal(
  id: string,
  head: EntryHead,
  sale: TaxRecord,
  parts: readonly TaxedAmounts[],
  breakdown?: TaxRecord['breakdown'],
): TaxRecord {
  const lines = sale.lines.map((l, i) => ({ ...l, net: neg(parts[i]?.net ?? 0), tax: neg(parts[i]?.tax ?? 0) }));
  const gross = parts.reduce((s, p) => s + p.gross, 0);
  const tax = parts.reduce((s, p) => s + p.tax, 0);
  const totals = { net: neg(gross - tax), tax: neg(tax), gross: neg(gross) };
  return {
    id,
    ...head,
    currency: sale.currency,
    totals,
    lines,
    breakdown: breakdown ?? breakdownByRate(lines),
    buyer: sale.buyer,
    seller: sale.seller,
    eur: sale.eur ? { ...sale.eur, net: totals.net, tax: totals.tax } : null,
  };
}

/** The reversal of one provider refund: the refunded share of the sale, allocated cumulatively. */
function refundReversal(head: EntryHead, sale: TaxRecord, d: TransactionRefunded): TaxRecord {
  const after = allocateCumulative(sale, d.refundedTotal);
  const before = allocateCumulative(sale, d.refundedTotal - d.amount);
  const parts = after.map((a, i) => {
    const b = before[i] ?? { gross: 0, tax: 0, net: 0 };
    return { gross: a.gross - b.gross, tax: a.tax - b.tax, net: a.net - b.net };
  });
  return partialReversal(refundRecordId(d.transactionId, d.refundId), head, sale, parts);
}

/** What the refund entries left of the sale, negated: sale + refunds (refund amounts are negative). */
function remainderReversal(head: EntryHead, sale: TaxRecord, refunds: readonly TaxRecord[]): TaxRecord {
  const parts = sale.lines.map((l, i) => {
    const net = l.net + refunds.reduce((s, r) => s + (r.lines[i]?.net ?? 0), 0);
    const tax = l.tax + refunds.reduce((s, r) => s + (r.lines[i]?.tax ?? 0), 0);
    return { gross: net + tax, tax, net };
  });
  const entry = partialReversal(taxRecordId(head.sourceEventId, head.entryType), head, sale, parts);
  // Totals and breakdown from the sale's own (per-document rounding), less what the refunds took.
  const gross = sale.totals.gross + refunds.reduce((s, r) => s + r.totals.gross, 0);
  const tax = sale.totals.tax + refunds.reduce((s, r) => s + r.totals.tax, 0);
  const net = sale.totals.net + refunds.reduce((s, r) => s + r.totals.net, 0);
  const breakdown = sale.breakdown.map((b) => {
    const key = `${b.taxRateCode}|${b.taxRate}`;
    const taken = refunds.flatMap((r) => r.breakdown.filter((x) => `${x.taxRateCode}|${x.taxRate}` === key));
    return {
      ...b,
      taxableBase: neg(b.taxableBase + taken.reduce((s, x) => s + x.taxableBase, 0)),
      taxAmount: neg(b.taxAmount + taken.reduce((s, x) => s + x.taxAmount, 0)),
    };
  });
  const totals = { net: neg(net), tax: neg(tax), gross: neg(gross) };
  return { ...entry, totals, breakdown, eur: sale.eur ? { ...sale.eur, net: totals.net, tax: totals.tax } : null };
}

function fromRefund(
  source: LedgerSource & { subject: typeof Subjects.transactionRefunded },
  ctx: DeriveContext,
): Derivation {
  const d = source.data;
  const at = new Date(d.refundedAt);
  const fields = {
    sourceKind: 'transaction' as const,
    sourceId: d.transactionId,
    entryType: 'reversal' as const,
    recognitionMode: 'cash' as const,
    taxPointDate: at.toISOString().slice(0, 10),
    taxPointAt: at.toISOString(),
  };
  const links = { linkedTransactionId: d.transactionId, linkedInvoiceId: d.invoiceId ?? null };
  if (ctx.corrected.state === 'recorded') {
    const sale = ctx.corrected.entry;
    if (d.refundedTotal - d.amount >= sale.totals.gross)
      return { outcome: 'none', reason: `refund ${d.refundId}: earlier refunds already cover the sale` };
    // A move to refunded (3) consumed before this refund already reversed the whole sale.
    const left = sale.totals.gross + (ctx.refundEntries ?? []).reduce((s, r) => s + r.totals.gross, 0);
    if (sale.totals.gross > 0 && left <= 0)
      return { outcome: 'none', reason: `refund ${d.refundId}: the sale is already reversed in full` };
  }
  return correction(ctx.corrected, `refund ${d.refundId}`, (sale) =>
    refundReversal(head(source, fields, reversalLinks(links, sale), ctx.createdAt), sale, d),
  );
}

/** The entries `source` produces, or why none (yet). */
export function deriveEntries(source: LedgerSource, ctx: DeriveContext): Derivation {
  switch (source.subject) {
    case Subjects.transactionStatusChanged:
      return fromTransaction(source, ctx);
    case Subjects.transactionRefunded:
      return fromRefund(source, ctx);
    case Subjects.invoiceIssued: {
      const d = source.data;
      if (!d.taxCalculation)
        return { outcome: 'none', reason: `invoice ${d.number} was issued without a tax calculation` };
      const h = head(
        source,
        {
          sourceKind: 'invoice',
          sourceId: d.invoiceId,
          entryType: 'sale',
          recognitionMode: 'accrual',
          taxPointDate: d.issueDate,
          taxPointAt: null,
        },
        { correctsRecordId: null, linkedTransactionId: d.transactionId, linkedInvoiceId: d.invoiceId },
        ctx.createdAt,
      );
      return { outcome: 'entries', entries: [fromCalculation(h, d.taxCalculation, 1)] };
    }
    case Subjects.invoiceVoided: {
      const d = source.data;
      // Dated at the void, so periods already filed stay as filed.
      const fields = {
        sourceKind: 'invoice' as const,
        sourceId: d.invoiceId,
        entryType: 'reversal' as const,
        recognitionMode: 'accrual' as const,
        taxPointDate: dateOf(source.occurredAt),
        taxPointAt: new Date(source.occurredAt).toISOString(),
      };
      return correction(ctx.corrected, `void of invoice ${d.number}`, (sale) =>
        reversalOf(
          head(
            source,
            fields,
            { correctsRecordId: sale.id, linkedTransactionId: d.transactionId, linkedInvoiceId: d.invoiceId },
            ctx.createdAt,
          ),
          sale,
        ),
      );
    }
    case Subjects.creditNoteIssued: {
      const d = source.data;
      const calc = d.taxCalculation;
      if (!calc) return { outcome: 'none', reason: `credit note ${d.number} was issued without a tax calculation` };
      const fields = {
        sourceKind: 'credit_note' as const,
        sourceId: d.creditNoteId,
        entryType: 'credit' as const,
        recognitionMode: 'accrual' as const,
        taxPointDate: d.issueDate,
        taxPointAt: null,
      };
      return correction(ctx.corrected, `credit note ${d.number}`, (sale) =>
        fromCalculation(
          head(
            source,
            fields,
            { correctsRecordId: sale.id, linkedTransactionId: d.transactionId, linkedInvoiceId: d.invoiceId },
            ctx.createdAt,
          ),
          calc,
          -1,
        ),
      );
    }
  }
}

/**
 * Canonical text of an entry's content (keys sorted; `createdAt` and store fields left out): two
 * derivations of one event are the same entry exactly when their content is equal.
 */
export function entryContent(entry: TaxRecord): string {
  const { createdAt: _createdAt, ...content } = entry;
  const { version: _version, ...rest } = content as typeof content & { version?: number };
  return stringify(rest) ?? '';
}
