import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { create } from 'xmlbuilder2';
import { WALKTHROUGH_INVOICING } from '../../deploy/local/bootstrap-lib.mjs';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';

type BootstrapResult = Awaited<ReturnType<TestMesh['bootstrap']>>;

const MAIN_FRONTEND = 'https://checkout.paymesh.test';
/** A VAT ID the VIES sandbox has registered (sandboxes/vies/README.md). */
const FR_VALID = 'FR47759777570';
const address = (country: string, extra: Record<string, string> = {}) => ({
  name: 'Ada Buyer',
  email: 'ada@example.com',
  line1: 'Main street 1',
  city: 'Town',
  postalCode: '1000',
  country,
  ...extra,
});
const cents = (v: string | number) => Math.round(Number(v) * 100);

/**
 * A quarter of sales by a German seller under OSS, over the Admin API: checkouts paid through the
 * provider_a sandbox by consumers in DE, FR, NL and the US and by a French business (reverse
 * charge), one of them refunded, and issued invoices to consumers in FR and NL, one paid through
 * its payment link. The VAT OSS report of the quarter lists FR and NL at their rates with the
 * right bases and leaves out the rest; its XML and BZSt CSV exports add up to it.
 */
describe('tax reports over the Admin API', () => {
  let mesh: TestMesh;
  let boot: BootstrapResult;
  let provider: { id: string; secretKey: string };
  const now = new Date();
  const year = now.getUTCFullYear();
  const quarter = Math.floor(now.getUTCMonth() / 3) + 1;
  const oss = `year=${year}&quarter=${quarter}`;
  const today = now.toISOString().slice(0, 10);

  const adminCall = (method: string, path: string, body?: unknown) =>
    api(method, `${mesh.adminBaseUrl}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });
  const raw = (path: string) =>
    fetch(`${mesh.adminBaseUrl}${path}`, { headers: { authorization: `Bearer ${boot.apiKey}` } });

  async function sandboxCall(method: string, path: string, form?: Record<string, string>) {
    const res = await fetch(`${mesh.sandboxUrls['sandbox-provider-a']}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${provider.secretKey}`,
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  /** The buyer pays the checkout session through the sandbox; answers the transaction and its payment intent. */
  async function pay(
    sessionPublicId: string,
    billingAddress: Record<string, string>,
  ): Promise<{ transactionId: string; pi: string }> {
    const t = await api('POST', `${mesh.publicBaseUrl}/transactions/create`, {
      body: { sessionPublicId, providerId: provider.id, billingAddress },
      headers: { origin: MAIN_FRONTEND },
    });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    const transactionId = t.body.transactionId as string;
    const pi = (await adminCall('GET', `/transactions/${transactionId}`)).body.providerPaymentId as string;
    expect(
      (await sandboxCall('POST', `/v1/payment_intents/${pi}/confirm`, { payment_method: 'pm_card_visa' })).body.status,
    ).toBe('succeeded');
    await eventually(async () => (await adminCall('GET', `/transactions/${transactionId}`)).body.status === 1, 20_000);
    return { transactionId, pi };
  }

  async function checkoutSale(amount: number, billingAddress: Record<string, string>) {
    const c = await adminCall('POST', `/checkouts/${boot.siteId}/create`, {
      amount,
      currency: 'EUR',
      externalReference: `report-${randomBytes(3).toString('hex')}`,
      returnUrl: 'https://shop.example/thanks',
    });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    return pay(c.body.sessionPublicId, billingAddress);
  }

  async function invoiceSale(gross: number, country: string) {
    const client = await adminCall('POST', '/clients', {
      name: `Buyer ${country}`,
      email: `buyer-${country.toLowerCase()}@example.com`,
      address: { street: 'Rue 1', city: 'Town', postalCode: '1000', country },
    });
    expect(client.status, JSON.stringify(client.body)).toBe(201);
    const draft = await adminCall('POST', '/invoices', {
      siteId: boot.siteId,
      clientId: client.body.id,
      currency: 'EUR',
      items: [
        { description: 'Pro plan', quantity: 1, unitPrice: gross, amountType: 'gross', itemType: 'digital_service' },
      ],
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const issued = await adminCall('POST', `/invoices/${draft.body.id}/issue`);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    return issued.body;
  }

  beforeAll(async () => {
    mesh = await startTestMesh({ env: { MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND } });
    boot = await mesh.bootstrap();
    provider = boot.providers!.provider_a!;
    const settings = await adminCall('PUT', '/organizations/settings/tax', {
      homeCountry: 'DE',
      ossEnabled: true,
      viesEnabled: true,
      vatId: 'DE321571435',
    });
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
    const site = await adminCall('PUT', `/sites/${boot.siteId}`, { checkoutSettings: { vatIdValidation: 'vies' } });
    expect(site.status, JSON.stringify(site.body)).toBe(200);

    // Checkouts: domestic, FR and NL consumers (NL refunded), an export and a French business.
    await checkoutSale(11900, address('DE'));
    await checkoutSale(12000, address('FR'));
    const nl = await checkoutSale(12100, address('NL'));
    await checkoutSale(10000, address('US'));
    await checkoutSale(50000, address('FR', { vatId: FR_VALID }));
    expect((await sandboxCall('POST', '/v1/refunds', { payment_intent: nl.pi })).status).toBe(200);
    // The refund is recorded (status stays 1); the operator then marks the sale refunded.
    await eventually(
      async () => ((await adminCall('GET', `/transactions/${nl.transactionId}`)).body.refunds ?? []).length === 1,
      20_000,
    );
    const marked = await adminCall('PUT', `/transactions/${nl.transactionId}`, {
      status: 3,
      reason: 'refunded in full',
    });
    expect(marked.status, JSON.stringify(marked.body)).toBe(200);

    // Invoices to FR and NL consumers; the French one is paid through its payment link.
    const fr = await invoiceSale(24000, 'FR');
    await invoiceSale(24200, 'NL');
    const link = await adminCall('POST', `/invoices/${fr.id}/payment-checkout`, {});
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    await pay(link.body.sessionPublicId, address('FR'));

    // 5 checkout sales, the refund (the move to 3 adds nothing), 2 invoices and the invoice's payment.
    await eventually(async () => (await adminCall('GET', '/tax/records?limit=100')).body.total === 9, 30_000);
  });

  afterAll(async () => {
    await mesh?.dispose();
  });

  it('lists FR and NL at their rates with the right bases, leaving out domestic, reverse-charge and export sales', async () => {
    const res = await adminCall('GET', `/tax/reports/vat-oss?${oss}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const r = res.body;
    expect(r).toMatchObject({
      year,
      quarter,
      memberStateOfIdentification: 'DE',
      vatId: 'DE321571435',
      currency: null,
      source: 'both',
    });
    expect(
      r.countries.map((c: any) => [
        c.country,
        c.supplies.map((s: any) => [s.supplyType, s.rateType, s.vatRate, s.taxableAmount, s.vatAmount]),
        c.corrections,
      ]),
    ).toEqual([
      // Checkout 100.00 + 20.00, invoice 200.00 + 40.00 (its payment not counted again).
      ['FR', [['SERVICES', 'STANDARD', 20, 30000, 6000]], []],
      // The refunded checkout cancels out within the quarter; the invoice 200.00 + 42.00 stays.
      ['NL', [['SERVICES', 'STANDARD', 21, 20000, 4200]], []],
    ]);
    expect(r.totals).toEqual({ taxableAmount: 50000, vatAmount: 10200, correctionsTotal: 0, balance: 10200 });
    expect(r.excluded.map((e: any) => [e.decision, e.net, e.tax])).toEqual([
      ['domestic', 10000, 1900],
      ['export', 10000, 0],
      ['reverse_charge', 50000, 0],
    ]);
  });

  it('reports by country from the same ledger: sources apart and together count each sale once', async () => {
    const q = `startDate=${year}-${String((quarter - 1) * 3 + 1).padStart(2, '0')}-01&endDate=${today}`;
    const both = (await adminCall('GET', `/tax/reports/by-country?${q}`)).body;
    expect(both.data.map((d: any) => [d.country, d.net, d.tax])).toEqual([
      ['DE', 10000, 1900],
      ['FR', 80000, 6000],
      ['NL', 20000, 4200],
      ['US', 10000, 0],
    ]);
    const tx = (await adminCall('GET', `/tax/reports/by-country?${q}&source=transactions`)).body;
    expect(tx.data.find((d: any) => d.country === 'FR')).toMatchObject({ net: 80000, tax: 6000 });
    expect(tx.data.find((d: any) => d.country === 'NL')).toMatchObject({ net: 0, tax: 0 });
    const inv = (await adminCall('GET', `/tax/reports/by-country?${q}&source=invoices`)).body;
    expect(inv.data.map((d: any) => [d.country, d.net])).toEqual([
      ['FR', 20000],
      ['NL', 20000],
    ]);
    const csv = await raw(`/tax/reports/by-country/export?${q}`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toMatch(/inline; filename="tax-by-country_.*\.csv"/);
    const rows = parse(await csv.text(), { columns: true }) as Record<string, string>[];
    expect(rows.reduce((s, row) => s + cents(row.tax!), 0)).toBe(both.totals.eur.tax);
    expect(rows.reduce((s, row) => s + cents(row.net!), 0)).toBe(both.totals.eur.net);
  });

  it('exports the OSS return as XML and as the BZSt CSV, both adding up to the report', async () => {
    const report = (await adminCall('GET', `/tax/reports/vat-oss?${oss}`)).body;
    const xmlRes = await raw(`/tax/reports/vat-oss/export?${oss}`);
    expect(xmlRes.status).toBe(200);
    expect(xmlRes.headers.get('content-type')).toMatch(/^application\/xml/);
    const ret = (create(await xmlRes.text()).end({ format: 'object' }) as any).CoreVatReturn;
    expect(ret.period).toEqual({ year: String(year), quarter: String(quarter) });
    expect(ret.traderId).toEqual({ vatNumber: 'DE321571435', issuedBy: 'DE' });
    expect(cents(ret.totalAmountVatDue)).toBe(report.totals.balance);
    const supplies = [ret.msconSupplies.msconSupply].flat();
    expect(supplies.map((s: any) => [s.msconCountryCode, cents(s.balanceOfVatDue)])).toEqual(
      report.countries.map((c: any) => [c.country, c.balance]),
    );
    const msid = supplies.flatMap((s: any) => [s.msidSupplies.msidSupply].flat());
    expect(msid.reduce((t: number, m: any) => t + cents(m.taxableAmount), 0)).toBe(report.totals.taxableAmount);

    const elster = await raw(`/tax/reports/vat-oss/export-elster?${oss}`);
    expect(elster.status).toBe(200);
    const text = await elster.text();
    expect(text).toBe(
      ['#v2.0', '1,FR', '2,FR,STANDARD,20.00,300.00,60.00', '1,NL', '2,NL,STANDARD,21.00,200.00,42.00', ''].join('\n'),
    );
    const vat = text
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','))
      .filter((f) => f[0] === '2' || f[0] === '3')
      .reduce((t, f) => t + cents(f[5]!), 0);
    expect(vat).toBe(report.totals.vatAmount);
  });

  it('with automatic invoices on, a paid sale appears once in the VAT OSS return over both sources', async () => {
    // A second merchant set up as `pnpm bootstrap` sets up the walk-through one: paid checkouts invoiced automatically.
    const walk = await mesh.bootstrap();
    const call = (method: string, path: string, body?: unknown) =>
      api(method, `${mesh.adminBaseUrl}${path}`, { token: walk.apiKey, ...(body !== undefined ? { body } : {}) });
    expect(
      (await call('PUT', '/organizations/settings/tax', { homeCountry: 'DE', ossEnabled: true, vatId: 'DE321571435' }))
        .status,
    ).toBe(200);
    const invoicing = await call('PUT', '/organizations/settings/invoicing', WALKTHROUGH_INVOICING);
    expect(invoicing.status, JSON.stringify(invoicing.body)).toBe(200);
    const c = await call('POST', `/checkouts/${walk.siteId}/create`, {
      amount: 12000,
      currency: 'EUR',
      externalReference: 'walk-1',
      returnUrl: 'https://shop.example/thanks',
    });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    const walkProvider = walk.providers!.provider_a!;
    const t = await api('POST', `${mesh.publicBaseUrl}/transactions/create`, {
      body: { sessionPublicId: c.body.sessionPublicId, providerId: walkProvider.id, billingAddress: address('FR') },
      headers: { origin: MAIN_FRONTEND },
    });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    const pi = (await call('GET', `/transactions/${t.body.transactionId}`)).body.providerPaymentId as string;
    const confirm = await fetch(`${mesh.sandboxUrls['sandbox-provider-a']}/v1/payment_intents/${pi}/confirm`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${walkProvider.secretKey}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ payment_method: 'pm_card_visa' }).toString(),
    });
    expect(confirm.status).toBe(200);
    // The transaction's cash entry and the automatic invoice's accrual entry, linked as the invoice's payment.
    await eventually(async () => {
      const recs = (await call('GET', '/tax/records?limit=100')).body;
      return (
        recs.total === 2 && recs.items.some((r: any) => r.sourceKind === 'transaction' && r.invoicePayment === true)
      );
    }, 30_000);
    const fr = (source: string) =>
      call('GET', `/tax/reports/vat-oss?${oss}${source ? `&source=${source}` : ''}`).then((r) =>
        r.body.countries.map((x: any) => [x.country, x.supplies.map((s: any) => [s.taxableAmount, s.vatAmount])]),
      );
    for (const source of ['', 'both', 'transactions', 'invoices'])
      expect(await fr(source), source || 'default').toEqual([['FR', [[10000, 2000]]]]);
  });

  it('files the VAT OSS return of a quarter with USD sales at the ECB rate it names, with no eurRates given', async () => {
    // A merchant that invoiced a French consumer in USD on the last day of the previous quarter.
    const usd = await mesh.bootstrap();
    const call = (method: string, path: string, body?: unknown) =>
      api(method, `${mesh.adminBaseUrl}${path}`, { token: usd.apiKey, ...(body !== undefined ? { body } : {}) });
    const file = (path: string) =>
      fetch(`${mesh.adminBaseUrl}${path}`, { headers: { authorization: `Bearer ${usd.apiKey}` } });
    expect(
      (await call('PUT', '/organizations/settings/tax', { homeCountry: 'DE', ossEnabled: true, vatId: 'DE321571435' }))
        .status,
    ).toBe(200);
    const prev = quarter === 1 ? { year: year - 1, quarter: 4 } : { year, quarter: quarter - 1 };
    const lastDay = new Date(Date.UTC(prev.year, prev.quarter * 3, 0)).toISOString().slice(0, 10);
    const client = await call('POST', '/clients', {
      name: 'Acheteur USD',
      email: 'usd@example.com',
      address: { street: 'Rue 1', city: 'Lyon', postalCode: '69001', country: 'FR' },
    });
    expect(client.status, JSON.stringify(client.body)).toBe(201);
    const invoiceIn = async (issueDate?: string) => {
      const draft = await call('POST', '/invoices', {
        siteId: usd.siteId,
        clientId: client.body.id,
        currency: 'USD',
        ...(issueDate ? { issueDate } : {}),
        items: [
          { description: 'Pro plan', quantity: 1, unitPrice: 12000, amountType: 'gross', itemType: 'digital_service' },
        ],
      });
      expect(draft.status, JSON.stringify(draft.body)).toBe(201);
      expect((await call('POST', `/invoices/${draft.body.id}/issue`)).status).toBe(200);
    };
    await invoiceIn(lastDay);
    await eventually(async () => (await call('GET', '/tax/records?limit=10')).body.total === 1, 30_000);

    // The sandbox's publication for that day, or the next publication day (sandboxes/ecb/README.md).
    const ecb = mesh.sandboxUrls['sandbox-ecb']!;
    let published: { date: string; rates: Record<string, number> } | undefined;
    for (let i = 0; !published && i < 7; i++) {
      const day = new Date(Date.parse(`${lastDay}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10);
      const answer = (await (await fetch(`${ecb}/_sandbox/rates/${day}`)).json()) as {
        published: boolean;
        rates: Record<string, number>;
      };
      if (answer.published) published = { date: day, rates: answer.rates };
    }
    const rate = published!.rates.USD!;

    // The tax service fetched the rates at start (or does soon): the return files as it is.
    const q = `year=${prev.year}&quarter=${prev.quarter}`;
    const res = await eventually(async () => {
      const r = await call('GET', `/tax/reports/vat-oss?${q}`);
      return r.status === 200 ? r : undefined;
    }, 30_000);
    expect(res.body.eurRates).toEqual([{ currency: 'USD', rate, rateDate: published!.date, source: 'ecb' }]);
    // 120.00 USD gross at 20 %: 100.00 + 20.00 USD.
    const net = Math.round(10000 / rate);
    const vat = Math.round(2000 / rate);
    expect(res.body.countries).toEqual([
      {
        country: 'FR',
        supplies: [
          {
            supplyType: 'SERVICES',
            rateType: 'STANDARD',
            vatRate: 20,
            taxableAmount: net,
            vatAmount: vat,
            conversions: [
              { currency: 'USD', net: 10000, tax: 2000, rate, rateDate: published!.date, eurNet: net, eurTax: vat },
            ],
          },
        ],
        corrections: [],
        vatTotal: vat,
        correctionsTotal: 0,
        balance: vat,
      },
    ]);
    const kept = await call('GET', `/tax/ecb-rates?date=${lastDay}`);
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body).toMatchObject({ date: lastDay, rateDate: published!.date, rates: { USD: rate } });

    // Both exports download; the XML names the rate.
    const xml = await file(`/tax/reports/vat-oss/export?${q}`);
    expect(xml.status).toBe(200);
    const ret = (create(await xml.text()).end({ format: 'object' }) as any).CoreVatReturn;
    expect(ret.exchangeRates.exchangeRate).toEqual({
      currency: 'USD',
      rate: String(rate),
      rateDate: published!.date,
      source: 'ecb',
    });
    const elster = await file(`/tax/reports/vat-oss/export-elster?${q}`);
    expect(elster.status).toBe(200);
    const decimal = (cents: number) => (cents / 100).toFixed(2);
    expect(await elster.text()).toBe(
      ['#v2.0', '1,FR', `2,FR,STANDARD,20.00,${decimal(net)},${decimal(vat)}`, ''].join('\n'),
    );

    // A USD sale of the current quarter: its rate (the quarter's last day) is not out yet, unless that day is today.
    await invoiceIn();
    await eventually(async () => (await call('GET', '/tax/records?limit=10')).body.total === 2, 30_000);
    const quarterEnd = new Date(Date.UTC(year, quarter * 3, 0)).toISOString().slice(0, 10);
    if (quarterEnd > today) {
      const early = await call('GET', `/tax/reports/vat-oss?${oss}`);
      expect(early.status, JSON.stringify(early.body)).toBe(422);
      expect(early.body.code).toBe('TAX_REPORT_EUR_RATE_MISSING');
      expect(early.body.error).toMatch(
        new RegExp(`the ECB reference rate for ${quarterEnd} \\(or the next publication day\\) is not published yet`),
      );
      const plain = await call('GET', `/tax/reports/currencies?startDate=${lastDay}&endDate=${quarterEnd}`);
      expect(plain.body.eurRatesMissing).toEqual([
        expect.objectContaining({ currency: 'USD', rateDate: quarterEnd, reason: 'not_published' }),
      ]);
    }
    const given = await call('GET', `/tax/reports/vat-oss?${oss}&eurRates=USD:1.25`);
    expect(given.status, JSON.stringify(given.body)).toBe(200);
    expect(given.body.eurRates).toEqual([{ currency: 'USD', rate: 1.25, rateDate: quarterEnd, source: 'caller' }]);
    expect(given.body.totals).toMatchObject({ taxableAmount: 8000, vatAmount: 1600 });
  });

  it('refuses VAT OSS reports without year and quarter 1 to 4, and bad filters, with 400', async () => {
    for (const q of [
      '',
      `year=${year}`,
      `quarter=${quarter}`,
      `year=${year}&quarter=5`,
      `year=${year}&quarter=0`,
      `${oss}&timezone=Mars%2FOlympus`,
      `${oss}&source=all`,
      `${oss}&eurRates=USD`,
    ]) {
      const res = await adminCall('GET', `/tax/reports/vat-oss?${q}`);
      expect(res.status, `${q}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(typeof res.body.error).toBe('string');
    }
    expect((await adminCall('GET', `/tax/reports/vat-oss/export-elster?year=${year}`)).status).toBe(400);
    expect((await adminCall('GET', '/tax/reports/by-country?startDate=2026-02-30&endDate=2026-03-01')).status).toBe(
      400,
    );
    expect((await adminCall('GET', '/tax/reports/by-country')).status).toBe(400);
  });
});
