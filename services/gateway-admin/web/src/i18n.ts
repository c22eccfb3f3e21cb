import { useSyncExternalStore } from 'react';
import en from '../messages/en.json';
import de from '../messages/de.json';

export const LANGUAGES = ['en', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];
export type MessageKey = keyof typeof en;

/** German must have every English key: a missing one fails the type check. */
const CATALOGUES: Record<Language, Record<MessageKey, string>> = { en, de };
const LOCALES: Record<Language, string> = { en: 'en-GB', de: 'de-DE' };
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

export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

/** The text of `key` in `lang`, `{name}` placeholders filled from `params`. */
export function translate(lang: Language, key: MessageKey, params: Record<string, string | number> = {}): string {
  return CATALOGUES[lang][key].replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? String(params[name]) : m));
}

/** The current language, its locale (for Intl) and the translate function; re-renders on a switch. */
export function useI18n(): { lang: Language; locale: string; t: Translate } {
  const lang = useSyncExternalStore(subscribe, () => current);
  return { lang, locale: LOCALES[lang], t: (key, params) => translate(lang, key, params) };
}

/** Whether `key` names a message (for keys built from API values, such as statuses). */
export function isMessageKey(key: string): key is MessageKey {
  return key in en;
}
