import { IntlMessageFormat } from 'intl-messageformat';
import en from '../messages/en.json';
import de from '../messages/de.json';

export const LANGUAGES = ['en', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];
export type MessageKey = keyof typeof en;

/** German must have every English key: a missing one fails the type check. */
export const CATALOGUES: Record<Language, Record<MessageKey, string>> = { en, de };
export const LOCALES: Record<Language, string> = { en: 'en-GB', de: 'de-DE' };

/**
 * The parameters that a message chooses its plural form by (ICU `{n, plural, …}` in English or German), or
 * formats as a number (`{n, number}`): numbers, not text, since the message formats them itself (`#`).
 * A unit test keeps this list in step with the catalogues.
 */
export const COUNT_PARAMS = {
  'payments.page': ['total'],
  'payments.pageOfMore': ['total'],
  'invoices.page': ['total'],
  'invoices.pageOfMore': ['total'],
  'keys.days': ['n'],
  'audit.intact': ['entries', 'documents'],
  'accounting.progress': ['total'],
  'accounting.completed': ['postings'],
  'accounting.countsText': ['invoices', 'creditNotes', 'payments', 'reversals'],
  'recurring.every.day': ['n'],
  'recurring.every.week': ['n'],
  'recurring.every.month': ['n'],
  'recurring.every.year': ['n'],
  'recurring.reasonHint': ['left'],
  'tax.previewSummary': ['create', 'unchanged', 'skipped'],
  'tax.rulesWillCreate': ['count'],
  'tax.rebuildCounts': ['total'],
  'dataIo.checkOk': ['rows'],
  'dataIo.checkFailed': ['invalid', 'rows'],
  'dataIo.start': ['rows'],
  'dataIo.progress': ['total'],
  'dataIo.completed': ['created', 'already'],
} as const satisfies Partial<Record<MessageKey, readonly string[]>>;

type CountKey = keyof typeof COUNT_PARAMS;
type Values = Record<string, string | number>;
/** The parameters of `key`: text or numbers, those in COUNT_PARAMS numbers only. */
export type Params<K extends MessageKey> = K extends CountKey
  ? Values & Record<(typeof COUNT_PARAMS)[K][number], number>
  : Values;

const formatters = new Map<string, IntlMessageFormat>();

function formatter(lang: Language, key: MessageKey): IntlMessageFormat {
  const id = `${lang}:${key}`;
  let f = formatters.get(id);
  if (!f) {
    // Tags (`<b>…</b>`) are not markup in these messages: they stay text.
    f = new IntlMessageFormat(CATALOGUES[lang][key], LOCALES[lang], undefined, { ignoreTag: true });
    formatters.set(id, f);
  }
  return f;
}

/**
 * The text of `key` in `lang` (an ICU message): `{name}` placeholders filled from `params` as given (a placeholder
 * with no parameter stays as written), plural forms chosen by the count parameters, whose `#` is formatted in the
 * language's locale.
 */
export function translate<K extends MessageKey>(lang: Language, key: K, params?: Params<K>): string {
  const given: Values = params ?? {};
  const values = new Proxy(given, {
    has: () => true,
    get: (p, name) => (typeof name === 'string' && name in p ? p[name] : `{${String(name)}}`),
  });
  return formatter(lang, key).format(values) as string;
}
