import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DomainError, newObjectId, type Clock } from '@paymesh/core';
import type { DroppableStore } from '@paymesh/store';
import type { EInvoiceReport, RenderEInvoiceBody } from '@paymesh/contracts';
import type { OrgKey } from '../src/app/deps';
import type { InvoiceDeps } from '../src/app/invoice-deps';
import { createInvoice, renderInvoiceEInvoice, updateInvoicingSettings } from './wire';
import { issueInvoice } from '../src/app/issue-invoice';
import { listEInvoiceReports } from '../src/app/einvoice-export';
import { billingStore, dropStore, invoiceDeps, newBuyer } from './kit';
import { fakeCalculation } from './tax-fixture';

// Clients are another use case's work: the buyer lookup reads the kit's table.
vi.mock('../src/app/client-port', () => import('./kit').then((k) => k.clientPort));

const LEITWEG = '991-12345-67';

/** What the documents service answers here: the XML is not the point, the report is. */
let report: EInvoiceReport;
const asked: RenderEInvoiceBody[] = [];
const reportWith = (errors: number): EInvoiceReport => ({
  format: 'xrechnung',
  syntax: 'ubl',
  documentType: 'Invoice',
  specification: 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0',
  validator: 'test',
  valid: errors === 0,
  errors,
  warnings: 0,
  findings: Array.from({ length: errors }, (_, i) => ({
    rule: `BR-CO-${15 + i}`,
    severity: 'error' as const,
    field: 'BT-112',
    message: 'totals disagree',
  })),
  checkedAt: '2026-06-15T10:00:00.000Z',
});

describe('e-invoice generation (billing)', () => {
  let store: DroppableStore;
  let deps: InvoiceDeps;
  const clock: Clock = { now: () => new Date('2026-06-15T10:00:00Z') } as Clock;

  const ready = {
    companyName: 'Seller GmbH',
    companyAddress: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
    companyEmail: 'billing@seller.example',
    companyPhone: '+49 30 1234567',
    bankIBAN: { plaintext: 'DE89370400440532013000' },
    eInvoice: { enabled: true, strictValidation: true },
  };
  async function issuedInvoice(k: OrgKey): Promise<string> {
    const clientId = newBuyer({
      name: 'Stadt Musterhausen',
      email: 'rechnung@musterhausen.example',
      address: { street: 'Rathausplatz 1', city: 'Musterhausen', postalCode: '12345', country: 'DE' },
      peppolRoutingAddress: { schemeId: '0204', value: LEITWEG },
    });
    const body = {
      siteId: newObjectId(),
      clientId,
      currency: 'EUR',
      paymentTermsDays: 30,
      items: [{ description: 'Consulting', quantity: 2, unitPrice: 11900, amountType: 'gross', itemType: 'service' }],
    };
    const draft = await createInvoice(deps, k, JSON.stringify(body));
    return (await issueInvoice(deps, k, draft.id)).id;
  }
  const xml = JSON.stringify({ format: 'xrechnung', output: 'xml' });
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (err: unknown) =>
        err instanceof DomainError
          ? { status: err.httpStatus, code: err.code, message: err.message }
          : Promise.reject(err),
    );

  beforeAll(async () => {
    store = await billingStore('billing_einv_test');
    deps = invoiceDeps(store, clock, {
      tax: {
        settings: async () => ({ homeCountry: 'DE', vatId: 'DE123456788', viesEnabled: false }),
        calculate: async (req) => fakeCalculation(req),
      },
      checkout: { siteBranding: async () => null },
      documents: {
        renderEInvoice: async (_k, body) => {
          asked.push(body);
          return { content: Buffer.from('<Invoice/>'), contentType: 'application/xml', report };
        },
      },
    });
  });
  beforeEach(() => {
    asked.length = 0;
    report = reportWith(0);
  });
  afterAll(() => dropStore(store));

  it('builds the document from the snapshot: Leitweg-ID as buyer reference, categories, seller data, and stores the report', async () => {
    const k: OrgKey = { organizationId: newObjectId(), mode: 'live' };
    await updateInvoicingSettings(deps, k, JSON.stringify(ready));
    const id = await issuedInvoice(k);
    const file = await renderInvoiceEInvoice(deps, k, id, xml);
    expect(file).toMatchObject({ contentType: 'application/xml', fileName: 'INV-2026-00001-xrechnung.xml' });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.document).toMatchObject({
      kind: 'invoice',
      number: 'INV-2026-00001',
      buyerReference: LEITWEG,
      seller: { name: 'Seller GmbH', vatId: 'DE123456788', iban: 'DE89370400440532013000', phone: '+49 30 1234567' },
      buyer: { endpoint: { schemeId: '0204', value: LEITWEG }, vatId: null },
      lines: [{ id: '1', quantity: 2, net: 20000, tax: 3800, taxRate: 19, category: 'S' }],
      totals: { net: 20000, tax: 3800, gross: 23800 },
      paymentTerms: 'Payable within 30 days, by 2026-07-15.',
    });
    const reports = await listEInvoiceReports(deps, k, 'invoice', id);
    expect(reports.items).toEqual([
      expect.objectContaining({ format: 'xrechnung', valid: true, outcome: 'delivered', snapshotVersion: 'c0' }),
    ]);
  });

  it('strictValidation refuses an invalid XML with 422 naming the rules; off delivers it and keeps the report as a warning', async () => {
    const k: OrgKey = { organizationId: newObjectId(), mode: 'live' };
    await updateInvoicingSettings(deps, k, JSON.stringify(ready));
    const id = await issuedInvoice(k);
    report = reportWith(2);
    const refused = await failure(renderInvoiceEInvoice(deps, k, id, xml));
    expect(refused).toMatchObject({ status: 422, code: 'EINVOICE_READINESS_FAILED' });
    expect(refused!.message).toContain('BR-CO-15');
    expect(refused!.message).toContain('BR-CO-16');
    expect((await listEInvoiceReports(deps, k, 'invoice', id)).items[0]).toMatchObject({
      outcome: 'refused',
      valid: false,
      errors: 2,
    });

    await updateInvoicingSettings(deps, k, JSON.stringify({ eInvoice: { strictValidation: false } }));
    const delivered = await renderInvoiceEInvoice(deps, k, id, xml);
    expect(delivered.content.toString()).toBe('<Invoice/>');
    const [entry] = (await listEInvoiceReports(deps, k, 'invoice', id)).items;
    expect(entry).toMatchObject({ outcome: 'delivered', valid: false, errors: 2 });
  });

  it('readiness names every missing value and asks the documents service for nothing', async () => {
    const k: OrgKey = { organizationId: newObjectId(), mode: 'live' };
    await updateInvoicingSettings(deps, k, JSON.stringify({ ...ready, companyPhone: null, bankIBAN: null }));
    const id = await issuedInvoice(k);
    const xr = await failure(renderInvoiceEInvoice(deps, k, id, xml));
    expect(xr).toMatchObject({ status: 422, code: 'EINVOICE_READINESS_FAILED' });
    expect(xr!.message).toContain('invoicing.bankIBAN');
    expect(xr!.message).toContain('invoicing.companyPhone');
    const peppol = await failure(renderInvoiceEInvoice(deps, k, id, JSON.stringify({ format: 'peppol' })));
    expect(peppol!.message).toContain('invoicing.eInvoice.sellerPeppolRoutingAddress');
    expect(peppol!.message).not.toContain('companyPhone');
    expect(asked).toEqual([]);
    expect((await listEInvoiceReports(deps, k, 'invoice', id)).items).toEqual([]);
    // A PDF is the zugferd hybrid only.
    expect(
      await failure(renderInvoiceEInvoice(deps, k, id, JSON.stringify({ format: 'peppol', output: 'pdf' }))),
    ).toMatchObject({ status: 400 });
  });
});
