import type { EurAmounts } from '@paymesh/contracts';

/**
 * Conversion to EUR at ECB reference rates given as units of the currency per 1 EUR (how the ECB
 * publishes them). The rate date is the period's last day, the date the OSS return converts at.
 */

/** Decimal places of a currency's minor unit (2 for EUR, 0 for JPY). */
export function minorDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** Half away from zero, so a credit converts to exactly the negative of the same sale. */
export const roundHalfAway = (x: number): number => (x < 0 ? -Math.round(-x) : Math.round(x));

export class EurConverter {
  constructor(
    private readonly rates: Readonly<Record<string, number>>,
    readonly rateDate: string,
  ) {}

  /** Units of `currency` per EUR, or null when no rate was given. */
  rate(currency: string): number | null {
    if (currency === 'EUR') return 1;
    return this.rates[currency] ?? null;
  }

  /** `amount` minor units of `currency` in EUR cents; null without a rate. */
  cents(currency: string, amount: number): number | null {
    const rate = this.rate(currency);
    if (rate === null) return null;
    if (currency === 'EUR') return amount;
    return roundHalfAway(((amount / 10 ** minorDigits(currency)) * 100) / rate);
  }

  amounts(currency: string, a: { net: number; tax: number }): EurAmounts | null {
    const rate = this.rate(currency);
    const net = this.cents(currency, a.net);
    const tax = this.cents(currency, a.tax);
    if (rate === null || net === null || tax === null) return null;
    return { rate, rateDate: this.rateDate, net, tax, gross: net + tax };
  }
}
