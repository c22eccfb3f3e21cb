import { describe, expect, it } from 'vitest';
import { composeDocumentEmail, formatMoney, type DocumentForEmail } from './document-email';
import { pdfFileNameOf } from './invoice';

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
  it("formats minor units with the currency's decimals", () => {
    expect(formatMoney(1250, 'EUR')).toBe('12.50 EUR');
    expect(formatMoney(1250, 'JPY')).toBe('1250 JPY');
    expect(formatMoney(1250, 'BHD')).toBe('1.250 BHD');
    expect(formatMoney(-5, 'EUR')).toBe('-0.05 EUR');
  });

  it('names the invoice and company in the subject and gives amount due, due date and payment link', () => {
    const m = composeDocumentEmail({ ...invoice, message: 'Thanks for your order!' });
    expect(m.subject).toBe('Invoice INV-2025/0007 from Acme <GmbH>');
    expect(m.text.split('\n')[0]).toBe('Thanks for your order!');
    expect(m.text).toContain('Amount due: 119.00 EUR');
    expect(m.text).toContain('Due date: 2025-03-15');
    expect(m.text).toContain('Pay online: https://pay.example/i/1');
    expect(m.text).toContain('The invoice is attached as a PDF.');
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
    expect(m.text).toContain('Amount credited: 119.00 EUR');
    expect(m.text).toContain('It corrects invoice INV-2025/0007.');
    expect(m.text).not.toContain('Pay online');
    expect(m.text).toContain('The credit note is attached as a PDF.');
  });
});
