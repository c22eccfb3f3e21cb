import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { invoice, testRenderer } from './fixtures';
import { renderDocumentPdf } from '../src/app/render-document';
import { renderHtml } from '../src/render/templates';

const dir = mkdtempSync(join(tmpdir(), 'pdf-test-'));
const renderer = testRenderer({ pages: 2, maxQueue: 8 });
afterAll(() => renderer.close());

function poppler(tool: 'pdftotext' | 'pdfinfo', pdf: Buffer, name: string): string {
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, pdf);
  return execFileSync(tool, tool === 'pdftotext' ? ['-layout', file, '-'] : [file], { encoding: 'utf8' });
}

const pagesOf = (info: string) => Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]);

describe('PDF rendering in Chromium', () => {
  it('renders an invoice a reader can check: number, dates, parties, totals, reverse-charge note, IBAN', async () => {
    const pdf = await renderDocumentPdf(renderer, invoice());
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pagesOf(poppler('pdfinfo', pdf, 'invoice'))).toBe(1);
    const text = poppler('pdftotext', pdf, 'invoice');
    for (const s of [
      'Invoice',
      'INV-2027-00042',
      '2027-03-15',
      '2027-02-01',
      'Société Exemple SARL',
      'FR40303265045',
      'DE123456789',
      '€1,349.97',
      '€149.97',
      'Reverse charge',
      'DE89 3704 0044 0532 0130 00',
      'Payable within 14 days',
    ])
      expect(text).toContain(s);
    // Values are text, never markup.
    expect(text).toContain('Licence <b>seat</b>');
  });

  it('renders a payment reminder of an open invoice: outstanding amount, days overdue, IBAN and the payment link', async () => {
    const pdf = await renderDocumentPdf(
      renderer,
      invoice({
        kind: 'reminder',
        reminder: { amountDue: 84_997, daysOverdue: 12, paymentUrl: 'https://pay.example/c/abc123' },
      }),
    );
    const text = poppler('pdftotext', pdf, 'reminder');
    for (const s of [
      'Payment reminder',
      'INV-2027-00042',
      'Outstanding: €849.97',
      'due since 2027-03-15 (12 days)',
      'has not been paid in full',
      'DE89 3704 0044 0532 0130 00',
      'https://pay.example/c/abc123',
      'Invoice total',
    ])
      expect(text).toContain(s);
    expect(pagesOf(poppler('pdfinfo', pdf, 'reminder'))).toBe(1);
  });

  it("prints the site's name and colour as branding, and remarks with their line breaks", async () => {
    const view = invoice({
      branding: { name: 'Muster <Store>', primaryColor: '#0a6e4f' },
      remarks: 'First line.\nSecond line.',
    });
    const html = renderHtml(view);
    expect(html).toContain('--accent: #0a6e4f');
    expect(html).toContain('Muster &lt;Store&gt;');
    const text = poppler('pdftotext', await renderDocumentPdf(renderer, view), 'branded');
    expect(text).toContain('Muster <Store>');
    expect(text).toMatch(/First line\.\s*\n\s*Second line\./);
  });

  it('prints the per-rate tax breakdown and currencies without decimals', async () => {
    const view = invoice({
      currency: 'JPY',
      lines: [
        {
          description: 'Books',
          quantity: 2,
          unitPrice: 1_000,
          net: 2_000,
          tax: 160,
          gross: 2_160,
          taxRate: 8,
          decision: 'domestic',
        },
        {
          description: 'Service',
          quantity: 1,
          unitPrice: 5_000,
          net: 5_000,
          tax: 500,
          gross: 5_500,
          taxRate: 10,
          decision: 'domestic',
        },
      ],
      taxBreakdown: [
        { taxRate: 8, taxRateCode: 'JP-R', taxableBase: 2_000, taxAmount: 160 },
        { taxRate: 10, taxRateCode: 'JP-S', taxableBase: 5_000, taxAmount: 500 },
      ],
      totals: { net: 7_000, tax: 660, gross: 7_660 },
    });
    const text = poppler('pdftotext', await renderDocumentPdf(renderer, view), 'jpy');
    expect(text).toMatch(/VAT 8 % on JP¥2,000\s+JP¥160/);
    expect(text).toMatch(/VAT 10 % on JP¥5,000\s+JP¥500/);
    expect(text).toContain('JP¥7,660');
    expect(text).not.toContain('Reverse charge');
  });

  it('renders a pro forma for a draft and a credit note naming its invoice', async () => {
    const proforma = poppler(
      'pdftotext',
      await renderDocumentPdf(renderer, invoice({ kind: 'proforma', number: 'PROFORMA-ab12cd34', issueDate: null })),
      'proforma',
    );
    expect(proforma).toContain('Pro forma invoice');
    expect(proforma).toContain('PROFORMA-ab12cd34');
    expect(proforma).toContain('not a tax invoice');
    const credit = poppler(
      'pdftotext',
      await renderDocumentPdf(
        renderer,
        invoice({ kind: 'credit_note', number: 'CN-2027-00007', invoiceNumber: 'INV-2027-00042', dueDate: null }),
      ),
      'credit',
    );
    expect(credit).toContain('Credit note');
    expect(credit).toContain('CN-2027-00007');
    expect(credit).toMatch(/Credits invoice\s+INV-2027-00042/i);
    expect(credit).toContain('Total credited');
    expect(credit).not.toContain('IBAN');
  });

  it('flows long invoices onto more A4 pages and renders in parallel', async () => {
    const line = {
      description: 'Usage',
      quantity: 1,
      unitPrice: 100,
      net: 100,
      tax: 19,
      gross: 119,
      taxRate: 19,
      decision: 'domestic' as const,
    };
    const long = invoice({
      lines: Array.from({ length: 120 }, (_, i) => ({ ...line, description: `Usage day ${i + 1}` })),
    });
    const pdfs = await Promise.all([
      renderDocumentPdf(renderer, long),
      renderDocumentPdf(renderer, invoice()),
      renderDocumentPdf(renderer, invoice()),
    ]);
    const info = poppler('pdfinfo', pdfs[0]!, 'long');
    expect(pagesOf(info)).toBeGreaterThanOrEqual(3);
    expect(info).toMatch(/Page size:.*\(A4\)/);
    expect(poppler('pdftotext', pdfs[0]!, 'long')).toContain('Usage day 120');
  });

  it('starts Chromium again after it died', async () => {
    const first = await renderDocumentPdf(renderer, invoice());
    expect(first.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const proc = await renderer.browserProcess();
    expect(proc?.pid).toBeGreaterThan(0);
    const exited = new Promise((resolve) => proc!.once('exit', resolve));
    proc!.kill('SIGKILL');
    await exited;
    const again = poppler(
      'pdftotext',
      await renderDocumentPdf(renderer, invoice({ number: 'INV-2027-00043' })),
      'again',
    );
    expect(again).toContain('INV-2027-00043');
  });
});
