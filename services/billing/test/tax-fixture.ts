import type { CalculateTaxRequest, TaxCalculation } from '@paymesh/contracts';
import { TEST_PG_URL } from '@paymesh/store';
import { taxedLine, vatIdNotGiven } from '../../../libs/contracts/test/tax-kit';

export const PG_URL = TEST_PG_URL;

type TaxLine = TaxCalculation['lines'][number];

/** The sum of one amount over the lines. */
export const sumOf = (lines: readonly TaxLine[], f: 'net' | 'tax' | 'gross'): number =>
  lines.reduce((s, l) => s + l[f], 0);

/** The VAT ID check of a buyer who gave no VAT ID, or, with `over`, of the one given (the shared tax kit's). */
export const vatIdCheckOf = vatIdNotGiven;

/** A stand-in engine's answer of `req` with `lines` (gross prices, per-line rounding, calculated now). */
export function calculationOf(
  req: CalculateTaxRequest,
  lines: TaxLine[],
  rest: Pick<TaxCalculation, 'taxBreakdown' | 'buyer' | 'seller' | 'date'>,
): TaxCalculation {
  return {
    currency: req.currency,
    taxIncluded: true,
    totalNet: sumOf(lines, 'net'),
    totalTax: sumOf(lines, 'tax'),
    totalGross: sumOf(lines, 'gross'),
    taxBreakdown: rest.taxBreakdown,
    lines,
    buyer: rest.buyer,
    seller: rest.seller,
    settings: { priceMode: 'gross', rounding: { level: 'per_line', method: 'half_up' } },
    date: rest.date,
    calculatedAt: new Date().toISOString(),
    engineVersion: 'test',
  };
}

/** A 19 % VAT answer of the engine's shape (the tax service is not what these tests are about). */
export function fakeCalculation(req: CalculateTaxRequest): TaxCalculation {
  const lines = req.lines.map((l, index) =>
    taxedLine(l, index, {
      taxRate: 19,
      taxRateCode: 'VAT_DE_STANDARD',
      taxCountry: 'DE',
      rateType: 'standard',
      decision: 'domestic',
      reason: 'domestic sale',
    }),
  );
  return calculationOf(req, lines, {
    taxBreakdown: [
      { taxRate: 19, taxRateCode: 'VAT_DE_STANDARD', taxableBase: sumOf(lines, 'net'), taxAmount: sumOf(lines, 'tax') },
    ],
    buyer: {
      country: req.buyer.country,
      postcode: null,
      type: 'consumer',
      vatIdValidation: req.vatIdValidation,
      vatIdCheck: vatIdCheckOf(),
      vatIdTreatment: 'no VAT ID given',
    },
    seller: { homeCountry: 'DE', ossEnabled: false, ossThresholdExceeded: false },
    date: req.date ?? '2026-01-01',
  });
}
