import { describe, expect, it } from 'vitest';
import type { TaxDecision, TaxItemType } from '@paymesh/contracts';
import { ossDistanceSales, type LedgerEntryForOss } from './oss-threshold';
import { vatIdNotGiven } from '../../../../libs/contracts/test/tax-kit';

const EU = new Set(['DE', 'FR', 'NL', 'AT']);
const inEu = (cc: string, itemType: TaxItemType) => EU.has(cc) || (cc === 'XI' && itemType === 'goods');

function entry(over: {
  id?: string;
  sourceKind?: LedgerEntryForOss['sourceKind'];
  linkedTransactionId?: string | null;
  currency?: string;
  buyerCountry?: string;
  buyerType?: 'consumer' | 'business';
  lines?: { net: number; decision: TaxDecision; taxCountry: string | null; itemType?: TaxItemType }[];
}): LedgerEntryForOss {
  const currency = over.currency ?? 'EUR';
  const lines = (over.lines ?? [{ net: 10_000, decision: 'oss_destination', taxCountry: 'FR' }]).map((l) => ({
    taxCountry: l.taxCountry,
    taxRateCode: 'X',
    taxRate: 20,
    rateVersion: null,
    decision: l.decision,
    reason: '',
    itemType: l.itemType ?? 'digital_service',
    net: l.net,
    tax: 0,
  }));
  const net = lines.reduce((s, l) => s + l.net, 0);
  return {
    sourceKind: over.sourceKind ?? 'transaction',
    sourceId: over.id ?? 'tx-1',
    linkedTransactionId: over.linkedTransactionId ?? null,
    currency,
    lines,
    buyer: {
      country: over.buyerCountry ?? 'FR',
      type: over.buyerType ?? 'consumer',
      vatIdCheck: vatIdNotGiven(),
    },
    seller: { homeCountry: 'DE', ossEnabled: true, ossThresholdExceeded: false },
    eur: currency === 'EUR' ? { rate: 1, rateDate: '2026-01-01', net, tax: 0 } : null,
  };
}

describe('ossDistanceSales', () => {
  it('sums net amounts of cross-border EU consumer lines, sales minus reversals', () => {
    const r = ossDistanceSales(
      [
        entry({ id: 'a' }),
        entry({
          id: 'b',
          lines: [{ net: 5_000, decision: 'below_threshold_origin', taxCountry: 'DE' }],
          buyerCountry: 'NL',
        }),
        entry({ id: 'a', lines: [{ net: -10_000, decision: 'oss_destination', taxCountry: 'FR' }] }),
      ],
      inEu,
    );
    expect(r).toEqual({ totalEurCents: 5_000, unconvertedEntries: 0 });
  });

  it('leaves out domestic, business, export and non-EU lines', () => {
    const r = ossDistanceSales(
      [
        entry({ lines: [{ net: 1_000, decision: 'domestic', taxCountry: 'DE' }], buyerCountry: 'DE' }),
        entry({ buyerType: 'business', lines: [{ net: 2_000, decision: 'reverse_charge', taxCountry: 'FR' }] }),
        entry({ buyerCountry: 'US', lines: [{ net: 3_000, decision: 'export', taxCountry: null }] }),
        // A distance-sale decision towards a country outside the EU VAT area does not count (XI for services).
        entry({ buyerCountry: 'XI', lines: [{ net: 4_000, decision: 'below_threshold_origin', taxCountry: 'DE' }] }),
        entry({
          buyerCountry: 'XI',
          lines: [{ net: 700, decision: 'below_threshold_origin', taxCountry: 'DE', itemType: 'goods' }],
        }),
      ],
      inEu,
    );
    expect(r).toEqual({ totalEurCents: 700, unconvertedEntries: 0 });
  });

  it('counts entries in other currencies as unconverted instead of summing them', () => {
    const r = ossDistanceSales(
      [
        entry({ id: 'a' }),
        entry({ id: 'b', currency: 'USD' }),
        entry({ id: 'c', currency: 'USD', buyerType: 'business' }),
      ],
      inEu,
    );
    expect(r).toEqual({ totalEurCents: 10_000, unconvertedEntries: 1 });
  });

  it('counts a sale once when an invoice and the transaction paying it are both recorded', () => {
    const r = ossDistanceSales(
      [entry({ id: 'tx-9' }), entry({ id: 'inv-1', sourceKind: 'invoice', linkedTransactionId: 'tx-9' })],
      inEu,
    );
    expect(r.totalEurCents).toBe(10_000);
  });
});
