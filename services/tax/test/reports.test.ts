import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { ErrorCode, UnprocessableError, ValidationError } from '@paymesh/core';
import {
  taxReportRequest,
  type TaxRecord,
  type ByCountryReport,
  type CurrenciesReport,
  type RevenueByCountryReport,
  type TaxReportFile,
  type VatOssDetailsReport,
  type VatOssReport,
} from '@paymesh/contracts';
import { create } from 'xmlbuilder2';
import type { OrgKey } from '../src/app/deps';
import type { TaxRecordDoc } from '../src/domain/source-event';
import { TAX_RECORDS } from '../src/store/collections';
import { openTaxHarness, type TaxHarness } from './harness';
import { fixtureEntries, fixtureReport, OSS_Q2, OTHER_SITE, seedFixtureLedger, SITE } from './report-fixture';

/**
 * Reports over a hand-computed ledger (test/report-fixture.ts) in the machine's PostgreSQL: every
 * figure below was worked out by hand from the fixture's entries.
 */
describe('tax reports over a fixture ledger', () => {
  let h: TaxHarness;
  let org: OrgKey;

  const report = <T>(body: Record<string, unknown>) => fixtureReport<T>(h, org, body);
  const q2 = { startDate: '2026-04-01', endDate: '2026-06-30' };
  const usd = { eurRates: { USD: 1.25 } };

  beforeAll(async () => {
    h = await openTaxHarness();
    org = h.org();
    await seedFixtureLedger(h, org);
    // Another organization's and another mode's entries must never show.
    const col = h.store.collection<TaxRecordDoc>(TAX_RECORDS);
    const copy = ({ id: _id, ...e }: TaxRecord, tag: string) =>
      col.insert({ ...e, sourceEventId: `${e.sourceEventId}-${tag}` });
    for (const e of fixtureEntries(h.org().organizationId)) await copy(e, 'other');
    for (const e of fixtureEntries(org.organizationId, 'test')) await copy(e, 'test');
  });
  afterAll(async () => h?.close());

  it('by country: Q2 in Berlin, both sources (the paid invoice counted once), USD converted', async () => {
    const r = await report<ByCountryReport>({ report: 'by-country', ...q2, timezone: 'Europe/Berlin', ...usd });
    expect(r.period).toEqual({
      startDate: '2026-04-01',
      endDate: '2026-06-30',
      timezone: 'Europe/Berlin',
      startAt: '2026-03-31T22:00:00.000Z',
      endAt: '2026-06-30T22:00:00.000Z',
    });
    expect(
      r.data.map((d) => [d.country, d.currency, d.net, d.tax, d.gross, d.eur?.net ?? null, d.eur?.tax ?? null]),
    ).toEqual([
      ['DE', 'EUR', 10000, 1900, 11900, 10000, 1900],
      // E3 30000/4550 + E5 50000/0 - E8 10000/2000 - E9 5000/1000
      ['FR', 'EUR', 65000, 1550, 66550, 65000, 1550],
      ['NL', 'EUR', 5000, 1050, 6050, 5000, 1050],
      ['NL', 'USD', 10000, 2100, 12100, 8000, 1680],
      ['US', 'USD', 8000, 0, 8000, 6400, 0],
    ]);
    expect(r.data.find((d) => d.currency === 'USD')?.eur).toMatchObject({ rate: 1.25, rateDate: '2026-06-30' });
    expect(r.totals).toEqual({
      byCurrency: [
        { currency: 'EUR', net: 80000, tax: 4500, gross: 84500 },
        { currency: 'USD', net: 18000, tax: 2100, gross: 20100 },
      ],
      eur: { net: 94400, tax: 6180, gross: 100580 },
      unconverted: [],
    });
  });

  it('by country in UTC moves the payment of 2026-03-31 22:30 UTC into Q1', async () => {
    const utc = await report<ByCountryReport>({ report: 'by-country', ...q2, ...usd });
    expect(utc.data.filter((d) => d.country === 'NL').map((d) => [d.currency, d.net])).toEqual([['USD', 10000]]);
    const q1 = await report<ByCountryReport>({ report: 'by-country', startDate: '2026-01-01', endDate: '2026-03-31' });
    expect(q1.data.map((d) => [d.country, d.net, d.tax])).toEqual([
      ['FR', 10000, 2000],
      ['NL', 5000, 1050],
    ]);
    const q1Berlin = await report<ByCountryReport>({
      report: 'by-country',
      startDate: '2026-01-01',
      endDate: '2026-03-31',
      timezone: 'Europe/Berlin',
    });
    expect(q1Berlin.data.map((d) => d.country)).toEqual(['FR']);
  });

  it('by source: transactions alone include the invoice payment, invoices alone the invoice documents', async () => {
    const tx = await report<ByCountryReport>({
      report: 'by-country',
      ...q2,
      timezone: 'Europe/Berlin',
      source: 'transactions',
    });
    expect(tx.data.find((d) => d.country === 'FR' && d.currency === 'EUR')).toMatchObject({ net: 20000, tax: 2550 });
    const inv = await report<ByCountryReport>({
      report: 'by-country',
      ...q2,
      timezone: 'Europe/Berlin',
      source: 'invoices',
    });
    expect(inv.data.map((d) => [d.country, d.net, d.tax])).toEqual([['FR', 75000, 3550]]);
  });

  it('filters by currency and site; a currency without a rate is reported unconverted', async () => {
    const usdOnly = await report<ByCountryReport>({ report: 'by-country', ...q2, currency: 'USD' });
    expect(usdOnly.data.map((d) => [d.country, d.net, d.eur])).toEqual([
      ['NL', 10000, null],
      ['US', 8000, null],
    ]);
    expect(usdOnly.totals.unconverted).toEqual(['USD']);
    const site = await report<ByCountryReport>({
      report: 'by-country',
      ...q2,
      timezone: 'Europe/Berlin',
      siteId: OTHER_SITE,
    });
    expect(site.data.map((d) => [d.country, d.net])).toEqual([['DE', 10000]]);
    expect(
      (await report<ByCountryReport>({ report: 'by-country', ...q2, siteId: SITE })).data.some(
        (d) => d.country === 'DE',
      ),
    ).toBe(false);
  });

  it('details by rate and decision, revenue by buyer country and currencies', async () => {
    const details = await report<{
      data: { country: string; taxRate: number; decision: string; itemType: string; net: number }[];
    }>({
      report: 'by-country-details',
      ...q2,
      timezone: 'Europe/Berlin',
    });
    expect(
      details.data.filter((d) => d.country === 'FR').map((d) => [d.taxRate, d.decision, d.itemType, d.net]),
    ).toEqual([
      [20, 'oss_destination', 'digital_service', 5000],
      [5.5, 'oss_destination', 'goods', 10000],
      [0, 'reverse_charge', 'digital_service', 50000],
    ]);
    const revenue = await report<RevenueByCountryReport>({
      report: 'revenue-by-country',
      ...q2,
      timezone: 'Europe/Berlin',
    });
    expect(revenue.data.find((d) => d.country === 'FR')).toMatchObject({
      currency: 'EUR',
      net: 65000,
      tax: 1550,
      gross: 66550,
      sales: 2,
      corrections: 2,
    });
    const currencies = await report<CurrenciesReport>({
      report: 'currencies',
      ...q2,
      timezone: 'Europe/Berlin',
      ...usd,
    });
    expect(currencies.data.map((d) => [d.currency, d.net, d.tax, d.gross, d.entries, d.eur?.gross ?? null])).toEqual([
      ['EUR', 80000, 4500, 84500, 6, 84500],
      ['USD', 18000, 2100, 20100, 2, 16080],
    ]);
  });

  it('VAT OSS Q2 in Berlin: FR and NL at their rates, the Q1 refund as a correction, domestic, reverse-charge and export left out', async () => {
    const r = await report<VatOssReport>({
      report: 'vat-oss',
      ...OSS_Q2,
      ...usd,
    });
    expect(r.memberStateOfIdentification).toBe('DE');
    expect(r.vatId).toBe('DE321571435');
    expect(
      r.countries.map((c) => ({
        country: c.country,
        supplies: c.supplies.map((s) => [s.supplyType, s.rateType, s.vatRate, s.taxableAmount, s.vatAmount]),
        corrections: c.corrections.map((k) => [k.year, k.quarter, k.vatAmount, k.declaredVat]),
        balance: c.balance,
      })),
    ).toEqual([
      {
        country: 'FR',
        // 20000/4000 invoiced, 5000/1000 credited in the same quarter.
        supplies: [
          ['GOODS', 'REDUCED', 5.5, 10000, 550],
          ['SERVICES', 'STANDARD', 20, 15000, 3000],
        ],
        corrections: [[2026, 1, -2000, 2000]],
        balance: 1550,
      },
      // E2 5000/1050 EUR (Q2 in Berlin) and E7 10000/2100 USD at 1.25 = 8000/1680.
      { country: 'NL', supplies: [['SERVICES', 'STANDARD', 21, 13000, 2730]], corrections: [], balance: 2730 },
    ]);
    expect(r.totals).toEqual({ taxableAmount: 38000, vatAmount: 6280, correctionsTotal: -2000, balance: 4280 });
    expect(r.countries[1]!.supplies[0]!.conversions).toEqual([
      { currency: 'EUR', net: 5000, tax: 1050, rate: 1, rateDate: '2026-06-30', eurNet: 5000, eurTax: 1050 },
      { currency: 'USD', net: 10000, tax: 2100, rate: 1.25, rateDate: '2026-06-30', eurNet: 8000, eurTax: 1680 },
    ]);
    expect(r.excluded.map((e) => [e.decision, e.currency, e.net])).toEqual([
      ['domestic', 'EUR', 10000],
      ['export', 'USD', 8000],
      ['reverse_charge', 'EUR', 50000],
    ]);
  });

  it('VAT OSS Q2 in UTC leaves the 31 March payment in Q1', async () => {
    const r = await report<VatOssReport>({ report: 'vat-oss', year: 2026, quarter: 2, ...usd });
    expect(r.countries.find((c) => c.country === 'NL')?.vatTotal).toBe(1680);
    const q1 = await report<VatOssReport>({ report: 'vat-oss', year: 2026, quarter: 1 });
    expect(q1.countries.map((c) => [c.country, c.vatTotal])).toEqual([
      ['FR', 2000],
      ['NL', 1050],
    ]);
  });

  it('VAT OSS details list the figures per currency and every correction entry', async () => {
    const d = await report<VatOssDetailsReport>({
      report: 'vat-oss-details',
      ...OSS_Q2,
      ...usd,
    });
    expect(d.data.map((x) => [x.country, x.supplyType, x.vatRate, x.currency, x.net, x.tax])).toEqual([
      ['FR', 'GOODS', 5.5, 'EUR', 10000, 550],
      ['FR', 'SERVICES', 20, 'EUR', 15000, 3000],
      ['NL', 'SERVICES', 21, 'EUR', 5000, 1050],
      ['NL', 'SERVICES', 21, 'USD', 10000, 2100],
    ]);
    expect(d.corrections).toEqual([
      expect.objectContaining({ country: 'FR', year: 2026, quarter: 1, currency: 'EUR', tax: -2000, eurTax: -2000 }),
    ]);
  });

  it('exports add up to the reports to the cent', async () => {
    const byCountry = await report<ByCountryReport>({ report: 'by-country', ...q2, timezone: 'Europe/Berlin', ...usd });
    const csv = await report<TaxReportFile>({ report: 'by-country-export', ...q2, timezone: 'Europe/Berlin', ...usd });
    expect(csv.contentType).toBe('text/csv; charset=utf-8');
    const rows = parse(csv.content, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(byCountry.data.length);
    const cents = (v: string) => Math.round(Number(v) * 100);
    expect(rows.reduce((s, r) => s + cents(r.eur_tax!), 0)).toBe(byCountry.totals.eur.tax);
    expect(rows.reduce((s, r) => s + cents(r.eur_net!), 0)).toBe(byCountry.totals.eur.net);
    expect(rows.filter((r) => r.currency === 'EUR').reduce((s, r) => s + cents(r.tax!), 0)).toBe(4500);

    const revenue = await report<TaxReportFile>({
      report: 'revenue-by-country-export',
      ...q2,
      timezone: 'Europe/Berlin',
    });
    const revRows = parse(revenue.content, { columns: true }) as Record<string, string>[];
    expect(revRows.filter((r) => r.currency === 'EUR').reduce((s, r) => s + cents(r.gross!), 0)).toBe(84500);

    const oss = await report<VatOssReport>({
      report: 'vat-oss',
      ...OSS_Q2,
      ...usd,
    });
    const xml = await report<TaxReportFile>({
      report: 'vat-oss-export',
      ...OSS_Q2,
      ...usd,
    });
    const doc = create(xml.content).end({ format: 'object' }) as { CoreVatReturn: any };
    const ret = doc.CoreVatReturn;
    expect(cents(ret.totalAmountVatDue)).toBe(oss.totals.balance);
    const supplies = [ret.msconSupplies.msconSupply].flat();
    expect(supplies.map((s: any) => s.msconCountryCode)).toEqual(['FR', 'NL']);
    const msidVat = supplies
      .flatMap((s: any) => [s.msidSupplies.msidSupply].flat())
      .reduce((t: number, m: any) => t + cents(m.vatAmount), 0);
    expect(msidVat).toBe(oss.totals.vatAmount);
    expect(cents(supplies[0].corrections.correction.totalVatAmountCorrection)).toBe(-2000);
    expect(supplies[0].corrections.correction.period).toEqual({ year: '2026', quarter: '1' });

    const elster = await report<TaxReportFile>({
      report: 'vat-oss-export-elster',
      ...OSS_Q2,
      ...usd,
    });
    expect(elster.content).toBe(
      [
        '#v2.0',
        '1,FR',
        '3,FR,REDUCED,5.50,100.00,5.50',
        '2,FR,STANDARD,20.00,150.00,30.00',
        '6,FR,2026,1,20.00,0.00',
        '1,NL',
        '2,NL,STANDARD,21.00,130.00,27.30',
        '',
      ].join('\n'),
    );
    const records = elster.content
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    const current = records.filter((r) => r[0] === '2' || r[0] === '3').reduce((t, r) => t + cents(r[5]!), 0);
    const corrections = records.filter((r) => r[0] === '6').reduce((t, r) => t + cents(r[5]!) - cents(r[4]!), 0);
    expect(current + corrections).toBe(oss.totals.balance);
  });

  it('refuses bad periods and filters with 400, an OSS figure without its EUR rate with 422', async () => {
    const err = async (body: Record<string, unknown>) =>
      report(body).then(
        () => null,
        (e: unknown) => e,
      );
    expect(await err({ report: 'vat-oss', year: 2026 })).toBeInstanceOf(ValidationError);
    expect(() => taxReportRequest.parse({ report: 'vat-oss', year: 2026, quarter: 5 })).toThrow();
    expect(await err({ report: 'vat-oss', year: 2026, quarter: 2, startDate: '2026-04-01' })).toBeInstanceOf(
      ValidationError,
    );
    expect(await err({ report: 'by-country', startDate: '2026-04-01' })).toBeInstanceOf(ValidationError);
    expect(await err({ report: 'by-country', startDate: '2026-02-30', endDate: '2026-03-01' })).toBeInstanceOf(
      ValidationError,
    );
    expect(await err({ report: 'by-country', startDate: '2026-05-01', endDate: '2026-04-01' })).toBeInstanceOf(
      ValidationError,
    );
    expect(await err({ report: 'by-country', startDate: '2020-01-01', endDate: '2026-01-01' })).toBeInstanceOf(
      ValidationError,
    );
    expect(await err({ report: 'by-country', ...q2, timezone: 'Mars/Olympus' })).toBeInstanceOf(ValidationError);
    expect(await err({ report: 'by-country', ...q2, year: 2026 })).toBeInstanceOf(ValidationError);
    const missing = await err({ report: 'vat-oss', year: 2026, quarter: 2 });
    expect(missing).toBeInstanceOf(UnprocessableError);
    expect(missing).toMatchObject({ code: ErrorCode.TAX_REPORT_EUR_RATE_MISSING });
  });
});
