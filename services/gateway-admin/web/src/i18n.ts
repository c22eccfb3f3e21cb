import { useSyncExternalStore } from 'react';
import { CATALOGUES, LOCALES, translate, type Language, type MessageKey, type Params } from './messages';

export { LANGUAGES, translate, type Language, type MessageKey } from './messages';

const STORAGE_KEY = 'paymesh.language';

function initial(): Language {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (stored === 'en' || stored === 'de') return stored;
  return navigator.language.toLowerCase().startsWith('de') ? 'de' : 'en';
}

let current: Language = initial();
const listeners = new Set<() => void>();
document.documentElement.lang = current;

export function setLanguage(lang: Language): void {
  current = lang;
  localStorage.setItem(STORAGE_KEY, lang);
  document.documentElement.lang = lang;
  for (const l of listeners) l();
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** The text of a message in the current language (see `translate`). */
export type Translate = <K extends MessageKey>(key: K, params?: Params<K>) => string;

/** The current language, its locale (for Intl) and the translate function; re-renders on a switch. */
export function useI18n(): { lang: Language; locale: string; t: Translate } {
  const lang = useSyncExternalStore(subscribe, () => current);
  return { lang, locale: LOCALES[lang], t: (key, params) => translate(lang, key, params) };
}

/** Whether `key` names a message (for keys built from API values, such as statuses). */
export function isMessageKey(key: string): key is MessageKey {
  return key in CATALOGUES.en;
}
