import { describe, expect, it } from 'vitest';
import { composeDocumentEmail, type DocumentForEmail } from './document-email';
import { emailEInvoiceFormat } from './email-einvoice';
import { pdfFileNameOf } from './invoice';
import { defaultInvoicingSettings } from './invoicing-settings';

const invoice: DocumentForEmail = {
  kind: 'invoice',
  number: 'INV-2025/0007',
  issueDate: '2025-03-01',
  dueDate: '2025-03-15',
  currency: 'EUR',
  sellerName: 'Acme <GmbH>',
  buyerName: 'Buyer & Co',
  amountDue: 11900,
  invoiceNumber: null,
  paymentUrl: 'https://pay.example/i/1',
  message: null,
};

describe('document e-mail', () => {
  it('names the invoice and company in the subject and gives amount due, due date and payment link', () => {
    const m = composeDocumentEmail({ ...invoice, message: 'Thanks for your order!' });
    expect(m.subject).toBe('Invoice INV-2025/0007 from Acme <GmbH>');
    expect(m.text.split('\n')[0]).toBe('Thanks for your order!');
    expect(m.text).toContain('Amount due: €119.00');
    expect(m.text).toContain('Due date: 2025-03-15');
    expect(m.text).toContain('Pay online: https://pay.example/i/1');
    expect(m.text).toContain('The invoice is attached as a PDF.');
    expect(m.text).not.toContain('e-invoice');
  });

  it('writes the same content as HTML, every value escaped', () => {
    const m = composeDocumentEmail({ ...invoice, message: 'Thanks <b>!</b>' });
    expect(m.html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(m.html).toContain('Acme &lt;GmbH&gt;');
    expect(m.html).toContain('Hello Buyer &amp; Co,');
    expect(m.html).toContain('Thanks &lt;b&gt;!&lt;/b&gt;');
    expect(m.html).toContain('<strong>€119.00</strong>');
    expect(m.html).toContain('href="https://pay.example/i/1"');
    expect(m.html).not.toContain('<GmbH>');
  });

  it('writes German with German amounts and dates, naming the attached e-invoice', () => {
    const m = composeDocumentEmail({ ...invoice, language: 'de', amountDue: 123456, einvoice: 'xrechnung' });
    expect(m.subject).toBe('Rechnung INV-2025/0007 von Acme <GmbH>');
    expect(m.text).toContain('Guten Tag Buyer & Co,');
    expect(m.text).toContain('anbei erhalten Sie die Rechnung INV-2025/0007 vom 01.03.2025.');
    expect(m.text).toContain('Zu zahlender Betrag: 1.234,56\u00a0€');
    expect(m.text).toContain('Fällig am: 15.03.2025');
    expect(m.text).toContain('Online bezahlen: https://pay.example/i/1');
    expect(m.text).toContain('Die E-Rechnung im Format XRechnung (XML) ist ebenfalls angehängt.');
    expect(m.text).toContain('Mit freundlichen Grüßen\nAcme <GmbH>');
    expect(m.html).toContain('<html lang="de">');
    expect(m.html).toContain('Zu zahlender Betrag');
  });

  it('offers the PDF as <number>.pdf, characters unsafe in a file name replaced', () => {
    expect(pdfFileNameOf('INV-2025/0007')).toBe('INV-2025_0007.pdf');
    expect(pdfFileNameOf('CN-1')).toBe('CN-1.pdf');
    expect(pdfFileNameOf('A"B\\C D')).toBe('A_B_C_D.pdf');
  });

  it('words a credit note as a credit and names the invoice it corrects', () => {
    const m = composeDocumentEmail({
      ...invoice,
      kind: 'credit_note',
      number: 'CN-1',
      dueDate: null,
      paymentUrl: null,
      invoiceNumber: 'INV-2025/0007',
    });
    expect(m.subject).toBe('Credit note CN-1 from Acme <GmbH>');
    expect(m.text).toContain('Amount credited: €119.00');
    expect(m.text).toContain('It corrects invoice INV-2025/0007.');
    expect(m.text).not.toContain('Pay online');
    expect(m.text).toContain('The credit note is attached as a PDF.');
    const de = composeDocumentEmail({
      ...invoice,
      kind: 'credit_note',
      number: 'CN-1',
      invoiceNumber: 'INV-7',
      language: 'de',
    });
    expect(de.subject).toBe('Rechnungskorrektur CN-1 von Acme <GmbH>');
    expect(de.text).toContain('Sie korrigiert die Rechnung INV-7.');
  });
});

describe('e-invoice of a document e-mail', () => {
  const settings = defaultInvoicingSettings();
  const on = { ...settings, eInvoice: { ...settings.eInvoice, enabled: true, emailFormat: 'xrechnung' as const } };

  it("follows the client's own choice, enforcing the organization's allowed formats for it", () => {
    expect(emailEInvoiceFormat(on, { eInvoiceFormat: 'zugferd', business: false })).toEqual({
      format: 'zugferd',
      enforce: true,
    });
    expect(emailEInvoiceFormat(on, { eInvoiceFormat: 'none', business: true })).toBeNull();
    // E-invoices disabled: none, whatever the client chose.
    expect(emailEInvoiceFormat(settings, { eInvoiceFormat: 'zugferd', business: true })).toBeNull();
  });

  it("otherwise attaches the organization's format to business clients only, while enabled and allowed", () => {
    expect(emailEInvoiceFormat(on, { eInvoiceFormat: null, business: true })).toEqual({
      format: 'xrechnung',
      enforce: false,
    });
    expect(emailEInvoiceFormat(on, { eInvoiceFormat: null, business: false })).toBeNull();
    expect(emailEInvoiceFormat(settings, { eInvoiceFormat: null, business: true })).toBeNull();
    const disallowed = { ...on, eInvoice: { ...on.eInvoice, allowedFormats: ['zugferd' as const] } };
    expect(emailEInvoiceFormat(disallowed, { eInvoiceFormat: null, business: true })).toBeNull();
    const disabled = { ...on, eInvoice: { ...on.eInvoice, enabled: false } };
    expect(emailEInvoiceFormat(disabled, { eInvoiceFormat: null, business: true })).toBeNull();
  });
});
