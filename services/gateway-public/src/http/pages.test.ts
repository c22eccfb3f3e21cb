import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkoutShell, pageLanguage, PAGE_LANGUAGES, WEB_DIR, type WebPages } from './pages';

const messagesOf = (lang: string): Record<string, string> =>
  JSON.parse(readFileSync(join(WEB_DIR, 'messages', `${lang}.json`), 'utf8'));

describe('buyer page language', () => {
  it('takes ?lang= first, then the best Accept-Language match, else English', () => {
    expect(pageLanguage({ lang: 'de' }, 'en-US')).toBe('de');
    expect(pageLanguage({ lang: 'DE' }, undefined)).toBe('de');
    expect(pageLanguage({ lang: 'fr' }, 'de-AT,de;q=0.9')).toBe('de');
    expect(pageLanguage({}, 'fr-FR,fr;q=0.9,de;q=0.5,en;q=0.4')).toBe('de');
    expect(pageLanguage({}, 'fr-FR')).toBe('en');
    expect(pageLanguage(undefined, undefined)).toBe('en');
  });

  it('has every text in every language', () => {
    const keys = Object.keys(messagesOf('en')).sort();
    for (const lang of PAGE_LANGUAGES) {
      const m = messagesOf(lang);
      expect(Object.keys(m).sort(), lang).toEqual(keys);
      expect(
        Object.values(m).every((v) => typeof v === 'string' && v.trim() !== ''),
        lang,
      ).toBe(true);
    }
  });
});

describe('checkout shell', () => {
  const pages = (messages: Record<string, string>): WebPages => ({
    assetsDir: '/nowhere',
    manifest: { checkout: { js: 'checkout-ABC.js', css: 'checkout-DEF.css' } },
    messages: { en: messages, de: messagesOf('de') },
  });

  it('links the hashed assets relative to the page and has no inline script or style', () => {
    const html = checkoutShell(pages(messagesOf('en')), 'en');
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<script type="module" src="../assets/checkout-ABC.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="../assets/checkout-DEF.css">');
    expect(html).not.toMatch(/\sstyle=|<style/);
    expect(html.match(/<script/g)).toHaveLength(2);
    // Every form control has a label.
    for (const id of ['name', 'email', 'line1', 'postalCode', 'city', 'country', 'vatId'])
      expect(html).toContain(`<label for="${id}">`);
  });

  it('escapes texts in the markup and cannot be broken out of by the embedded messages', () => {
    const hostile = {
      ...messagesOf('en'),
      title: '<img src=x onerror=alert(1)>',
      heading: '</script><script>alert(1)</script>',
    };
    const html = checkoutShell(pages(hostile), 'en');
    expect(html).toContain('<title>&lt;img src=x onerror=alert(1)&gt;</title>');
    expect(html).not.toContain('</script><script>alert(1)');
    const json = /<script type="application\/json" id="messages">(.*)<\/script>/.exec(html)?.[1] ?? '';
    expect(JSON.parse(json).heading).toBe('</script><script>alert(1)</script>');
  });
});
