import type { CalculateTaxRequest, TaxCalculation, VatIdCheck } from '../src/tax';

/**
 * Test values of the tax contracts that several services' tests build alike (a test kit: imported
 * by tests only, never part of a build).
 */

/** The VAT-number check of a buyer who gave none (what the engine records for a consumer). */
export function vatIdNotGiven(over: Partial<VatIdCheck> = {}): VatIdCheck {
  return {
    vatId: null,
    status: 'not_given',
    source: null,
    checkedAt: null,
    consultationNumber: null,
    companyName: null,
    address: null,
    error: null,
    ...over,
  };
}

type TaxLine = TaxCalculation['lines'][number];

/** How a stand-in engine decides one line. */
export type LineDecision = Pick<TaxLine, 'taxRate' | 'taxRateCode' | 'taxCountry' | 'rateType' | 'decision' | 'reason'>;

/**
 * The engine's line of request line `l` (number `index`) at `d.taxRate` % VAT, rounded half up per
 * line: a gross price has the VAT in it, a net price gets it on top.
 */
export function taxedLine(
  l: CalculateTaxRequest['lines'][number],
  index: number,
  d: LineDecision,
  priceMode: 'gross' | 'net' = 'gross',
): TaxLine {
  const amount = l.quantity * l.unitPrice;
  const tax =
    priceMode === 'gross'
      ? Math.round((amount * d.taxRate) / (100 + d.taxRate))
      : Math.round((amount * d.taxRate) / 100);
  const net = priceMode === 'gross' ? amount - tax : amount;
  return {
    index,
    name: l.name,
    itemType: l.itemType,
    category: null,
    quantity: l.quantity,
    unitPrice: l.unitPrice,
    net,
    tax,
    gross: net + tax,
    ...d,
    rateId: null,
    rateVersion: null,
    ruleId: null,
  };
}
