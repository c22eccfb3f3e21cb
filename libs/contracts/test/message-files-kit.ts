import { expect, it } from 'vitest';
import { DOCUMENT_LANGUAGES, type DocumentLanguage } from '../src/settings';

/**
 * The checks every service's translated message files share (a test kit: imported by tests only).
 * Messages are ICU MessageFormat; the caller passes its parser (intl-messageformat's AST), so this
 * kit needs no dependency of its own.
 */

/** The placeholders a parsed message uses (name and kind), nested plural branches included. */
export function placeholders(elements: readonly unknown[], into = new Set<string>()): Set<string> {
  for (const e of elements) {
    if (typeof e !== 'object' || e === null || !('value' in e) || !('type' in e) || e.type === 0) continue; // literal text
    into.add(`${String(e.value)}:${String(e.type)}`);
    if (!('options' in e) || typeof e.options !== 'object' || e.options === null) continue;
    for (const o of Object.values(e.options))
      if (typeof o === 'object' && o !== null && 'value' in o && Array.isArray(o.value)) placeholders(o.value, into);
  }
  return into;
}

/**
 * Declares the tests of a set of message files: one file per document language, and each has every
 * key of the English one, non-empty, with the same placeholders (`parse` throws on bad syntax).
 */
export function itChecksMessageFiles(
  files: Record<DocumentLanguage, Readonly<Record<string, string>>>,
  en: Readonly<Record<string, string>>,
  parse: (text: string) => readonly unknown[],
): void {
  it('has a file for every document language', () => {
    expect(Object.keys(files).sort()).toEqual([...DOCUMENT_LANGUAGES].sort());
  });

  for (const language of DOCUMENT_LANGUAGES) {
    it(`${language}: every key of every other language, non-empty, with the same placeholders`, () => {
      const file = files[language];
      expect(Object.keys(file).sort()).toEqual(Object.keys(en).sort());
      for (const [key, text] of Object.entries(en)) {
        const translated = file[key] ?? '';
        expect(translated.trim(), `${language} ${key}`).not.toBe('');
        expect([...placeholders(parse(translated))].sort(), `${language} ${key}`).toEqual(
          [...placeholders(parse(text))].sort(),
        );
      }
    });
  }
}
