import { describe, expect, it } from 'vitest';
import {
  Subjects,
  taxRecord,
  type CalculateTaxRequest,
  type TaxCalculation,
  type TaxRecord,
  type TransactionRefunded,
  type TransactionStatusChanged,
} from '@paymesh/contracts';
import { calc, transactionEvent } from '../../test/fixtures';
import {
  anchorOf,
  deriveEntries,
  entryContent,
  refundRecordId,
  roleOf,
  taxRecordId,
  type DeriveContext,
  type Derivation,
  type LedgerSource,
} from './ledger';

const ORG = 'a'.repeat(24);
const SITE = 'b'.repeat(24);
const TX = 'c'.repeat(24);
const INVOICE = 'd'.repeat(24);
const CREDIT_NOTE = 'e'.repeat(24);
const CREATED_AT = '2026-03-10T12:00:00.000Z';

const taxInput: CalculateTaxRequest = {
  organizationId: ORG,
  mode: 'live',
  currency: 'EUR',
  vatIdValidation: 'format',
  buyer: { country: 'NL' },
  lines: [{ name: 'Pro plan', quantity: 1, unitPrice: 10000, itemType: 'digital_service' }],
};

/** The fixture's sale as a status event of TX; the envelope keeps the sale's time when `changedAt` moves. */
function txEvent(over: Partial<TransactionStatusChanged> = {}, eventId = 'evt-tx-1'): LedgerSource {
  const at = '2026-03-02T23:30:00.000Z';
  const event = transactionEvent({ organizationId: ORG, transactionId: TX, changedAt: at, taxInput, ...over }, eventId);
  return { ...event, occurredAt: at };
}

const billingBase = {
  organizationId: ORG,
  mode: 'live' as const,
  siteId: SITE,
  currency: 'EUR',
  transactionId: TX,
  occurredAt: '2026-04-05T08:00:00.000Z',
};

const invoiceData = (taxCalculation: TaxCalculation | null = calc()) => ({
  ...billingBase,
  invoiceId: INVOICE,
  number: 'INV-2026-0001',
  issueDate: '2026-03-31',
  taxCalculation,
});

const invoiceIssued = (taxCalculation: TaxCalculation | null = calc()): LedgerSource => ({
  eventId: 'evt-inv-issued',
  occurredAt: '2026-04-01T10:00:00.000Z',
  subject: Subjects.invoiceIssued,
  data: invoiceData(taxCalculation),
});

const ctx = (over: Partial<DeriveContext> = {}): DeriveContext => ({
  derivedTax: null,
  corrected: { state: 'unknown' },
  createdAt: CREATED_AT,
  ...over,
});

function entriesOf(d: Derivation): TaxRecord[] {
  if (d.outcome !== 'entries') throw new Error(`expected entries, got ${JSON.stringify(d)}`);
  return d.entries;
}

function onlyEntry(d: Derivation): TaxRecord {
  const entries = entriesOf(d);
  expect(entries).toHaveLength(1);
  return taxRecord.parse(entries[0]);
}

describe('transaction status events', () => {
  it('a completed transaction is a cash sale on its payment date, with the engine figures', () => {
    const e = onlyEntry(deriveEntries(txEvent(), ctx()));
    expect(e).toMatchObject({
      id: taxRecordId('evt-tx-1', 'sale'),
      organizationId: ORG,
      mode: 'live',
      siteId: SITE,
      sourceKind: 'transaction',
      sourceId: TX,
      sourceEventId: 'evt-tx-1',
      entryType: 'sale',
      recognitionMode: 'cash',
      taxPointDate: '2026-03-02',
      taxPointAt: '2026-03-02T23:30:00.000Z',
      currency: 'EUR',
      totals: { net: 8264, tax: 1736, gross: 10000 },
      breakdown: [{ taxRate: 21, taxRateCode: 'VAT_NL_STANDARD', taxableBase: 8264, taxAmount: 1736 }],
      buyer: { country: 'NL', type: 'consumer', vatIdCheck: { status: 'not_given' } },
      seller: { homeCountry: 'DE', ossEnabled: true, ossThresholdExceeded: false },
      eur: { rate: 1, rateDate: '2026-03-02', net: 8264, tax: 1736 },
      correctsRecordId: null,
      linkedTransactionId: TX,
      linkedInvoiceId: null,
      createdAt: CREATED_AT,
    });
    expect(e.lines).toEqual([
      {
        taxCountry: 'NL',
        taxRateCode: 'VAT_NL_STANDARD',
        taxRate: 21,
        rateType: 'standard',
        rateVersion: 'VAT_NL_STANDARD@2021-01-01',
        decision: 'oss_destination',
        reason: 'digital service to a consumer in NL: destination rate (OSS)',
        itemType: 'digital_service',
        net: 8264,
        tax: 1736,
      },
    ]);
  });

  it('derives the same entry (same id, same content) from the same event, and another id from another event', () => {
    const a = onlyEntry(deriveEntries(txEvent(), ctx()));
    const b = onlyEntry(deriveEntries(txEvent(), ctx({ createdAt: '2027-01-01T00:00:00.000Z' })));
    expect(b.id).toBe(a.id);
    expect(entryContent(b)).toBe(entryContent(a));
    expect(a.id).toMatch(/^[0-9a-f]{24}$/);
    expect(onlyEntry(deriveEntries(txEvent({}, 'evt-tx-2'), ctx())).id).not.toBe(a.id);
    expect(taxRecordId('evt-tx-1', 'reversal')).not.toBe(a.id);
  });

  it('asks for the engine when the event has only the engine request, dated at the payment', () => {
    const d = deriveEntries(txEvent({ tax: null }), ctx());
    expect(d).toEqual({ outcome: 'needs_tax', request: { ...taxInput, date: '2026-03-02' } });
    const dated = deriveEntries(txEvent({ tax: null, taxInput: { ...taxInput, date: '2026-02-27' } }), ctx());
    expect(dated).toMatchObject({ outcome: 'needs_tax', request: { date: '2026-02-27' } });
    const e = onlyEntry(
      deriveEntries(txEvent({ tax: null }), ctx({ derivedTax: calc({ totalTax: 1597, totalNet: 8403 }) })),
    );
    expect(e.totals).toEqual({ net: 8403, tax: 1597, gross: 10000 });
  });

  it('records nothing, saying why, for a completed transaction without tax or engine request', () => {
    const d = deriveEntries(txEvent({ tax: null, taxInput: null }), ctx());
    expect(d.outcome).toBe('none');
    expect(d.outcome === 'none' && d.reason).toMatch(/no tax/);
    // Events published before the fields existed.
    expect(deriveEntries(txEvent({ tax: undefined, taxInput: undefined }), ctx()).outcome).toBe('none');
  });

  it.each([
    [0, -1],
    [2, 0],
    [-2, 0],
    [4, 1],
    [1, 4],
  ])('status %i (from %i) records nothing', (status, previousStatus) => {
    expect(deriveEntries(txEvent({ status, previousStatus }), ctx()).outcome).toBe('none');
  });

  it('a refund reverses the sale entry exactly, on the refund date, linked to it', () => {
    const sale = onlyEntry(deriveEntries(txEvent(), ctx()));
    const refund = txEvent(
      { status: 3, previousStatus: 1, sequence: 3, changedAt: '2026-05-20T10:00:00.000Z', tax: calc({ totalTax: 1 }) },
      'evt-tx-refund',
    );
    const r = onlyEntry(deriveEntries(refund, ctx({ corrected: { state: 'recorded', entry: sale } })));
    expect(r).toMatchObject({
      id: taxRecordId('evt-tx-refund', 'reversal'),
      entryType: 'reversal',
      recognitionMode: 'cash',
      sourceKind: 'transaction',
      sourceId: TX,
      taxPointDate: '2026-05-20',
      taxPointAt: '2026-05-20T10:00:00.000Z',
      correctsRecordId: sale.id,
      totals: { net: -8264, tax: -1736, gross: -10000 },
      eur: { rate: 1, rateDate: '2026-03-02', net: -8264, tax: -1736 },
    });
    // Sale plus reversal is zero, line by line and in the breakdown.
    expect(r.lines.map((l, i) => l.net + sale.lines[i]!.net)).toEqual([0]);
    expect(r.lines.map((l, i) => l.tax + sale.lines[i]!.tax)).toEqual([0]);
    expect(r.breakdown[0]).toEqual({
      taxRate: 21,
      taxRateCode: 'VAT_NL_STANDARD',
      taxableBase: -8264,
      taxAmount: -1736,
    });
    expect(r.buyer).toEqual(sale.buyer);
  });

  it('a payment of an invoice names the invoice, so reports over both sources can leave it out', () => {
    const e = onlyEntry(deriveEntries(txEvent({ invoiceId: INVOICE }), ctx()));
    expect(e).toMatchObject({
      linkedTransactionId: TX,
      linkedInvoiceId: INVOICE,
      invoicePayment: true,
      taxPointAt: '2026-03-02T23:30:00.000Z',
    });
    expect(onlyEntry(deriveEntries(txEvent(), ctx())).invoicePayment).toBe(false);
  });

  it('a refund waits for a sale entry not recorded yet, and records nothing when the sale recorded nothing', () => {
    const refund = txEvent({ status: 3, previousStatus: 1, sequence: 3 }, 'evt-tx-refund');
    expect(deriveEntries(refund, ctx()).outcome).toBe('awaiting_sale');
    expect(deriveEntries(refund, ctx({ corrected: { state: 'not_recorded' } })).outcome).toBe('none');
  });

  it('keeps amounts of other currencies unconverted (eur null)', () => {
    const e = onlyEntry(deriveEntries(txEvent({ currency: 'USD', tax: calc({ currency: 'USD' }) }), ctx()));
    expect(e.currency).toBe('USD');
    expect(e.eur).toBeNull();
  });
});

describe('billing events', () => {
  it('an issued invoice is an accrual sale on its issue date, linked to its transaction', () => {
    const e = onlyEntry(deriveEntries(invoiceIssued(), ctx()));
    expect(e).toMatchObject({
      id: taxRecordId('evt-inv-issued', 'sale'),
      sourceKind: 'invoice',
      sourceId: INVOICE,
      entryType: 'sale',
      recognitionMode: 'accrual',
      taxPointDate: '2026-03-31',
      totals: { net: 8264, tax: 1736, gross: 10000 },
      correctsRecordId: null,
      linkedTransactionId: TX,
      linkedInvoiceId: INVOICE,
    });
    expect(deriveEntries(invoiceIssued(null), ctx()).outcome).toBe('none');
  });

  it('a void reverses the invoice entry as of the void date', () => {
    const sale = onlyEntry(deriveEntries(invoiceIssued(), ctx()));
    const voided: LedgerSource = {
      eventId: 'evt-inv-voided',
      subject: Subjects.invoiceVoided,
      occurredAt: '2026-04-05T08:00:00.000Z',
      data: invoiceData(),
    };
    const r = onlyEntry(deriveEntries(voided, ctx({ corrected: { state: 'recorded', entry: sale } })));
    expect(r).toMatchObject({
      entryType: 'reversal',
      sourceKind: 'invoice',
      sourceId: INVOICE,
      recognitionMode: 'accrual',
      taxPointDate: '2026-04-05',
      correctsRecordId: sale.id,
      totals: { net: -8264, tax: -1736, gross: -10000 },
    });
    expect(deriveEntries(voided, ctx()).outcome).toBe('awaiting_sale');
  });

  it('a credit note is a negative accrual entry of its own amounts, linked to the invoice entry', () => {
    const sale = onlyEntry(deriveEntries(invoiceIssued(), ctx()));
    const partial = calc({
      totalNet: 4132,
      totalTax: 868,
      totalGross: 5000,
      taxBreakdown: [{ taxRate: 21, taxRateCode: 'VAT_NL_STANDARD', taxableBase: 4132, taxAmount: 868 }],
    });
    const credit: LedgerSource = {
      eventId: 'evt-cn',
      occurredAt: '2026-04-10T08:00:00.000Z',
      subject: Subjects.creditNoteIssued,
      data: {
        ...billingBase,
        creditNoteId: CREDIT_NOTE,
        invoiceId: INVOICE,
        number: 'CN-2026-0001',
        issueDate: '2026-04-09',
        taxCalculation: partial,
      },
    };
    expect(anchorOf(credit)).toBe(`invoice:${INVOICE}`);
    expect(roleOf(credit)).toBe('correction');
    const c = onlyEntry(deriveEntries(credit, ctx({ corrected: { state: 'recorded', entry: sale } })));
    expect(c).toMatchObject({
      id: taxRecordId('evt-cn', 'credit'),
      entryType: 'credit',
      sourceKind: 'credit_note',
      sourceId: CREDIT_NOTE,
      recognitionMode: 'accrual',
      taxPointDate: '2026-04-09',
      correctsRecordId: sale.id,
      linkedInvoiceId: INVOICE,
      totals: { net: -4132, tax: -868, gross: -5000 },
      breakdown: [{ taxRate: 21, taxRateCode: 'VAT_NL_STANDARD', taxableBase: -4132, taxAmount: -868 }],
      eur: { rate: 1, rateDate: '2026-04-09', net: -4132, tax: -868 },
    });
  });
});

describe('anchors, roles and content', () => {
  it("groups a transaction's events and an invoice's events under one anchor", () => {
    expect(anchorOf(txEvent())).toBe(`transaction:${TX}`);
    expect(anchorOf(invoiceIssued())).toBe(`invoice:${INVOICE}`);
    expect(roleOf(txEvent())).toBe('sale');
    expect(roleOf(txEvent({ status: 3 }))).toBe('correction');
    expect(roleOf(txEvent({ status: 1, previousStatus: 4 }))).toBe('other');
    expect(roleOf(invoiceIssued())).toBe('sale');
  });

  it('content ignores key order, createdAt and the store version but not amounts', () => {
    const e = onlyEntry(deriveEntries(txEvent(), ctx()));
    const reordered = Object.fromEntries(Object.entries(e).reverse()) as TaxRecord;
    expect(entryContent({ ...reordered, createdAt: 'later', version: 3 } as TaxRecord)).toBe(entryContent(e));
    expect(entryContent({ ...e, totals: { ...e.totals, tax: 1735 } })).not.toBe(entryContent(e));
  });
});

describe('provider refunds (checkout.transaction.refunded)', () => {
  // Two rates, so the allocation has to split a refund over lines.
  const twoRates = (): TaxCalculation => {
    const base = calc();
    const line = base.lines[0]!;
    return {
      ...base,
      totalNet: 8264 + 2752,
      totalTax: 1736 + 265,
      totalGross: 13017,
      taxBreakdown: [
        { taxRate: 21, taxRateCode: 'VAT_NL_STANDARD', taxableBase: 8264, taxAmount: 1736 },
        { taxRate: 9, taxRateCode: 'VAT_NL_REDUCED', taxableBase: 2752, taxAmount: 265 },
      ],
      lines: [
        line,
        {
          ...line,
          index: 1,
          name: 'E-book',
          unitPrice: 3017,
          gross: 3017,
          net: 2752,
          tax: 265,
          taxRate: 9,
          taxRateCode: 'VAT_NL_REDUCED',
          rateType: 'reduced',
        },
      ],
    };
  };
  const saleOf = (tax: TaxCalculation): TaxRecord =>
    onlyEntry(deriveEntries(txEvent({ tax, amount: tax.totalGross }), ctx()));
  const refund = (
    refundId: string,
    amount: number,
    refundedTotal: number,
    eventId = `evt-refund-${refundId}`,
  ): LedgerSource => ({
    eventId,
    occurredAt: '2026-03-20T09:00:00.000Z',
    subject: Subjects.transactionRefunded,
    data: {
      organizationId: ORG,
      siteId: SITE,
      transactionId: TX,
      mode: 'live',
      refundId,
      amount,
      currency: 'EUR',
      refundedTotal,
      transactionAmount: 13017,
      paidAt: '2026-03-02T23:30:00.000Z',
      checkoutId: null,
      invoiceId: null,
      refundedAt: '2026-03-20T09:00:00.000Z',
    } satisfies TransactionRefunded,
  });
  const sumLines = (entries: TaxRecord[], field: 'net' | 'tax') =>
    [0, 1].map((i) => entries.reduce((s, e) => s + (e.lines[i]?.[field] ?? 0), 0));

  it('is a correction of the transaction: one reversal per refund, id from transaction and refund id', () => {
    const src = refund('re_1', 5000, 5000);
    expect(roleOf(src)).toBe('correction');
    expect(anchorOf(src)).toBe(`transaction:${TX}`);
    const sale = saleOf(twoRates());
    const e = onlyEntry(deriveEntries(src, ctx({ corrected: { state: 'recorded', entry: sale } })));
    expect(e.id).toBe(refundRecordId(TX, 're_1'));
    // Another event announcing the same refund (a redelivery with a new envelope) is the same entry.
    const again = onlyEntry(
      deriveEntries(refund('re_1', 5000, 5000, 'evt-other'), ctx({ corrected: { state: 'recorded', entry: sale } })),
    );
    expect(again.id).toBe(e.id);
    expect(e).toMatchObject({
      entryType: 'reversal',
      sourceKind: 'transaction',
      sourceId: TX,
      correctsRecordId: sale.id,
      taxPointDate: '2026-03-20',
      recognitionMode: 'cash',
    });
    expect(e.totals.gross).toBe(-5000);
    expect(e.totals.net + e.totals.tax).toBe(-5000);
    expect(e.lines.reduce((s, l) => s + l.net + l.tax, 0)).toBe(-5000);
    // Each line refunded in proportion to its gross (10000 : 3017 of 13017).
    expect(e.lines[0]!.net + e.lines[0]!.tax).toBe(-3841);
    expect(e.lines[0]!.tax).toBe(-667);
    // Converted at the sale's rate, so the refunds and the sale cancel in EUR too.
    expect(e.eur).toEqual({ rate: 1, rateDate: '2026-03-02', net: e.totals.net, tax: e.totals.tax });
  });

  it('refunds that add up to the amount reverse the sale exactly; the move to 3 then records nothing', () => {
    const sale = saleOf(twoRates());
    const c = ctx({ corrected: { state: 'recorded', entry: sale } });
    const a = onlyEntry(deriveEntries(refund('re_1', 3333, 3333), c));
    const b = onlyEntry(deriveEntries(refund('re_2', 4444, 7777), c));
    const last = onlyEntry(deriveEntries(refund('re_3', 13017 - 7777, 13017), c));
    const refunds = [a, b, last];
    expect(sumLines(refunds, 'net')).toEqual(sale.lines.map((l) => -l.net));
    expect(sumLines(refunds, 'tax')).toEqual(sale.lines.map((l) => -l.tax));
    expect(refunds.reduce((s, e) => s + e.totals.tax, 0)).toBe(-sale.totals.tax);
    expect(refunds.reduce((s, e) => s + e.totals.gross, 0)).toBe(-sale.totals.gross);
    const marked = deriveEntries(txEvent({ status: 3, previousStatus: 1 }, 'evt-tx-3'), {
      ...c,
      refundEntries: refunds,
    });
    expect(marked.outcome).toBe('none');
  });

  it('a move to 3 after a partial refund reverses only the rest', () => {
    const sale = saleOf(twoRates());
    const c = ctx({ corrected: { state: 'recorded', entry: sale } });
    const part = onlyEntry(deriveEntries(refund('re_1', 5000, 5000), c));
    const rest = onlyEntry(
      deriveEntries(txEvent({ status: 3, previousStatus: 1 }, 'evt-tx-3'), { ...c, refundEntries: [part] }),
    );
    expect(rest.id).toBe(taxRecordId('evt-tx-3', 'reversal'));
    expect(rest.totals.gross).toBe(-(13017 - 5000));
    expect(sumLines([part, rest], 'net')).toEqual(sale.lines.map((l) => -l.net));
    expect(sumLines([part, rest], 'tax')).toEqual(sale.lines.map((l) => -l.tax));
    expect(part.totals.tax + rest.totals.tax).toBe(-sale.totals.tax);
    for (const key of ['VAT_NL_STANDARD', 'VAT_NL_REDUCED']) {
      const of = (e: TaxRecord) => e.breakdown.find((x) => x.taxRateCode === key)!;
      const saleB = sale.breakdown.find((x) => x.taxRateCode === key)!;
      expect(of(part).taxAmount + of(rest).taxAmount).toBe(-saleB.taxAmount);
    }
  });

  it('a refund consumed after the move to 3 reversed the whole sale records nothing', () => {
    const sale = saleOf(twoRates());
    const c = ctx({ corrected: { state: 'recorded', entry: sale } });
    const whole = onlyEntry(deriveEntries(txEvent({ status: 3, previousStatus: 1 }, 'evt-tx-3'), c));
    expect(whole.totals.gross).toBe(-13017);
    expect(deriveEntries(refund('re_1', 13017, 13017), { ...c, refundEntries: [whole] }).outcome).toBe('none');
  });

  it('waits for the sale, and records nothing when the sale recorded none', () => {
    expect(deriveEntries(refund('re_1', 100, 100), ctx()).outcome).toBe('awaiting_sale');
    expect(deriveEntries(refund('re_1', 100, 100), ctx({ corrected: { state: 'not_recorded' } })).outcome).toBe('none');
  });
});
