/** Amounts as the provider writes them: `{currency: "EUR", value: "10.00"}` (JPY and ISK without decimals). */
export interface Amount {
  currency: string;
  value: string;
}

const ZERO_DECIMAL: ReadonlySet<string> = new Set(['JPY', 'ISK']);
const CURRENCIES: ReadonlySet<string> = new Set([
  'AED',
  'AUD',
  'BGN',
  'BRL',
  'CAD',
  'CHF',
  'CZK',
  'DKK',
  'EUR',
  'GBP',
  'HKD',
  'HUF',
  'ILS',
  'ISK',
  'JPY',
  'MXN',
  'MYR',
  'NOK',
  'NZD',
  'PHP',
  'PLN',
  'RON',
  'RUB',
  'SEK',
  'SGD',
  'THB',
  'TWD',
  'USD',
  'ZAR',
]);

export function isCurrency(c: string): boolean {
  return CURRENCIES.has(c);
}

/** Minor units of a value string of the currency's precision; null when malformed. */
export function minorOf(a: { currency: string; value: string }): number | null {
  const zero = ZERO_DECIMAL.has(a.currency);
  const m = (zero ? /^(\d{1,10})$/ : /^(\d{1,10})\.(\d{2})$/).exec(a.value);
  if (!m) return null;
  return zero ? Number(m[1]) : Number(m[1]) * 100 + Number(m[2]);
}

export function amountOf(minor: number, currency: string): Amount {
  if (ZERO_DECIMAL.has(currency)) return { currency, value: String(minor) };
  const abs = Math.abs(minor);
  return { currency, value: `${minor < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}` };
}
