import { IntlMessageFormat } from 'intl-messageformat';
import type { DocumentKind, DocumentLanguage, DocumentLine, DocumentView, SupplyDateRule } from '@paymesh/contracts';
import { de } from '../render/messages/de';
import { en, type MessageKey } from '../render/messages/en';

/** The message file of each language; a language added here needs its file (same keys). */
export const MESSAGES: Record<DocumentLanguage, Record<MessageKey, string>> = { en, de };

/**
 * Locale of numbers and dates per language. English keeps what documents printed before languages
 * existed: en-GB amounts (`€1,234.56`) and ISO dates (`2026-11-27`); German prints `1.234,56 €` and
 * `27.11.2026`.
 */
const LOCALES: Record<DocumentLanguage, { locale: string; isoDates: boolean }> = {
  en: { locale: 'en-GB', isoDates: true },
  de: { locale: 'de-DE', isoDates: false },
};

/** Texts, amounts and dates of one language, as a document prints them. */
export class Printer {
  private readonly locale: string;
  private readonly isoDates: boolean;
  private readonly compiled = new Map<MessageKey, IntlMessageFormat>();

  constructor(readonly language: DocumentLanguage) {
    ({ locale: this.locale, isoDates: this.isoDates } = LOCALES[language]);
  }

  /** The message `key` with its placeholders filled in. */
  t(key: MessageKey, values?: Record<string, string | number>): string {
    let f = this.compiled.get(key);
    if (!f) {
      f = new IntlMessageFormat(MESSAGES[this.language][key], this.locale);
      this.compiled.set(key, f);
    }
    return String(f.format(values));
  }

  /** Minor units -> display amount with the currency's own number of decimals (EUR 2, JPY 0). */
  money(minor: number, currency: string): string {
    const fmt = new Intl.NumberFormat(this.locale, { style: 'currency', currency });
    const digits = fmt.resolvedOptions().maximumFractionDigits ?? 2;
    return fmt.format(minor / 10 ** digits);
  }

  percent(rate: number): string {
    return `${new Intl.NumberFormat(this.locale, { maximumFractionDigits: 3 }).format(rate)} %`;
  }

  /** A calendar day `YYYY-MM-DD` as the language writes it. */
  date(day: string): string {
    if (this.isoDates) return day;
    return new Intl.DateTimeFormat(this.locale, {
      day: '2-digit',
      month: '2-digit',
      year: 'numeric',
      timeZone: 'UTC',
    }).format(new Date(`${day}T00:00:00Z`));
  }

  /** The calendar month of a day (`November 2026`). */
  month(day: string): string {
    return new Intl.DateTimeFormat(this.locale, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
      new Date(`${day}T00:00:00Z`),
    );
  }

  /** Legal notes a tax decision requires on the document, once each, in a stable order. */
  taxNotes(lines: Pick<DocumentLine, 'decision'>[]): string[] {
    const decisions = new Set(lines.map((l) => l.decision));
    return (['reverse_charge', 'intra_community_supply', 'export'] as const)
      .filter((d) => decisions.has(d))
      .map((d) => this.t(`note.${d}`));
  }

  /** Due date or payment terms of an invoice; without either it is payable on receipt (§ 271 BGB). */
  paymentTerms(view: Pick<DocumentView, 'kind' | 'dueDate' | 'paymentTermsDays'>): string | null {
    if (view.kind === 'credit_note') return null;
    const due = view.dueDate ? this.date(view.dueDate) : null;
    if (view.paymentTermsDays !== null && due) return this.t('terms.withinBy', { days: view.paymentTermsDays, due });
    if (due) return this.t('terms.by', { due });
    if (view.paymentTermsDays !== null) return this.t('terms.within', { days: view.paymentTermsDays });
    return this.t('terms.onReceipt');
  }

  /**
   * What the invoice states as its date of supply or service period (§ 14 (4) no. 6 UStG): the
   * service period when the draft named one (a single day is the date of supply), otherwise the
   * merchant's rule applied to the invoice date and said as such. Null for other kinds.
   */
  supply(
    view: Pick<DocumentView, 'kind' | 'issueDate' | 'servicePeriod' | 'supplyDateRule'>,
  ): { label: string; value: string } | null {
    if (view.kind !== 'invoice' && view.kind !== 'proforma' && view.kind !== 'reminder') return null;
    const p = view.servicePeriod;
    if (p && p.start === p.end) return { label: this.t('meta.supplyDate'), value: this.date(p.start) };
    if (p)
      return {
        label: this.t('meta.servicePeriod'),
        value: this.t('supply.period', { start: this.date(p.start), end: this.date(p.end) }),
      };
    if (!view.issueDate) return null;
    const rule: SupplyDateRule = view.supplyDateRule ?? 'invoice_date';
    if (rule === 'invoice_month')
      return {
        label: this.t('meta.servicePeriod'),
        value: this.t('supply.invoice_month', { month: this.month(view.issueDate) }),
      };
    return {
      label: this.t('meta.supplyDate'),
      value: this.t('supply.invoice_date', { date: this.date(view.issueDate) }),
    };
  }

  title(kind: DocumentKind): string {
    return this.t(`title.${kind}`);
  }
}

const printers = new Map<DocumentLanguage, Printer>();

/** The printer of a language (English when none is named). */
export function printerOf(language: DocumentLanguage | undefined): Printer {
  const lang = language ?? 'en';
  let p = printers.get(lang);
  if (!p) {
    p = new Printer(lang);
    printers.set(lang, p);
  }
  return p;
}

/** An IBAN in groups of four, as printed (`DE89 3704 0044 0532 0130 00`). */
export function formatIban(iban: string): string {
  return iban.replace(/\s+/g, '').replace(/(.{4})(?=.)/g, '$1 ');
}
