import { breakdownByRate, splitTaxedLines } from '@paymesh/core';
import type { TaxCalculation, TaxLineResult } from '@paymesh/contracts';

/**
 * Allocates an invoice's tax snapshot to a payment of `amount` (minor units, 0 < amount <= total
 * gross): the part of each line's gross, tax and net that the payment settles, proportionally to
 * the paid share of the invoice's total gross. Exact in integers:
 * - gross per line by largest remainder, so the lines add up to `amount` exactly;
 * - tax per line = round-half-up(line tax × line's allocated gross / line gross), net = gross - tax.
 * The whole invoice (amount = total gross) allocates to the snapshot's own amounts.
 * The result keeps the snapshot's rates, codes, decisions and buyer (the evidence), with every line
 * as one unit of its allocated gross, `taxIncluded` true and the breakdown summed from the lines.
 */
export function allocateInvoiceTax(snapshot: TaxCalculation, amount: number): TaxCalculation {
  const total = snapshot.totalGross;
  if (!Number.isSafeInteger(amount) || amount <= 0 || amount > total) {
    throw new RangeError(`allocation amount ${amount} must be from 1 to the invoice total ${total}`);
  }
  // The whole invoice: the snapshot itself (per-document rounding may differ from the lines' sum).
  if (amount === total) return snapshot;
  const parts = splitTaxedLines(snapshot.lines, amount, total);
  const lines: TaxLineResult[] = snapshot.lines.map((l, i) => {
    const part = parts[i] ?? { gross: 0, tax: 0, net: 0 };
    return { ...l, quantity: 1, unitPrice: part.gross, ...part };
  });
  const totalTax = lines.reduce((s, l) => s + l.tax, 0);
  return {
    ...snapshot,
    taxIncluded: true,
    totalGross: amount,
    totalTax,
    totalNet: amount - totalTax,
    taxBreakdown: breakdownByRate(lines),
    lines,
  };
}
