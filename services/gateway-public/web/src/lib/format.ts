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

/** `#rgb` / `#rrggbb` only: anything else is ignored (it ends up in a CSS custom property). */
export function hexColor(value: string | undefined): string | undefined {
  if (!value || !/^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i.test(value)) return undefined;
  return value.length === 4 ? `#${[...value.slice(1)].map((c) => c + c).join('')}` : value;
}

function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** Text colour with the better WCAG contrast on a brand colour. */
export function textOn(hex: string): '#000000' | '#ffffff' {
  const l = luminance(hex);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#000000' : '#ffffff';
}

/** Contrast ratio of a colour against white (for deciding whether it can colour text on white). */
export function contrastOnWhite(hex: string): number {
  return 1.05 / (luminance(hex) + 0.05);
}
