import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { MailCatcherClient } from '../support/mail-catcher';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';

/** Registered with the VIES sandbox (sandboxes/vies/README.md): a German business and an Austrian seller. */
const BUYER_VAT_ID = 'DE321571435';
const SELLER_VAT_ID = 'ATU31989140';
const IBAN = 'AT611904300234573201';
const IBAN_PRINTED = 'AT61 1904 3002 3457 3201';

interface Pdf {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

/**
 * Invoice, pro forma and credit-note PDFs end to end: Admin API -> billing (document view from the
 * snapshot) -> documents (Chromium, stored per version) -> back as `application/pdf`, read with
 * poppler like a merchant's reader would; and the PDF as the e-mail attachment.
 */
describe('document PDFs over the Admin API', () => {
  let mesh: TestMesh;
  let A: BootstrapResult;
  let B: BootstrapResult;
  let catcher: MailCatcherClient;
  let clientId: string;
  const dir = mkdtempSync(join(tmpdir(), 'documents-pdf-'));
  const adm = (path: string) => `${mesh.adminBaseUrl}${path}`;
  const post = (path: string, body: unknown = {}, token = A.apiKey) => api('POST', adm(path), { token, body });
  const get = (path: string, token = A.apiKey) => api('GET', adm(path), { token });

  async function pdf(method: 'GET' | 'POST', path: string, token = A.apiKey): Promise<Pdf> {
    const res = await fetch(adm(path), { method, headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  }

  function poppler(tool: 'pdftotext' | 'pdfinfo', bytes: Buffer): string {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.pdf`);
    writeFileSync(file, bytes);
    return execFileSync(tool, tool === 'pdftotext' ? ['-layout', file, '-'] : [file], { encoding: 'utf8' });
  }

  async function draft(over: Record<string, unknown> = {}): Promise<string> {
    const res = await post('/invoices', {
      siteId: A.siteId,
      clientId,
      currency: 'EUR',
      paymentTermsDays: 14,
      servicePeriod: { start: '2026-10-01', end: '2026-10-31' },
      items: [
        {
          description: 'Platform licence, October',
          quantity: 2,
          unitPrice: 12_500,
          amountType: 'net',
          itemType: 'service',
        },
      ],
      ...over,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  }

  async function issue(id: string): Promise<string> {
    const res = await post(`/invoices/${id}/issue`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.number as string;
  }

  beforeAll(async () => {
    mesh = await startTestMesh();
    const url = mesh.sandboxUrls['sandbox-mail'];
    if (!url) throw new Error('the mail catcher did not start with the mesh');
    catcher = new MailCatcherClient(url);
    A = await mesh.bootstrap();
    B = await mesh.bootstrap();
    const tax = await api('PUT', adm('/organizations/settings/tax'), {
      token: A.apiKey,
      body: { homeCountry: 'AT', vatId: SELLER_VAT_ID, viesEnabled: true },
    });
    expect(tax.status, JSON.stringify(tax.body)).toBe(200);
    const invoicing = await api('PUT', adm('/organizations/settings/invoicing'), {
      token: A.apiKey,
      body: {
        companyName: 'Alpenblick Handels GmbH',
        companyAddress: { street: 'Mariahilfer Straße 10', city: 'Wien', postalCode: '1070', country: 'AT' },
        companyEmail: 'billing@alpenblick.example',
        bankIBAN: { plaintext: IBAN },
      },
    });
    expect(invoicing.status, JSON.stringify(invoicing.body)).toBe(200);
    const site = await api('PUT', adm(`/sites/${A.siteId}`), {
      token: A.apiKey,
      body: { name: 'Alpenblick Store', branding: { primaryColor: '#0a6e4f' } },
    });
    expect(site.status, JSON.stringify(site.body)).toBe(200);
    const client = await post('/clients', {
      name: 'Nordlicht Software GmbH',
      email: 'buchhaltung@nordlicht.example',
      address: { street: 'Hafenstraße 3', city: 'Hamburg', postalCode: '20457', country: 'DE' },
      taxInfo: { taxId: { plaintext: BUYER_VAT_ID }, taxIdType: 'vat', taxCountry: 'DE' },
    });
    expect(client.status, JSON.stringify(client.body)).toBe(201);
    clientId = client.body.id as string;
  });

  afterAll(async () => {
    await mesh?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints a reverse-charge invoice to a German business: A4, number, parties, VAT IDs, totals, note, full IBAN', async () => {
    const id = await draft();
    const number = await issue(id);
    const res = await pdf('GET', `/invoices/${id}/pdf`);
    expect(res.status, res.bytes.toString('utf8', 0, 300)).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(
      `inline; filename="${number.replace(/[^A-Za-z0-9._-]/g, '_')}.pdf"`,
    );
    expect(res.headers.get('x-document-rendered')).toBe('true');
    expect(res.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');

    const info = poppler('pdfinfo', res.bytes);
    expect(info).toMatch(/^Pages:\s+1$/m);
    expect(info).toMatch(/^Page size:.*\(A4\)/m);
    const text = poppler('pdftotext', res.bytes);
    for (const s of [
      'Invoice',
      number,
      'Alpenblick Store',
      'Alpenblick Handels GmbH',
      'Mariahilfer Straße 10',
      SELLER_VAT_ID,
      'Nordlicht Software GmbH',
      'Hafenstraße 3',
      BUYER_VAT_ID,
      '2026-10-01',
      '2026-10-31',
      '€250.00',
      'Reverse charge',
      'Article 196',
      'Payable within 14 days',
      IBAN_PRINTED,
    ]) {
      expect(text, s).toContain(s);
    }
    // Reverse charge: no VAT charged.
    expect(text).toMatch(/VAT 0 % on €250\.00\s+€0\.00/);
  });

  it('serves the stored PDF again without rendering, renders again on regenerate, and after a correction', async () => {
    const id = await draft();
    await issue(id);
    const first = await pdf('GET', `/invoices/${id}/pdf`);
    expect(first.headers.get('x-document-rendered')).toBe('true');
    const second = await pdf('GET', `/invoices/${id}/pdf`);
    expect(second.status).toBe(200);
    expect(second.headers.get('x-document-rendered')).toBe('false');
    expect(second.bytes.equals(first.bytes)).toBe(true);

    const regenerated = await pdf('POST', `/invoices/${id}/regenerate-pdf`);
    expect(regenerated.status).toBe(200);
    expect(regenerated.headers.get('content-type')).toBe('application/pdf');
    expect(regenerated.headers.get('x-document-rendered')).toBe('true');
    const third = await pdf('GET', `/invoices/${id}/pdf`);
    expect(third.headers.get('x-document-rendered')).toBe('false');
    expect(third.bytes.equals(regenerated.bytes)).toBe(true);

    // A correction of the buyer changes what is printed: a new version, rendered on the next request.
    const corrected = await post(`/invoices/${id}/correct`, {
      reason: 'new company name',
      changes: { client: { name: 'Nordlicht Systems GmbH' } },
    });
    expect(corrected.status, JSON.stringify(corrected.body)).toBe(200);
    const after = await pdf('GET', `/invoices/${id}/pdf`);
    expect(after.headers.get('x-document-rendered')).toBe('true');
    const text = poppler('pdftotext', after.bytes);
    expect(text).toContain('Nordlicht Systems GmbH');
    expect(text).not.toContain('Nordlicht Software GmbH');
  });

  it('gives a draft its pro forma, never a number', async () => {
    const id = await draft({ notes: 'Valid for 30 days.' });
    const res = await pdf('GET', `/invoices/${id}/pdf`);
    expect(res.status).toBe(200);
    const label = `PROFORMA-${id.slice(-8).toUpperCase()}`;
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="${label}.pdf"`);
    const text = poppler('pdftotext', res.bytes);
    for (const s of [
      'Pro forma invoice',
      label,
      'not a tax invoice',
      'Nordlicht Software GmbH',
      BUYER_VAT_ID,
      '€250.00',
      'Valid for 30 days.',
    ])
      expect(text, s).toContain(s);
    expect((await get(`/invoices/${id}`)).body.status).toBe('draft');
  });

  it('keeps a void invoice downloadable and prints its credit note', async () => {
    const id = await draft();
    const number = await issue(id);
    const voided = await post(`/invoices/${id}/void`, { reason: 'ordered twice' });
    expect(voided.status, JSON.stringify(voided.body)).toBe(200);
    const invoice = await pdf('GET', `/invoices/${id}/pdf`);
    expect(invoice.status).toBe(200);
    const invoiceText = poppler('pdftotext', invoice.bytes);
    expect(invoiceText).toContain(number);
    expect(invoiceText).toContain('voided');

    const creditNoteId = voided.body.creditNoteIds[0] as string;
    const note = (await get(`/credit-notes/${creditNoteId}`)).body;
    const res = await pdf('GET', `/credit-notes/${creditNoteId}/pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(
      `inline; filename="${(note.number as string).replace(/[^A-Za-z0-9._-]/g, '_')}.pdf"`,
    );
    const text = poppler('pdftotext', res.bytes);
    for (const s of [
      'Credit note',
      note.number as string,
      number,
      'Nordlicht Software GmbH',
      BUYER_VAT_ID,
      '€250.00',
      'ordered twice',
    ])
      expect(text, s).toContain(s);
    expect(text).not.toContain(IBAN_PRINTED);
    expect((await pdf('GET', `/credit-notes/${creditNoteId}/pdf`)).headers.get('x-document-rendered')).toBe('false');
  });

  it("answers 404 for unknown ids and another organization's documents, 400 for malformed ids", async () => {
    const unknown = '0'.repeat(24);
    const id = await draft();
    await issue(id);
    for (const [method, path] of [
      ['GET', `/invoices/${unknown}/pdf`],
      ['POST', `/invoices/${unknown}/regenerate-pdf`],
      ['GET', `/credit-notes/${unknown}/pdf`],
      ['GET', `/credit-notes/${id}/pdf`],
    ] as const) {
      const res = await api(method, adm(path), { token: A.apiKey });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error).toBeTruthy();
    }
    expect((await api('GET', adm(`/invoices/${id}/pdf`), { token: B.apiKey })).status).toBe(404);
    expect((await api('POST', adm(`/invoices/${id}/regenerate-pdf`), { token: B.apiKey })).status).toBe(404);
    expect((await api('GET', adm('/invoices/not-an-id/pdf'), { token: A.apiKey })).status).toBe(400);
  });

  it('attaches the PDF to the invoice e-mail', async () => {
    const id = await draft();
    const number = await issue(id);
    const res = await post(`/invoices/${id}/send-email`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [message] = await eventually(async () => {
      const got = await catcher.to('buchhaltung@nordlicht.example');
      const mine = got.filter((m) => m.subject.includes(number));
      return mine.length > 0 ? mine : undefined;
    }, 20_000);
    if (!message) throw new Error('no message');
    expect(message.attachments.map((a) => [a.filename, a.contentType])).toEqual([
      [`${number.replace(/[^A-Za-z0-9._-]/g, '_')}.pdf`, 'application/pdf'],
    ]);
    const bytes = await catcher.attachmentBytes(message, 0);
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = poppler('pdftotext', bytes);
    expect(text).toContain(number);
    expect(text).toContain(IBAN_PRINTED);
  });
});
