import { createLogger } from '@paymesh/core';
import type { DocumentView } from '@paymesh/contracts';
import { PdfRenderer } from '../src/render/pdf-renderer';

/** A PDF renderer for the tests: Chromium from CHROMIUM_PATH (default /usr/bin/chromium), logging nothing. */
export function testRenderer(size: { pages: number; maxQueue: number }): PdfRenderer {
  return new PdfRenderer({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    ...size,
    timeoutMs: 20_000,
    logger: createLogger({ service: 'documents-test', level: 'silent' }),
  });
}

/** A reverse-charge invoice from a German seller to a French business. */
export function invoice(over: Partial<DocumentView> = {}): DocumentView {
  return {
    kind: 'invoice',
    number: 'INV-2027-00042',
    issueDate: '2027-03-01',
    dueDate: '2027-03-15',
    servicePeriod: { start: '2027-02-01', end: '2027-02-28' },
    currency: 'EUR',
    seller: {
      name: 'Muster Software GmbH',
      address: { street: 'Hauptstraße 5', city: 'Berlin', postalCode: '10115', country: 'DE' },
      email: 'billing@muster.example',
      vatId: 'DE123456789',
      iban: 'DE89370400440532013000',
    },
    buyer: {
      name: 'Société Exemple SARL',
      address: { street: '12 rue de la Paix', city: 'Paris', postalCode: '75002', country: 'FR' },
      email: null,
      vatId: 'FR40303265045',
    },
    lines: [
      {
        description: 'Consulting, February',
        quantity: 10,
        unitPrice: 12_000,
        net: 120_000,
        tax: 0,
        gross: 120_000,
        taxRate: 0,
        decision: 'reverse_charge',
      },
      {
        description: 'Licence <b>seat</b>',
        quantity: 3,
        unitPrice: 4_999,
        net: 14_997,
        tax: 0,
        gross: 14_997,
        taxRate: 0,
        decision: 'reverse_charge',
      },
    ],
    taxBreakdown: [{ taxRate: 0, taxRateCode: 'RC', taxableBase: 134_997, taxAmount: 0 }],
    totals: { net: 134_997, tax: 0, gross: 134_997 },
    paymentTermsDays: 14,
    invoiceNumber: null,
    remarks: 'Thank you for your business.',
    ...over,
  };
}
