import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import { CATALOGUES, COUNT_PARAMS, LANGUAGES, LOCALES, translate, type MessageKey } from './messages';

const KEYS = Object.keys(CATALOGUES.en) as MessageKey[];
const COUNTED = new Set<string>(Object.keys(COUNT_PARAMS));

type Element = ReturnType<IntlMessageFormat['getAst']>[number];
/** Element types of the ICU parser (@formatjs/icu-messageformat-parser's TYPE). */
const LITERAL = 0;
const ARGUMENT = 1;
const NUMBER = 2;
const PLURAL = 6;
const POUND = 7;

/** The argument names of the elements `pick` takes, nested ones (in plural options) too. */
function argumentNames(elements: Element[], pick: (el: Element) => boolean, into = new Set<string>()): Set<string> {
  for (const el of elements) {
    if (pick(el) && 'value' in el) into.add(el.value);
    if ('options' in el) for (const option of Object.values(el.options)) argumentNames(option.value, pick, into);
  }
  return into;
}

/** The arguments of a message that are formatted as numbers (plural or number), nested ones too. */
const counted = (elements: Element[]) => argumentNames(elements, (el) => el.type === NUMBER || el.type === PLURAL);

describe('translate', () => {
  it('has no ICU syntax in the plain messages (those not in COUNT_PARAMS): only text and {name} placeholders', () => {
    for (const lang of LANGUAGES)
      for (const key of KEYS) {
        if (COUNTED.has(key)) continue;
        const ast = new IntlMessageFormat(CATALOGUES[lang][key], LOCALES[lang], undefined, {
          ignoreTag: true,
        }).getAst();
        expect(
          ast.every((el) => el.type === LITERAL || el.type === ARGUMENT),
          `${lang} ${key}`,
        ).toBe(true);
      }
  });

  it('fills plain messages as written: apostrophes, braces and hashes stay, a parameter not given stays a placeholder', () => {
    expect(translate('en', 'recurring.badZone', { zone: "it's {x} #1" })).toBe("it's {x} #1 is not a time zone.");
    expect(translate('en', 'recurring.badZone')).toBe('{zone} is not a time zone.');
  });

  it('knows which parameters each message counts (COUNT_PARAMS), the same in English and German', () => {
    const found: Record<string, string[]> = {};
    for (const lang of LANGUAGES)
      for (const key of KEYS) {
        const names = counted(new IntlMessageFormat(CATALOGUES[lang][key], LOCALES[lang]).getAst());
        if (names.size > 0) found[key] = [...new Set([...(found[key] ?? []), ...names])].sort();
      }
    const listed = Object.fromEntries(
      Object.entries(COUNT_PARAMS as Partial<Record<MessageKey, readonly string[]>>).map(([k, v]) => [
        k,
        [...(v ?? [])].sort(),
      ]),
    );
    expect(found).toEqual(listed);
    for (const key of Object.keys(COUNT_PARAMS) as MessageKey[])
      expect(placeholderNames(CATALOGUES.de[key]), key).toEqual(placeholderNames(CATALOGUES.en[key]));
  });

  it('chooses the English plural form by the count and formats it in the locale', () => {
    const t = (postings: number) => translate('en', 'accounting.completed', { postings });
    expect(t(1)).toBe('Export completed: 1 posting. Download it from the list below.');
    expect(t(2)).toBe('Export completed: 2 postings. Download it from the list below.');
    expect(t(0)).toBe('Export completed: 0 postings. Download it from the list below.');
    expect(t(1000)).toBe('Export completed: 1,000 postings. Download it from the list below.');
    const counts = (n: number) =>
      translate('en', 'accounting.countsText', { invoices: n, creditNotes: n, payments: n, reversals: n });
    expect(counts(1)).toBe('1 invoice, 1 credit note, 1 payment, 1 refund or chargeback');
    expect(counts(2)).toBe('2 invoices, 2 credit notes, 2 payments, 2 refunds and chargebacks');
    expect(counts(0)).toBe('0 invoices, 0 credit notes, 0 payments, 0 refunds and chargebacks');
    expect(counts(1000)).toBe('1,000 invoices, 1,000 credit notes, 1,000 payments, 1,000 refunds and chargebacks');
    expect(translate('en', 'tax.rebuildCounts', { processed: '1', total: 1 })).toBe('1 of 1 source event');
    expect(translate('en', 'tax.rebuildCounts', { processed: '1,000', total: 1000 })).toBe(
      '1,000 of 1,000 source events',
    );
    expect(translate('en', 'dataIo.checkOk', { rows: 1 })).toBe('1 row is valid. Nothing has been written yet.');
    expect(translate('en', 'dataIo.checkOk', { rows: 1000 })).toBe(
      'All 1,000 rows are valid. Nothing has been written yet.',
    );
    expect(translate('en', 'dataIo.checkFailed', { invalid: 1, rows: 1 })).toBe(
      '1 of 1 row is invalid. Nothing was written: fix it and upload the file again.',
    );
    expect(translate('en', 'dataIo.checkFailed', { invalid: 2, rows: 1000 })).toBe(
      '2 of 1,000 rows are invalid. Nothing was written: fix them and upload the file again.',
    );
    expect(translate('en', 'dataIo.completed', { created: 1, already: 0 })).toBe(
      '1 record created, 0 were already imported.',
    );
    expect(translate('en', 'recurring.every.month', { n: 1 })).toBe('every month');
    expect(translate('en', 'recurring.every.month', { n: 3 })).toBe('every 3 months');
    expect(translate('en', 'payments.page', { page: '1', pages: '1', total: 1 })).toBe('Page 1 of 1 (1 transaction)');
    expect(translate('en', 'invoices.page', { page: '1', pages: '1', total: 1000 })).toBe('Page 1 of 1 (1,000 in all)');
  });

  it('chooses the German plural form by the count and formats it in the locale', () => {
    const t = (postings: number) => translate('de', 'accounting.completed', { postings });
    expect(t(1)).toBe('Export abgeschlossen: 1 Buchung. Laden Sie ihn aus der Liste unten herunter.');
    expect(t(2)).toBe('Export abgeschlossen: 2 Buchungen. Laden Sie ihn aus der Liste unten herunter.');
    expect(t(0)).toBe('Export abgeschlossen: 0 Buchungen. Laden Sie ihn aus der Liste unten herunter.');
    expect(t(1000)).toBe('Export abgeschlossen: 1.000 Buchungen. Laden Sie ihn aus der Liste unten herunter.');
    const counts = (n: number) =>
      translate('de', 'accounting.countsText', { invoices: n, creditNotes: n, payments: n, reversals: n });
    expect(counts(1)).toBe('1 Rechnung, 1 Gutschrift, 1 Zahlung, 1 Erstattung oder Rückbelastung');
    expect(counts(2)).toBe('2 Rechnungen, 2 Gutschriften, 2 Zahlungen, 2 Erstattungen und Rückbelastungen');
    expect(counts(0)).toBe('0 Rechnungen, 0 Gutschriften, 0 Zahlungen, 0 Erstattungen und Rückbelastungen');
    expect(counts(1000)).toBe(
      '1.000 Rechnungen, 1.000 Gutschriften, 1.000 Zahlungen, 1.000 Erstattungen und Rückbelastungen',
    );
    expect(translate('de', 'tax.rebuildCounts', { processed: '1', total: 1 })).toBe('1 von 1 Ereignis');
    expect(translate('de', 'tax.rebuildCounts', { processed: '1.000', total: 1000 })).toBe(
      '1.000 von 1.000 Ereignissen',
    );
    expect(translate('de', 'dataIo.checkFailed', { invalid: 1, rows: 2 })).toBe(
      '1 von 2 Zeilen ist ungültig. Nichts wurde geschrieben: Korrigieren Sie sie und laden Sie die Datei erneut hoch.',
    );
    expect(translate('de', 'dataIo.completed', { created: 1, already: 1000 })).toBe(
      '1 Datensatz angelegt, 1.000 waren bereits importiert.',
    );
    expect(translate('de', 'recurring.every.year', { n: 1 })).toBe('jedes Jahr');
    expect(translate('de', 'recurring.every.year', { n: 2 })).toBe('alle 2 Jahre');
    expect(translate('de', 'keys.days', { n: 1 })).toBe('In 1 Tag');
    expect(translate('de', 'keys.days', { n: 30 })).toBe('In 30 Tagen');
    expect(translate('de', 'invoices.pageOfMore', { page: '2', pages: '9', total: 1000 })).toBe(
      'Seite 2 von mehr als 9 (mehr als 1.000 insgesamt)',
    );
  });

  it('reads every counted message with a count of 1 and of 2 in both languages, no placeholder left', () => {
    for (const lang of LANGUAGES)
      for (const [key, names] of Object.entries(COUNT_PARAMS) as Array<[MessageKey, readonly string[]]>)
        for (const n of [1, 2]) {
          const params: Record<string, string | number> = Object.fromEntries(
            placeholderNames(CATALOGUES.en[key]).map((p) => [p, 'x']),
          );
          for (const name of names) params[name] = n;
          const text = translate(lang, key, params as never);
          expect(text, `${lang} ${key} ${n}`).not.toMatch(/[{}#]|NaN/);
          // "every day" has no 1; every other form shows the count.
          if (n === 2) expect(text, `${lang} ${key} ${n}`).toContain('2');
        }
  });
});

/** Every argument name of an ICU message, nested ones too. */
function placeholderNames(text: string): string[] {
  const ast = new IntlMessageFormat(text, 'en').getAst();
  return [...argumentNames(ast, (el) => el.type !== LITERAL && el.type !== POUND)].sort();
}
