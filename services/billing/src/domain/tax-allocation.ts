import { largestRemainder, roundHalfAwayFromZero } from '@paymesh/core';
import type { TaxBreakdownEntry, TaxCalculation, TaxLineResult } from '@paymesh/contracts';

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
  const grossParts = largestRemainder(
    snapshot.lines.map((l) => l.gross),
    amount,
    total,
  );
  const lines: TaxLineResult[] = snapshot.lines.map((l, i) => {
    const gross = grossParts[i] ?? 0;
    const tax = l.gross === 0 ? 0 : roundHalfAwayFromZero(BigInt(l.tax) * BigInt(gross), BigInt(l.gross));
    return { ...l, quantity: 1, unitPrice: gross, gross, tax, net: gross - tax };
  });
  const totalTax = lines.reduce((s, l) => s + l.tax, 0);
  return {
    ...snapshot,
    taxIncluded: true,
    totalGross: amount,
    totalTax,
    totalNet: amount - totalTax,
    taxBreakdown: breakdownOf(lines),
    lines,
  };
}

function breakdownOf(lines: readonly TaxLineResult[]): TaxBreakdownEntry[] {
  const by = new Map<string, TaxBreakdownEntry>();
  for (const l of lines) {
    const key = `${l.taxRateCode}|${l.taxRate}`;
    const e = by.get(key) ?? { taxRate: l.taxRate, taxRateCode: l.taxRateCode, taxableBase: 0, taxAmount: 0 };
    e.taxableBase += l.net;
    e.taxAmount += l.tax;
    by.set(key, e);
  }
  return [...by.values()];
}
