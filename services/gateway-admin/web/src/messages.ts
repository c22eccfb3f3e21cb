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

/** Whether `key` is a count message (formatted as an ICU message); the others are plain text with `{name}` placeholders. */
function isCountKey(key: MessageKey): key is CountKey {
  return key in COUNT_PARAMS;
}

/**
 * The ICU formatter of a count message. The bundle carries these messages already parsed (build.mjs), so it needs
 * no parser; elsewhere (unit tests) they are text, which intl-messageformat parses here.
 */
function formatter(lang: Language, key: CountKey): IntlMessageFormat {
  const id = `${lang}:${key}`;
  let f = formatters.get(id);
  if (!f) {
    f = new IntlMessageFormat(CATALOGUES[lang][key], LOCALES[lang], undefined, { ignoreTag: true });
    formatters.set(id, f);
  }
  return f;
}

/**
 * The text of `key` in `lang`: `{name}` placeholders filled from `params` as given (a placeholder with no parameter
 * stays as written); in a count message (COUNT_PARAMS, ICU syntax) the plural form is chosen by its count
 * parameters, whose `#` is formatted in the language's locale.
 */
export function translate<K extends MessageKey>(lang: Language, key: K, params?: Params<K>): string {
  const given: Values = params ?? {};
  if (isCountKey(key)) return formatter(lang, key).format(given) as string;
  return CATALOGUES[lang][key].replace(/\{(\w+)\}/g, (m, name: string) => (name in given ? String(given[name]) : m));
}
