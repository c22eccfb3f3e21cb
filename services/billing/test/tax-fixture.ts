import type { CalculateTaxRequest, TaxCalculation } from '@paymesh/contracts';
import { TEST_PG_URL } from '@paymesh/store';

export const PG_URL = TEST_PG_URL;

/** A 19 % VAT answer of the engine's shape (the tax service is not what these tests are about). */
export function fakeCalculation(req: CalculateTaxRequest): TaxCalculation {
  const lines = req.lines.map((l, index) => {
    const gross = l.quantity * l.unitPrice;
    const tax = Math.round((gross * 19) / 119);
    return {
      index,
      name: l.name,
      itemType: l.itemType,
      category: null,
      quantity: l.quantity,
      unitPrice: l.unitPrice,
      net: gross - tax,
      tax,
      gross,
      taxRate: 19,
      taxRateCode: 'VAT_DE_STANDARD',
      taxCountry: 'DE',
      rateType: 'standard' as const,
      decision: 'domestic' as const,
      reason: 'domestic sale',
      rateId: null,
      rateVersion: null,
      ruleId: null,
    };
  });
  const sum = (f: 'net' | 'tax' | 'gross') => lines.reduce((s, l) => s + l[f], 0);
  return {
    currency: req.currency,
    taxIncluded: true,
    totalNet: sum('net'),
    totalTax: sum('tax'),
    totalGross: sum('gross'),
    taxBreakdown: [{ taxRate: 19, taxRateCode: 'VAT_DE_STANDARD', taxableBase: sum('net'), taxAmount: sum('tax') }],
    lines,
    buyer: {
      country: req.buyer.country,
      postcode: null,
      type: 'consumer',
      vatIdValidation: req.vatIdValidation,
      vatIdCheck: {
        vatId: null,
        status: 'not_given',
        source: null,
        checkedAt: null,
        consultationNumber: null,
        companyName: null,
        address: null,
        error: null,
      },
      vatIdTreatment: 'no VAT ID given',
    },
    seller: { homeCountry: 'DE', ossEnabled: false, ossThresholdExceeded: false },
    settings: { priceMode: 'gross', rounding: { level: 'per_line', method: 'half_up' } },
    date: req.date ?? '2026-01-01',
    calculatedAt: new Date().toISOString(),
    engineVersion: 'test',
  };
}
