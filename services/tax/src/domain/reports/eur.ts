import type { EurAmounts, EurRateMissing, EurRateUsed } from '@paymesh/contracts';
import { gapMessage, type EcbDayLookup } from '../ecb-rates';

/**
 * Conversion to EUR at rates given as units of the currency per 1 EUR (how the ECB publishes
 * them). The OSS rule (Art. 366 / 369h): the ECB rate of the period's last day, or of the next
 * publication day when there is none that day. A rate the caller gives for a currency replaces
 * the ECB's; it counts as of the period's last day.
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

/** No ECB rates at all (tests, and callers that convert only at given rates). */
export const NO_ECB_RATES = (day: string): EcbDayLookup => ({ kind: 'not_kept', day, latest: null });

export class EurConverter {
  private readonly asked = new Set<string>();

  /**
   * @param callerRates rates the caller gives (`eurRates`), by currency
   * @param rateDate the period's last day: the day the rates are for
   * @param ecb the ECB publication for that day, or why there is none
   */
  constructor(
    private readonly callerRates: Readonly<Record<string, number>>,
    readonly rateDate: string,
    private readonly ecb: EcbDayLookup = NO_ECB_RATES(rateDate),
  ) {}

  /** The rate of `currency` with its day and source, or null when there is none; EUR is 1. */
  rateOf(currency: string): EurRateUsed | null {
    if (currency === 'EUR') return { currency, rate: 1, rateDate: this.rateDate, source: 'ecb' };
    this.asked.add(currency);
    const given = this.callerRates[currency];
    if (given !== undefined) return { currency, rate: given, rateDate: this.rateDate, source: 'caller' };
    const published = this.ecb.kind === 'published' ? this.ecb.publication.rates[currency] : undefined;
    if (this.ecb.kind === 'published' && published !== undefined)
      return { currency, rate: published, rateDate: this.ecb.publication.date, source: 'ecb' };
    return null;
  }

  /** Units of `currency` per EUR, or null without a rate. */
  rate(currency: string): number | null {
    return this.rateOf(currency)?.rate ?? null;
  }

  /** `amount` minor units of `currency` in EUR cents; null without a rate. */
  cents(currency: string, amount: number): number | null {
    const rate = this.rate(currency);
    if (rate === null) return null;
    if (currency === 'EUR') return amount;
    return roundHalfAway(((amount / 10 ** minorDigits(currency)) * 100) / rate);
  }

  amounts(currency: string, a: { net: number; tax: number }): EurAmounts | null {
    const rate = this.rateOf(currency);
    const net = this.cents(currency, a.net);
    const tax = this.cents(currency, a.tax);
    if (rate === null || net === null || tax === null) return null;
    return { rate: rate.rate, rateDate: rate.rateDate, net, tax, gross: net + tax };
  }

  /** Why `currency` has no rate (meaningful only when rateOf answers null). */
  missing(currency: string): EurRateMissing {
    if (this.ecb.kind === 'published') {
      return {
        currency,
        rateDate: this.rateDate,
        reason: 'not_quoted',
        message: `the ECB publishes no reference rate for ${currency} (publication of ${this.ecb.publication.date})`,
      };
    }
    return { currency, rateDate: this.rateDate, reason: this.ecb.kind, message: gapMessage(this.ecb) };
  }

  /** The rates of the currencies converted so far (EUR left out), by currency. */
  used(): EurRateUsed[] {
    return [...this.asked]
      .sort()
      .map((c) => this.rateOf(c))
      .filter((r): r is EurRateUsed => r !== null);
  }

  /** The currencies asked for so far that have no rate, with the reason. */
  unconverted(): EurRateMissing[] {
    return [...this.asked]
      .sort()
      .filter((c) => this.rateOf(c) === null)
      .map((c) => this.missing(c));
  }

  /** `eurRates` and `eurRatesMissing` of a report, after its figures were converted. */
  summary(): { eurRates: EurRateUsed[]; eurRatesMissing: EurRateMissing[] } {
    return { eurRates: this.used(), eurRatesMissing: this.unconverted() };
  }
}
