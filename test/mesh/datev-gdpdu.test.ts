import { createHash } from 'node:crypto';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { checkDebtors, checkPostings } from '../support/datev-format';
import { checkTable, describedTables, DTD_NAME, xmllintValid } from '../support/gdpdu-format';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';
import { payWithSandbox } from '../support/sandbox-pay';

const MAIN_FRONTEND = 'https://checkout.paymesh.test';

/**
 * The accountant's and the auditor's downloads as a merchant gets them: an invoice issued and paid
 * through the provider_a sandbox, then the DATEV zip of the month (checked file by file against
 * the format's rules; the payment on provider_a's clearing account, which billing learns from
 * checkout) and its record, a second export of what is not yet exported, and the GDPdU zip whose
 * index.xml validates against the DTD it ships, the tax service's ledger entry among its tables.
 */
describe('DATEV and GDPdU exports over the Admin API', () => {
  let mesh: TestMesh;
  let boot: BootstrapResult;
  let other: BootstrapResult;
  let admin: string;
  let pub: string;
  let sandbox: string;
  let provider: { id: string; secretKey: string };
  const today = new Date().toISOString().slice(0, 10);
  const year = Number(today.slice(0, 4));

  const adminCall = (method: string, path: string, body?: unknown, token = boot.apiKey) =>
    api(method, `${admin}${path}`, { token, ...(body !== undefined ? { body } : {}) });

  async function download(path: string, body: unknown, token = boot.apiKey) {
    const res = await fetch(`${admin}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    return { status: res.status, headers: res.headers, bytes };
  }

  const payLink = (sessionPublicId: string) =>
    payWithSandbox(
      {
        adminBaseUrl: admin,
        publicBaseUrl: pub,
        apiKey: boot.apiKey,
        sandboxUrl: sandbox,
        provider,
        origin: MAIN_FRONTEND,
        billingAddress: {
          name: 'Jürgen Käufer',
          email: 'j@kaeufer.example',
          line1: 'Königstraße 1',
          city: 'Köln',
          postalCode: '50667',
          country: 'DE',
        },
      },
      sessionPublicId,
    );

  beforeAll(async () => {
    mesh = await startTestMesh({ env: { MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND } });
    admin = mesh.adminBaseUrl;
    pub = mesh.publicBaseUrl;
    sandbox = mesh.sandboxUrls['sandbox-provider-a']!;
    boot = await mesh.bootstrap();
    other = await mesh.bootstrap();
    provider = boot.providers!.provider_a!;
  });
  afterAll(async () => {
    await mesh?.dispose();
  });

  it('exports the month of a paid invoice to DATEV, records it, and then finds nothing new', async () => {
    // Without adviser numbers there is nothing to export to.
    const refused = await adminCall('POST', '/accounting/datev/exports', {}, other.apiKey);
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body.error).toMatch(/consultantNumber/);
    expect(refused.headers.get('x-request-id')).toBeTruthy();
    const bad = await adminCall('PUT', '/organizations/settings/invoicing', {
      datev: { debtors: { firstAccount: 8400 } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/datev.debtors.firstAccount/);

    const settings = await adminCall('PUT', '/organizations/settings/invoicing', {
      enabled: true,
      companyName: 'Bäckerei Schäfer GmbH',
      companyAddress: { street: 'Hauptstraße 5', city: 'München', postalCode: '80331', country: 'DE' },
      datev: {
        consultantNumber: 29098,
        clientNumber: 55003,
        chart: 'SKR04',
        clearing: { byProvider: { provider_a: 1461 } },
      },
    });
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
    expect(settings.body.datev).toMatchObject({
      consultantNumber: 29098,
      chart: 'SKR04',
      revenue: { domestic: { '19': { account: 4400, buKey: null } } },
      clearing: { default: 1460, byProvider: { provider_a: 1461 } },
    });

    const tax = await adminCall('PUT', '/organizations/settings/tax', { homeCountry: 'DE' });
    expect(tax.status, JSON.stringify(tax.body)).toBe(200);
    const client = await adminCall('POST', '/clients', {
      name: 'Jürgen Käufer',
      email: 'j@kaeufer.example',
      address: { street: 'Königstraße 1', city: 'Köln', postalCode: '50667', country: 'DE' },
    });
    expect(client.status, JSON.stringify(client.body)).toBe(201);
    const draft = await adminCall('POST', '/invoices', {
      siteId: boot.siteId,
      clientId: client.body.id,
      currency: 'EUR',
      items: [{ description: 'Brötchen-Abo', quantity: 2, unitPrice: 11900, amountType: 'gross', itemType: 'service' }],
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const invoice = (await adminCall('POST', `/invoices/${draft.body.id}/issue`)).body;
    expect(invoice.taxCalculation.lines.map((l: any) => [l.decision, l.taxRate])).toEqual([['domestic', 19]]);
    const link = await adminCall('POST', `/invoices/${invoice.id}/payment-checkout`, {});
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    await payLink(link.body.sessionPublicId);
    await eventually(async () => (await adminCall('GET', `/invoices/${invoice.id}`)).body.status === 'paid', 20_000);

    const res = await download('/accounting/datev/exports', { to: today });
    expect(res.status, res.bytes.toString('utf8').slice(0, 300)).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/zip/);
    expect(res.headers.get('content-disposition')).toMatch(/filename="DATEV-\d{8}\.zip"/);
    const files = unzipSync(new Uint8Array(res.bytes));
    const names = Object.keys(files).sort();
    const postingFile = names.find((n) => n.startsWith('EXTF_Buchungsstapel_'))!;
    const debtorFile = names.find((n) => n.startsWith('EXTF_Debitoren_Kreditoren_'))!;
    const postings = checkPostings(Buffer.from(files[postingFile]!), postingFile);
    const debtors = checkDebtors(Buffer.from(files[debtorFile]!), debtorFile);
    expect([...postings.problems, ...debtors.problems]).toEqual([]);
    expect(postings.file.header.slice(0, 5)).toEqual(['EXTF', '700', '21', 'Buchungsstapel', '13']);
    expect(postings.file.header[26]).toBe('04');
    const doc = invoice.number.replace(/[^A-Za-z0-9$&%*+\-/]/g, '-');
    const rows = postings.file.rows.filter((r) => r[10] === doc);
    const debtor = debtors.file.rows.find((r) => r[5] === 'Jürgen Käufer')![0];
    expect(rows.map((r) => [r[0], r[1], r[6], r[7], r[8]])).toEqual([
      ['238,00', 'S', debtor, '4400', ''],
      ['238,00', 'S', '1461', debtor, ''],
    ]);

    const list = await adminCall('GET', '/accounting/datev/exports?limit=5');
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.items[0]).toMatchObject({
      to: today,
      select: 'all',
      status: 'completed',
      counts: { invoices: 1, payments: 1 },
      postings: 2,
      files: 1,
      digest: createHash('sha256').update(res.bytes).digest('hex'),
      actor: expect.stringMatching(/^api_key:/),
    });

    const again = await download('/accounting/datev/exports', { to: today, select: 'not_exported' });
    expect(again.status).toBe(200);
    const againFiles = unzipSync(new Uint8Array(again.bytes));
    const againPostings = Object.keys(againFiles).find((n) => n.startsWith('EXTF_Buchungsstapel_'))!;
    const checked = checkPostings(Buffer.from(againFiles[againPostings]!), againPostings);
    expect(checked.problems).toEqual([]);
    expect(checked.file.rows).toEqual([]);

    // Bad input: 400 with the envelope, nothing recorded.
    const before = (await adminCall('GET', '/accounting/datev/exports?limit=1')).body.total;
    for (const body of [
      { from: '2026-13-01' },
      { select: 'everything' },
      { from: `${year - 1}-12-01`, to: `${year}-01-31` },
    ]) {
      const r = await adminCall('POST', '/accounting/datev/exports', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBeTruthy();
    }
    expect((await adminCall('GET', '/accounting/datev/exports?limit=1')).body.total).toBe(before);
  });

  it('exports the fiscal year for the tax auditor: index.xml valid against the DTD, every table as described', async () => {
    // The tax service records the invoice in its ledger from billing's event.
    await eventually(
      async () => (await adminCall('GET', `/tax/records?sourceKind=invoice&limit=5`)).body.total >= 1,
      20_000,
    );
    const res = await download('/accounting/gdpdu/exports', { fiscalYear: year });
    expect(res.status, res.bytes.toString('utf8').slice(0, 300)).toBe(200);
    const files = unzipSync(new Uint8Array(res.bytes));
    const index = Buffer.from(files['index.xml']!);
    const lint = xmllintValid(index, Buffer.from(files[DTD_NAME]!));
    expect(lint.output).toBe('');
    expect(lint.ok).toBe(true);
    const rows: Record<string, string[][]> = {};
    for (const t of describedTables(index)) {
      const checked = checkTable(t, Buffer.from(files[t.url]!));
      expect(checked.problems).toEqual([]);
      rows[t.url] = checked.rows;
    }
    expect(rows['invoices.csv']).toHaveLength(1);
    expect(rows['invoices.csv']![0]![8]).toBe('Jürgen Käufer');
    expect(rows['payments.csv']!.map((r) => [r[1], r[7]])).toEqual([['payment', '238,00']]);
    expect(rows['tax_records.csv']!.some((r) => r[2] === 'invoice' && r[13] === '38,00')).toBe(true);

    const bad = await adminCall('POST', '/accounting/gdpdu/exports', { fiscalYear: 'last' });
    expect(bad.status).toBe(400);
  });
});
