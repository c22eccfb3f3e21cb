/** Amounts in minor units -> localized money; the currency's own number of decimals (JPY 0, EUR 2, BHD 3). */
export function money(minor: number, currency: string, locale: string): string {
  const f = new Intl.NumberFormat(locale, { style: 'currency', currency });
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  return f.format(minor / 10 ** digits);
}

/** Major units typed by a merchant ("49.90", "49,90") -> minor units of the currency; null when not an amount. */
export function parseAmount(text: string, currency: string): number | null {
  const digits =
    new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  const m = /^\s*(\d{1,12})(?:[.,](\d+))?\s*$/.exec(text);
  if (!m || !m[1]) return null;
  const frac = m[2] ?? '';
  if (frac.length > digits) return null;
  return Number(m[1]) * 10 ** digits + Number(frac.padEnd(digits, '0') || '0');
}

/** An instant in the organization's time zone, in the reader's locale. */
export function dateTime(iso: string, timeZone: string, locale: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium', timeZone }).format(new Date(iso));
}

export function percent(ratio: number | null, locale: string): string {
  return ratio === null
    ? '—'
    : new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(ratio);
}

export function count(n: number, locale: string): string {
  return new Intl.NumberFormat(locale).format(n);
}

/** Whether the runtime knows `zone` as an IANA time zone. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** A calendar day (YYYY-MM-DD, such as an invoice's issue date) in the reader's locale; the day as given, no zone shift. */
export function day(ymd: string | null, locale: string): string {
  if (!ymd) return '—';
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${ymd}T00:00:00Z`));
}
