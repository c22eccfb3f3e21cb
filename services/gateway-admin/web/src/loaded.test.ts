import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { beforeAll, describe, expect, it, vi } from 'vitest';

// The screens' language hook reads the browser's stored choice through a store React renders on the
// client only; here it is English.
vi.mock('./i18n', async () => {
  const { CATALOGUES, translate } = await import('./messages');
  return {
    useI18n: () => ({ lang: 'en', locale: 'en-GB', t: (key: never, params?: never) => translate('en', key, params) }),
    isMessageKey: (key: string) => key in CATALOGUES.en,
  };
});

let Loaded: typeof import('./ui').Loaded;

beforeAll(async () => {
  // The API client reads the page's origin when it loads.
  vi.stubGlobal('location', { origin: 'http://localhost' });
  ({ Loaded } = await import('./ui'));
});

const render = (q: { data?: string[]; error: unknown; isPending: boolean; isError: boolean }) =>
  renderToStaticMarkup(
    createElement(Loaded<string[]>, { q, children: (items: string[]) => createElement('ul', null, items.join(',')) }),
  );

describe('Loaded', () => {
  it('shows the loading line while the first read runs', () => {
    expect(render({ error: null, isPending: true, isError: false })).toBe(
      '<p role="status" class="muted">Loading…</p>',
    );
  });

  it('shows the content of a read that answered', () => {
    expect(render({ data: ['a', 'b'], error: null, isPending: false, isError: false })).toBe('<ul>a,b</ul>');
  });

  it('shows only the error note when the first read failed', () => {
    const html = render({ error: new Error('offline'), isPending: false, isError: true });
    expect(html).toContain('role="alert"');
    expect(html).toContain('offline');
    expect(html).not.toContain('<ul>');
  });

  it('keeps the content of the last read under the error note when a read again failed', () => {
    const html = render({ data: ['a'], error: new Error('offline'), isPending: false, isError: true });
    expect(html).toMatch(/^<div role="alert" class="notice error"><p>.*offline.*<\/p><\/div><ul>a<\/ul>$/);
  });
});
