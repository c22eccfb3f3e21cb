import { createHash } from 'node:crypto';

/**
 * Deterministic reference rates: every currency the ECB quotes (units per 1 EUR), near a fixed
 * level and moved by at most ±1 % per day by a hash of the currency and the day, so the same day
 * always answers the same rate, on every run and every machine. Rounded to five significant
 * digits as the ECB publishes them (at most four decimals).
 */

/** Rough levels of the currencies the ECB quotes (BGN left the list when Bulgaria joined the euro in 2026). */
export const BASE_RATES: Readonly<Record<string, number>> = Object.freeze({
  USD: 1.08,
  JPY: 162,
  CZK: 25.2,
  DKK: 7.46,
  GBP: 0.85,
  HUF: 395,
  PLN: 4.3,
  RON: 4.97,
  SEK: 11.4,
  CHF: 0.95,
  ISK: 150,
  NOK: 11.7,
  TRY: 36,
  AUD: 1.65,
  BRL: 6.1,
  CAD: 1.48,
  CNY: 7.8,
  HKD: 8.4,
  IDR: 17500,
  ILS: 4.0,
  INR: 90,
  KRW: 1480,
  MXN: 20.5,
  MYR: 4.8,
  NZD: 1.8,
  PHP: 61,
  SGD: 1.45,
  THB: 37.5,
  ZAR: 19.8,
});

export const CURRENCIES: readonly string[] = Object.freeze(Object.keys(BASE_RATES).sort());

/** Rounds to five significant digits, at most four decimals (1.0823, 162.51, 17512). */
export function ecbRound(rate: number): number {
  const whole = Math.max(1, Math.floor(Math.log10(Math.abs(rate))) + 1);
  const decimals = Math.min(4, Math.max(0, 5 - whole));
  return Number(rate.toFixed(decimals));
}

/** The sandbox's rate of `currency` on `day`. */
export function seededRate(currency: string, day: string): number {
  const base = BASE_RATES[currency];
  if (base === undefined) throw new Error(`no base rate for ${currency}`);
  const h = createHash('sha256').update(`${currency}|${day}`).digest().readUInt32BE(0);
  const move = (h / 0xffffffff) * 2 - 1;
  return ecbRound(base * (1 + move / 100));
}

/** Every currency's rate on `day`. */
export function seededRates(day: string): Record<string, number> {
  return Object.fromEntries(CURRENCIES.map((c) => [c, seededRate(c, day)]));
}
