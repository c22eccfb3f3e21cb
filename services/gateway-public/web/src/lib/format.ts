/** Amounts in minor units formatted for the page's language, with the currency's own decimals. */
export function moneyFormatter(locale: string): (minor: number, currency: string) => string {
  const cache = new Map<string, Intl.NumberFormat>();
  return (minor, currency) => {
    const code = currency.toUpperCase();
    let f = cache.get(code);
    if (!f) {
      f = new Intl.NumberFormat(locale, { style: 'currency', currency: code });
      cache.set(code, f);
    }
    const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
    return f.format(minor / 10 ** digits);
  };
}

export function percent(locale: string, rate: number): string {
  return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 2 }).format(rate / 100);
}

export { contrastOnWhite, hexColor, textOn } from '../../../../../libs/contracts/src/brand-colors';
