/**
 * Splitting and summing taxed lines, shared by the invoice payment allocation (billing), the
 * refund reversals of the tax ledger and the printed view of an e-invoice. Minor units, integers.
 */
import { largestRemainder, roundHalfAwayFromZero } from './money';

/** A line's gross, tax and net (gross = net + tax), minor units. */
export interface TaxedAmounts {
  gross: number;
  tax: number;
  net: number;
}

/**
 * The part of each line that `amount` of the lines' `total` gross (> 0) stands for: the gross by
 * largest remainder (the parts add up to `amount` exactly), the tax rounded half away from zero
 * from the line's tax in proportion to its gross (0 for a line whose gross is not positive), and
 * net = gross - tax.
 */
export function splitTaxedLines(
  lines: readonly { gross: number; tax: number }[],
  amount: number,
  total: number,
): TaxedAmounts[] {
  const grossParts = largestRemainder(
    lines.map((l) => l.gross),
    amount,
    total,
  );
  return lines.map((l, i) => {
    const gross = grossParts[i] ?? 0;
    const tax = l.gross <= 0 ? 0 : roundHalfAwayFromZero(BigInt(l.tax) * BigInt(gross), BigInt(l.gross));
    return { gross, tax, net: gross - tax };
  });
}

/** One rate's sum in a tax breakdown. */
export interface RateTotal {
  taxRate: number;
  taxRateCode: string;
  taxableBase: number;
  taxAmount: number;
}

/** The breakdown of lines by rate code and rate (first-seen order): net and tax summed. */
export function breakdownByRate(
  lines: readonly { taxRate: number; taxRateCode: string; net: number; tax: number }[],
): RateTotal[] {
  const by = new Map<string, RateTotal>();
  for (const l of lines) {
    const key = `${l.taxRateCode}|${l.taxRate}`;
    const e = by.get(key) ?? { taxRate: l.taxRate, taxRateCode: l.taxRateCode, taxableBase: 0, taxAmount: 0 };
    e.taxableBase += l.net;
    e.taxAmount += l.tax;
    by.set(key, e);
  }
  return [...by.values()];
}
