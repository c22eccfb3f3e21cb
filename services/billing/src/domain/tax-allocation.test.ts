import { describe, expect, it } from 'vitest';
import type { TaxCalculation, TaxLineResult } from '@paymesh/contracts';
import { vatIdCheckOf } from '../../test/tax-fixture';
import { allocateInvoiceTax } from './tax-allocation';

function line(
  i: number,
  gross: number,
  tax: number,
  rate: number,
  code: string,
  decision: TaxLineResult['decision'] = 'domestic',
): TaxLineResult {
  return {
    index: i,
    name: `Line ${i}`,
    itemType: 'digital_service',
    category: null,
    quantity: 1,
    unitPrice: gross,
    net: gross - tax,
    tax,
    gross,
    taxRate: rate,
    taxRateCode: code,
    taxCountry: 'DE',
    rateType: null,
    decision,
    reason: 'test',
    rateId: null,
    rateVersion: null,
    ruleId: null,
  };
}

function calc(lines: TaxLineResult[]): TaxCalculation {
  const gross = lines.reduce((s, l) => s + l.gross, 0);
  const tax = lines.reduce((s, l) => s + l.tax, 0);
  return {
    currency: 'EUR',
    taxIncluded: true,
    totalNet: gross - tax,
    totalTax: tax,
    totalGross: gross,
    taxBreakdown: [],
    lines,
    buyer: {
      country: 'DE',
      postcode: null,
      type: 'consumer',
      vatIdValidation: 'format',
      vatIdTreatment: 'none',
      vatIdCheck: vatIdCheckOf(),
    },
    seller: { homeCountry: 'DE', ossEnabled: false, ossThresholdExceeded: false },
    settings: { priceMode: 'gross', rounding: { level: 'per_line', method: 'half_up' } },
    date: '2027-01-10',
    calculatedAt: '2027-01-10T00:00:00.000Z',
    engineVersion: 'test',
  };
}

describe('allocation of an invoice tax snapshot to a payment', () => {
  const snapshot = calc([line(0, 11900, 1900, 19, 'VAT_DE_STANDARD'), line(1, 1070, 70, 7, 'VAT_DE_REDUCED')]);

  it('the whole invoice allocates to the snapshot itself', () => {
    expect(allocateInvoiceTax(snapshot, 12970)).toBe(snapshot);
  });

  it('half of the invoice: half of each line, tax at each line rate, adding up to the amount', () => {
    const a = allocateInvoiceTax(snapshot, 6485);
    expect(a.totalGross).toBe(6485);
    expect(a.lines.map((l) => l.gross)).toEqual([5950, 535]);
    expect(a.lines.map((l) => l.tax)).toEqual([950, 35]);
    expect(a.totalTax).toBe(985);
    expect(a.totalNet).toBe(6485 - 985);
    expect(a.taxBreakdown).toEqual([
      { taxRate: 19, taxRateCode: 'VAT_DE_STANDARD', taxableBase: 5000, taxAmount: 950 },
      { taxRate: 7, taxRateCode: 'VAT_DE_REDUCED', taxableBase: 500, taxAmount: 35 },
    ]);
  });

  it('odd amounts: lines always add up to the amount exactly', () => {
    for (const amount of [1, 50, 333, 4999, 12969]) {
      const a = allocateInvoiceTax(snapshot, amount);
      expect(a.lines.reduce((s, l) => s + l.gross, 0)).toBe(amount);
      expect(a.lines.reduce((s, l) => s + l.net + l.tax, 0)).toBe(amount);
    }
  });

  it('a reverse-charge snapshot stays without VAT whatever the amount', () => {
    const rc = calc([line(0, 10000, 0, 0, 'REVERSE_CHARGE', 'reverse_charge')]);
    const a = allocateInvoiceTax(rc, 2500);
    expect(a.totalTax).toBe(0);
    expect(a.lines[0]).toMatchObject({
      taxRateCode: 'REVERSE_CHARGE',
      decision: 'reverse_charge',
      gross: 2500,
      net: 2500,
    });
  });

  it('refuses amounts outside 1..total', () => {
    expect(() => allocateInvoiceTax(snapshot, 0)).toThrow(RangeError);
    expect(() => allocateInvoiceTax(snapshot, 12971)).toThrow(RangeError);
  });
});
