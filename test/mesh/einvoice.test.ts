import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { validateEInvoices } from '../support/einvoice-kit';
import { api, startTestMesh, type TestMesh } from '../support/mesh';

const SELLER_VAT = 'DE136695976';
const BUYER_VAT = 'DE812345673';
const IBAN = 'DE89370400440532013000';

/**
 * E-invoices over the Admin API: an issued invoice for a German business buyer as XRechnung UBL,
 * Peppol BIS 3.0 UBL and a Factur-X / ZUGFeRD PDF, each passing the official validation artefacts;
 * its credit note likewise; and the settings enforcement of the spec's error table.
 */
describe('e-invoices', () => {
  let mesh: TestMesh;
  let A: BootstrapResult;
  let dir: string;
  let clientId: string;
  const adm = (path: string) => `${mesh.adminBaseUrl}${path}`;
  const get = (p: string) => api('GET', adm(p), { token: A.apiKey });
  const post = (p: string, body: unknown = {}) => api('POST', adm(p), { token: A.apiKey, body });
  const put = (p: string, body: unknown) => api('PUT', adm(p), { token: A.apiKey, body });
  const file = async (p: string) => {
    const res = await fetch(adm(p), { headers: { authorization: `Bearer ${A.apiKey}` } });
    return {
      status: res.status,
      type: res.headers.get('content-type') ?? '',
      disposition: res.headers.get('content-disposition') ?? '',
      bytes: Buffer.from(await res.arrayBuffer()),
    };
  };
  const issued = async (over: Record<string, unknown> = {}) => {
    const draft = await post('/invoices', {
      siteId: A.siteId,
      clientId,
      currency: 'EUR',
      paymentTermsDays: 14,
      items: [
        { description: 'Consulting, March', quantity: 3, unitPrice: 30000, amountType: 'net', itemType: 'service' },
        { description: 'Books', quantity: 2, unitPrice: 1999, amountType: 'gross', itemType: 'goods', taxRate: 7 },
      ],
      ...over,
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const res = await post(`/invoices/${draft.body.id}/issue`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.id as string;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'einvoice-mesh-'));
    mesh = await startTestMesh();
    A = await mesh.bootstrap();
    expect(
      (await put('/organizations/settings/tax', { homeCountry: 'DE', vatId: SELLER_VAT, viesEnabled: false })).status,
    ).toBe(200);
    const settings = await put('/organizations/settings/invoicing', {
      companyName: 'Muster Software GmbH',
      companyAddress: { street: 'Hauptstraße 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
      companyEmail: 'billing@muster.example',
      companyPhone: '+49 30 1234567',
      bankIBAN: { plaintext: IBAN },
      eInvoice: {
        enabled: true,
        allowedFormats: ['xrechnung', 'peppol', 'zugferd'],
        strictValidation: true,
        sellerPeppolRoutingAddress: { schemeId: '9930', value: { plaintext: SELLER_VAT } },
      },
    });
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
    expect(settings.body.companyPhone).toBe('+49 30 1234567');
    const client = await post('/clients', {
      name: 'Käufer AG',
      email: 'rechnung@kaeufer.example',
      address: { street: 'Marktplatz 5', city: 'München', postalCode: '80331', country: 'DE' },
      taxInfo: {
        taxId: { plaintext: BUYER_VAT },
        taxIdType: 'vat',
        taxCountry: 'DE',
        peppolRoutingAddress: { schemeId: '9930', value: { plaintext: BUYER_VAT }, confirmedByBuyer: true },
      },
    });
    expect(client.status, JSON.stringify(client.body)).toBe(201);
    clientId = client.body.id as string;
  });
  afterAll(async () => {
    await mesh?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('an issued invoice for a German business buyer downloads as XRechnung, Peppol BIS and ZUGFeRD, each passing the official artefacts', async () => {
    const id = await issued();
    const xr = await file(`/invoices/${id}/xml`);
    expect(xr.status, xr.bytes.toString()).toBe(200);
    expect(xr.type).toMatch(/^application\/xml/);
    expect(xr.disposition).toMatch(/inline; filename=".+-xrechnung\.xml"/);
    expect(xr.bytes.toString()).toContain('urn:xeinkauf.de:kosit:xrechnung_3.0');
    const peppol = await file(`/invoices/${id}/xml/peppol`);
    expect(peppol.status, peppol.bytes.toString()).toBe(200);
    expect(peppol.bytes.toString()).toContain(`<cbc:EndpointID schemeID="9930">${BUYER_VAT}</cbc:EndpointID>`);
    expect(peppol.bytes.toString()).toContain(`<cbc:EndpointID schemeID="9930">${SELLER_VAT}</cbc:EndpointID>`);
    const pdf = await file(`/invoices/${id}/pdf/zugferd`);
    expect(pdf.status, pdf.bytes.toString().slice(0, 300)).toBe(200);
    expect(pdf.type).toBe('application/pdf');
    expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const text = pdf.bytes.toString('latin1');
    expect(text).toContain('/AFRelationship /Alternative');
    expect(text).toContain('urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#');
    expect(text).toContain('<pdfaid:part>3</pdfaid:part>');
    expect(text).toMatch(/\/OutputIntents \[/);
    expect(text).toContain('/S /GTS_PDFA1');
    expect(text).toMatch(/\/AF \[/);

    const paths = { xr: join(dir, 'xrechnung.xml'), peppol: join(dir, 'peppol.xml'), pdf: join(dir, 'zugferd.pdf') };
    await writeFile(paths.xr, xr.bytes);
    await writeFile(paths.peppol, peppol.bytes);
    await writeFile(paths.pdf, pdf.bytes);
    const verdicts = [
      ...(await validateEInvoices('xrechnung-ubl', [paths.xr])),
      ...(await validateEInvoices('peppol-ubl', [paths.peppol])),
      ...(await validateEInvoices('facturx-cii', [paths.pdf])),
    ];
    expect(verdicts.filter((v) => !v.valid)).toEqual([]);
    expect(verdicts).toHaveLength(3);

    // The reports are stored with the invoice, one per format.
    const reports = await get(`/invoices/${id}/einvoice-reports`);
    expect(reports.status, JSON.stringify(reports.body)).toBe(200);
    expect(reports.body.items.map((r: { format: string }) => r.format)).toEqual(['peppol', 'xrechnung', 'zugferd']);
    for (const r of reports.body.items)
      expect(r).toMatchObject({
        valid: true,
        errors: 0,
        outcome: 'delivered',
        documentKind: 'invoice',
        documentId: id,
      });
  });

  it("a credit note (void) and a corrected invoice's e-invoices pass too", async () => {
    const id = await issued({ servicePeriod: { start: '2027-01-01', end: '2027-01-31' } });
    const corrected = await post(`/invoices/${id}/correct`, {
      reason: 'buyer moved',
      changes: {
        client: {
          name: 'Käufer Holding AG',
          address: { street: 'Leopoldstraße 10', city: 'München', postalCode: '80802', country: 'DE' },
        },
      },
    });
    expect(corrected.status, JSON.stringify(corrected.body)).toBe(200);
    const xr = await file(`/invoices/${id}/xml`);
    expect(xr.status, xr.bytes.toString()).toBe(200);
    expect(xr.bytes.toString()).toContain('Käufer Holding AG');
    const voided = await post(`/invoices/${id}/void`, { reason: 'wrong order' });
    expect(voided.status, JSON.stringify(voided.body)).toBe(200);
    const creditNoteId = voided.body.creditNoteIds[0] as string;
    const files: Record<string, string[]> = {
      'xrechnung-ubl': [join(dir, 'corrected.xml')],
      'peppol-ubl': [],
      'facturx-cii': [],
    };
    await writeFile(files['xrechnung-ubl']![0]!, xr.bytes);
    for (const [format, profile] of [
      ['xrechnung', 'xrechnung-ubl'],
      ['peppol', 'peppol-ubl'],
      ['zugferd', 'facturx-cii'],
    ] as const) {
      const cn = await file(`/credit-notes/${creditNoteId}/xml?format=${format}`);
      expect(cn.status, cn.bytes.toString()).toBe(200);
      expect(cn.bytes.toString()).toMatch(format === 'zugferd' ? /<ram:TypeCode>381<\/ram:TypeCode>/ : /<CreditNote /);
      const path = join(dir, `credit-note-${format}.xml`);
      await writeFile(path, cn.bytes);
      files[profile]!.push(path);
    }
    const verdicts = (
      await Promise.all(Object.entries(files).map(([profile, f]) => validateEInvoices(profile, f)))
    ).flat();
    expect(verdicts).toHaveLength(4);
    expect(verdicts.filter((v) => !v.valid)).toEqual([]);
    expect((await get(`/credit-notes/${creditNoteId}/einvoice-reports`)).body.items).toHaveLength(3);
  });

  it('enforces the settings: draft 409, missing IBAN 422 naming it, format not allowed and disabled 403', async () => {
    const draft = await post('/invoices', {
      siteId: A.siteId,
      clientId,
      currency: 'EUR',
      items: [{ description: 'x', quantity: 1, unitPrice: 1000, amountType: 'net', itemType: 'service' }],
    });
    expect(draft.status).toBe(201);
    const d = await get(`/invoices/${draft.body.id}/xml`);
    expect(d.status).toBe(409);
    expect(d.body.code).toBe('INVOICE_NOT_ISSUED');

    expect((await put('/organizations/settings/invoicing', { bankIBAN: null })).status).toBe(200);
    const noIban = await issued();
    const missing = await get(`/invoices/${noIban}/xml`);
    expect(missing.status, JSON.stringify(missing.body)).toBe(422);
    expect(missing.body.code).toBe('EINVOICE_READINESS_FAILED');
    expect(missing.body.error).toContain('bankIBAN');
    expect((await get(`/invoices/${noIban}/einvoice-reports`)).body.items).toEqual([]);
    // Setting the IBAN afterwards completes the payment instructions of the issued invoice.
    expect((await put('/organizations/settings/invoicing', { bankIBAN: { plaintext: IBAN } })).status).toBe(200);
    expect((await get(`/invoices/${noIban}/xml`)).status).toBe(200);

    expect(
      (await put('/organizations/settings/invoicing', { eInvoice: { allowedFormats: ['xrechnung'] } })).status,
    ).toBe(200);
    const notAllowed = await get(`/invoices/${noIban}/xml/peppol`);
    expect(notAllowed.status).toBe(403);
    expect(notAllowed.body.code).toBe('EINVOICE_FORMAT_NOT_ALLOWED');
    expect((await get(`/invoices/${noIban}/xml`)).status).toBe(200);

    expect((await put('/organizations/settings/invoicing', { eInvoice: { enabled: false } })).status).toBe(200);
    for (const p of [`/invoices/${noIban}/xml`, `/invoices/${draft.body.id}/xml`]) {
      const disabled = await get(p);
      expect(disabled.status).toBe(403);
      expect(disabled.body.code).toBe('EINVOICE_DISABLED');
    }
    expect((await get(`/invoices/${'0'.repeat(24)}/xml`)).status).toBe(404);
  });
});
