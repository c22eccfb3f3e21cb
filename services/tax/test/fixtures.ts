import {
  Subjects,
  type InvoiceIssued,
  type TaxCalculation,
  type TransactionRefunded,
  type TransactionStatusChanged,
} from '@paymesh/contracts';
import type { LedgerSource } from '../src/domain/ledger';
import { vatIdNotGiven } from '../../../libs/contracts/test/tax-kit';

/** An engine answer: one NL consumer line of 100.00 EUR gross at 21 % (OSS destination). */
export function calc(over: Partial<TaxCalculation> = {}): TaxCalculation {
  return {
    currency: 'EUR',
    taxIncluded: true,
    totalNet: 8264,
    totalTax: 1736,
    totalGross: 10000,
    taxBreakdown: [{ taxRate: 21, taxRateCode: 'VAT_NL_STANDARD', taxableBase: 8264, taxAmount: 1736 }],
    lines: [
      {
        index: 0,
        name: 'Pro plan',
        itemType: 'digital_service',
        category: null,
        quantity: 1,
        unitPrice: 10000,
        net: 8264,
        tax: 1736,
        gross: 10000,
        taxRate: 21,
        taxRateCode: 'VAT_NL_STANDARD',
        taxCountry: 'NL',
        rateType: 'standard',
        decision: 'oss_destination',
        reason: 'digital service to a consumer in NL: destination rate (OSS)',
        rateId: '0'.repeat(24),
        rateVersion: 'VAT_NL_STANDARD@2021-01-01',
        ruleId: null,
      },
    ],
    buyer: {
      country: 'NL',
      postcode: null,
      type: 'consumer',
      vatIdValidation: 'format',
      vatIdCheck: vatIdNotGiven(),
      vatIdTreatment: 'No VAT ID given: consumer.',
    },
    seller: { homeCountry: 'DE', ossEnabled: true, ossThresholdExceeded: false },
    settings: { priceMode: 'gross', rounding: { level: 'per_line', method: 'half_up' } },
    date: '2026-03-01',
    calculatedAt: '2026-03-01T09:00:00.000Z',
    engineVersion: 'test',
    ...over,
  };
}

/** A `checkout.transaction.status_changed` event as the ledger consumes it. */
export function transactionEvent(
  over: Partial<TransactionStatusChanged> & Pick<TransactionStatusChanged, 'organizationId' | 'transactionId'>,
  eventId = `evt-${over.transactionId}-${over.sequence ?? 2}`,
): LedgerSource {
  const changedAt = over.changedAt ?? '2026-03-02T10:00:00.000Z';
  return {
    eventId,
    occurredAt: changedAt,
    subject: Subjects.transactionStatusChanged,
    data: {
      siteId: 'b'.repeat(24),
      mode: 'live',
      status: 1,
      previousStatus: 0,
      subState: null,
      externalReference: 'order-1',
      ipnUrl: null,
      sequence: 2,
      changedAt,
      amount: 10000,
      currency: 'EUR',
      tax: calc(),
      taxInput: null,
      ...over,
    },
  };
}

/** A provider refund of a transaction (`checkout.transaction.refunded`). */
export function refundEvent(
  over: Partial<TransactionRefunded> &
    Pick<TransactionRefunded, 'organizationId' | 'transactionId' | 'refundId' | 'amount' | 'refundedTotal'>,
  eventId = `evt-${over.transactionId}-refund-${over.refundId}`,
): LedgerSource {
  const refundedAt = over.refundedAt ?? '2026-03-05T10:00:00.000Z';
  return {
    eventId,
    occurredAt: refundedAt,
    subject: Subjects.transactionRefunded,
    data: {
      siteId: 'b'.repeat(24),
      mode: 'live',
      currency: 'EUR',
      transactionAmount: 10000,
      paidAt: '2026-03-02T10:00:00.000Z',
      checkoutId: null,
      invoiceId: null,
      refundedAt,
      ...over,
    },
  };
}

/** An `billing.invoice.issued` event as the ledger consumes it (the fixture's NL sale by default). */
export function invoiceEvent(
  over: Partial<InvoiceIssued> & Pick<InvoiceIssued, 'organizationId' | 'invoiceId'>,
  eventId = `evt-invoice-${over.invoiceId}`,
): LedgerSource {
  const occurredAt = over.occurredAt ?? '2026-03-02T10:00:05.000Z';
  return {
    eventId,
    occurredAt,
    subject: Subjects.invoiceIssued,
    data: {
      mode: 'live',
      siteId: 'b'.repeat(24),
      currency: 'EUR',
      taxCalculation: calc(),
      transactionId: null,
      number: 'INV-2026-00001',
      issueDate: '2026-03-02',
      occurredAt,
      ...over,
    },
  };
}
