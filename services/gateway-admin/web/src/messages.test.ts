import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import { CATALOGUES, COUNT_PARAMS, LANGUAGES, LOCALES, translate, type MessageKey } from './messages';

const KEYS = Object.keys(CATALOGUES.en) as MessageKey[];
const COUNTED = new Set<string>(Object.keys(COUNT_PARAMS));

/** How the dashboard filled its messages before they were ICU messages. */
function replaced(text: string, params: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? String(params[name]) : m));
}

function placeholders(text: string): string[] {
  return [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '');
}

type Element = ReturnType<IntlMessageFormat['getAst']>[number];
/** Element types of the ICU parser (@formatjs/icu-messageformat-parser's TYPE). */
const NUMBER = 2;
const PLURAL = 6;

/** The arguments of a message that are formatted as numbers (plural or number), nested ones too. */
function counted(elements: Element[], into = new Set<string>()): Set<string> {
  for (const el of elements) {
    if (el.type === NUMBER || el.type === PLURAL) into.add(el.value);
    if ('options' in el) for (const option of Object.values(el.options)) counted(option.value, into);
  }
  return into;
}

describe('translate', () => {
  it('reads every message of both catalogues as it did before, apostrophes, braces and hashes as written', () => {
    for (const lang of LANGUAGES)
      for (const key of KEYS) {
        if (COUNTED.has(key)) continue;
        const text = CATALOGUES[lang][key];
        const names = placeholders(text);
        const words = Object.fromEntries(names.map((n) => [n, `‹${n}› it's {x} #1`]));
        const numbers = Object.fromEntries(names.map((n, i) => [n, 1000 + i]));
        expect(translate(lang, key, words), `${lang} ${key}`).toBe(replaced(text, words));
        expect(translate(lang, key, numbers), `${lang} ${key}`).toBe(replaced(text, numbers));
        // A parameter not given stays as written.
        expect(translate(lang, key), `${lang} ${key}`).toBe(text);
      }
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
});

/** Every argument name of an ICU message, nested ones too. */
function placeholderNames(text: string): string[] {
  const names = new Set<string>();
  const walk = (elements: Element[]) => {
    for (const el of elements) {
      if (el.type !== 0 && el.type !== 7 && 'value' in el) names.add(el.value);
      if ('options' in el) for (const option of Object.values(el.options)) walk(option.value);
    }
  };
  walk(new IntlMessageFormat(text, 'en').getAst());
  return [...names].sort();
}
