import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import { DOCUMENT_LANGUAGES } from '@paymesh/contracts';
import { MESSAGES } from '../../domain/format';
import { en } from './en';

type Element = ReturnType<IntlMessageFormat['getAst']>[number];

/** The placeholders a message uses (name and kind), nested plural branches included; throws on bad syntax. */
function placeholders(elements: Element[], into = new Set<string>()): Set<string> {
  for (const e of elements) {
    if (!('value' in e) || e.type === 0) continue; // literal text
    into.add(`${String(e.value)}:${e.type}`);
    if ('options' in e)
      for (const o of Object.values(e.options) as Array<{ value: Element[] }>) placeholders(o.value, into);
  }
  return into;
}
const parse = (text: string) => new IntlMessageFormat(text, 'en').getAst();

describe('document message files', () => {
  it('has a file for every document language', () => {
    expect(Object.keys(MESSAGES).sort()).toEqual([...DOCUMENT_LANGUAGES].sort());
  });

  for (const language of DOCUMENT_LANGUAGES) {
    it(`${language}: every key of every other language, non-empty, with the same placeholders`, () => {
      const file = MESSAGES[language];
      expect(Object.keys(file).sort()).toEqual(Object.keys(en).sort());
      for (const [key, text] of Object.entries(en)) {
        const translated = file[key as keyof typeof en];
        expect(translated.trim(), `${language} ${key}`).not.toBe('');
        expect([...placeholders(parse(translated))].sort(), `${language} ${key}`).toEqual(
          [...placeholders(parse(text))].sort(),
        );
      }
    });
  }
});
