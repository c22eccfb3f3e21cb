import { IntlMessageFormat } from 'intl-messageformat';
import type { DocumentLanguage } from '@paymesh/contracts';
import { de } from './de';
import { en, type BillingMessageKey } from './en';

/** The message file of each language. */
export const BILLING_MESSAGES: Record<DocumentLanguage, Record<BillingMessageKey, string>> = { en, de };

/** Locale of amounts and dates (English as documents print it: en-GB amounts, ISO dates). */
const LOCALES: Record<DocumentLanguage, { locale: string; isoDates: boolean }> = {
  en: { locale: 'en-GB', isoDates: true },
  de: { locale: 'de-DE', isoDates: false },
};

/** Texts, amounts and dates of one language. */
export interface Texts {
  language: DocumentLanguage;
  t(key: BillingMessageKey, values?: Record<string, string | number>): string;
  money(minor: number, currency: string): string;
  date(day: string): string;
}

const cache = new Map<DocumentLanguage, Texts>();

export function textsOf(language: DocumentLanguage | null | undefined): Texts {
  const lang = language ?? 'en';
  const known = cache.get(lang);
  if (known) return known;
  const { locale, isoDates } = LOCALES[lang];
  const compiled = new Map<BillingMessageKey, IntlMessageFormat>();
  const texts: Texts = {
    language: lang,
    t(key, values) {
      let f = compiled.get(key);
      if (!f) {
        f = new IntlMessageFormat(BILLING_MESSAGES[lang][key], locale);
        compiled.set(key, f);
      }
      return String(f.format(values));
    },
    money(minor, currency) {
      const fmt = new Intl.NumberFormat(locale, { style: 'currency', currency });
      return fmt.format(minor / 10 ** (fmt.resolvedOptions().maximumFractionDigits ?? 2));
    },
    date(day) {
      if (isoDates) return day;
      const d = new Date(`${day.slice(0, 10)}T00:00:00Z`);
      return new Intl.DateTimeFormat(locale, {
        day: '2-digit',
        month: '2-digit',
        year: 'numeric',
        timeZone: 'UTC',
      }).format(d);
    },
  };
  cache.set(lang, texts);
  return texts;
}
