import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, UnprocessableError } from '@paymesh/core';
import {
  type ByCountryReport,
  type CurrenciesReport,
  type TaxReportFile,
  type VatOssDetailsReport,
  type VatOssReport,
} from '@paymesh/contracts';
import { parse } from 'csv-parse/sync';
import type { OrgKey } from '../src/app/deps';
import { storeEcbRates } from '../src/app/store-ecb-rates';
import { openTaxHarness, type TaxHarness } from './harness';
import { fixtureReport, OSS_Q2, seedFixtureLedger } from './report-fixture';

/**
 * The fixture ledger's reports (test/reports.test.ts has the figures) converted at ECB rates the
 * service keeps, with no eurRates given: the rate of the period's last day or of the next
 * publication day, a caller's rate still winning for its currency.
 */
describe('tax reports at the ECB rates the service keeps', () => {
  let h: TaxHarness;
  let org: OrgKey;
  const report = <T>(body: Record<string, unknown>) => fixtureReport<T>(h, org, body);
  const q2 = { startDate: '2026-04-01', endDate: '2026-06-30' };

  beforeAll(async () => {
    h = await openTaxHarness();
    h.clock.set('2026-07-15T12:00:00.000Z');
    org = h.org();
    await seedFixtureLedger(h, org);
    // Kept so far: the ECB's days up to Monday 29 June (Saturday 9 May has none, Monday 11 May has one).
    await storeEcbRates(
      h.deps,
      [
        { date: '2026-05-08', rates: { USD: 1.1 } },
        { date: '2026-05-11', rates: { USD: 1.6 } },
        { date: '2026-06-29', rates: { USD: 1.2 } },
      ],
      'test',
    );
  });
  afterAll(async () => h?.close());

  it('on the last day of the quarter, before the ECB published: plain reports leave USD unconverted and say why, VAT OSS answers 422', async () => {
    h.clock.set('2026-06-30T10:00:00.000Z');
    const plain = await report<ByCountryReport>({ report: 'by-country', ...q2, timezone: 'Europe/Berlin' });
    expect(plain.totals.unconverted).toEqual(['USD']);
    expect(plain.data.find((d) => d.currency === 'USD')?.eur).toBeNull();
    expect(plain.eurRates).toEqual([]);
    expect(plain.eurRatesMissing).toEqual([
      {
        currency: 'USD',
        rateDate: '2026-06-30',
        reason: 'not_published',
        message:
          'the ECB reference rate for 2026-06-30 (or the next publication day) is not published yet; the latest kept is of 2026-06-29',
      },
    ]);
    const err = await report({ report: 'vat-oss', ...OSS_Q2 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UnprocessableError);
    expect(err).toMatchObject({
      code: ErrorCode.TAX_REPORT_EUR_RATE_MISSING,
      message: expect.stringMatching(
        /^eurRates: no EUR rate for USD: the ECB reference rate for 2026-06-30 \(or the next publication day\) is not published yet/,
      ),
    });
    const details = await report<VatOssDetailsReport>({
      report: 'vat-oss-details',
      ...OSS_Q2,
    });
    expect(details.eurRatesMissing.map((m) => [m.currency, m.reason])).toEqual([['USD', 'not_published']]);
    // A caller's rate files it at once.
    const given = await report<VatOssReport>({
      report: 'vat-oss',
      ...OSS_Q2,
      eurRates: { USD: 1.25 },
    });
    expect(given.eurRates).toEqual([{ currency: 'USD', rate: 1.25, rateDate: '2026-06-30', source: 'caller' }]);

    // The next fetch brings the publications of 30 June and after.
    h.clock.set('2026-07-15T12:00:00.000Z');
    await storeEcbRates(
      h.deps,
      [
        { date: '2026-06-30', rates: { USD: 1.25, GBP: 0.85 } },
        { date: '2026-07-01', rates: { USD: 1.3 } },
        { date: '2026-07-10', rates: { USD: 1.4 } },
      ],
      'test',
    );
  });

  it('by country converts USD at the rate of the last day and names it; the figures are those at the same given rate', async () => {
    const ecb = await report<ByCountryReport>({ report: 'by-country', ...q2, timezone: 'Europe/Berlin' });
    const given = await report<ByCountryReport>({
      report: 'by-country',
      ...q2,
      timezone: 'Europe/Berlin',
      eurRates: { USD: 1.25 },
    });
    expect(ecb.eurRates).toEqual([{ currency: 'USD', rate: 1.25, rateDate: '2026-06-30', source: 'ecb' }]);
    expect(ecb.eurRatesMissing).toEqual([]);
    expect(ecb.totals).toEqual(given.totals);
    expect(ecb.data.find((d) => d.country === 'US')?.eur).toEqual({
      rate: 1.25,
      rateDate: '2026-06-30',
      net: 6400,
      tax: 0,
      gross: 6400,
    });
    expect(given.eurRates).toEqual([{ currency: 'USD', rate: 1.25, rateDate: '2026-06-30', source: 'caller' }]);
  });

  it('a period ending on a Saturday takes the next publication day', async () => {
    const r = await report<CurrenciesReport>({ report: 'currencies', startDate: '2026-05-01', endDate: '2026-05-09' });
    expect(r.eurRates).toEqual([{ currency: 'USD', rate: 1.6, rateDate: '2026-05-11', source: 'ecb' }]);
  });

  it('a caller rate replaces the ECB rate of its currency only', async () => {
    const r = await report<CurrenciesReport>({ report: 'currencies', ...q2, eurRates: { USD: 1.1, GBP: 0.9 } });
    expect(r.eurRates).toEqual([{ currency: 'USD', rate: 1.1, rateDate: '2026-06-30', source: 'caller' }]);
    expect(r.data.find((d) => d.currency === 'USD')?.eur).toMatchObject({ rate: 1.1, rateDate: '2026-06-30' });
  });

  it('VAT OSS files without eurRates, converting at the ECB rate it names; its exports say so too', async () => {
    const r = await report<VatOssReport>({ report: 'vat-oss', ...OSS_Q2 });
    expect(r.eurRates).toEqual([{ currency: 'USD', rate: 1.25, rateDate: '2026-06-30', source: 'ecb' }]);
    // The figures of reports.test.ts at the given rate 1.25: NL 13000 / 2730.
    expect(r.countries.find((c) => c.country === 'NL')?.supplies[0]).toMatchObject({
      taxableAmount: 13000,
      vatAmount: 2730,
    });
    expect(r.countries.find((c) => c.country === 'NL')?.supplies[0]?.conversions[1]).toEqual({
      currency: 'USD',
      net: 10000,
      tax: 2100,
      rate: 1.25,
      rateDate: '2026-06-30',
      eurNet: 8000,
      eurTax: 1680,
    });
    expect(r.totals).toEqual({ taxableAmount: 38000, vatAmount: 6280, correctionsTotal: -2000, balance: 4280 });

    const xml = await report<TaxReportFile>({
      report: 'vat-oss-export',
      ...OSS_Q2,
    });
    expect(xml.content).toContain('<exchangeRate>');
    expect(xml.content).toMatch(
      /<currency>USD<\/currency>\s*<rate>1.25<\/rate>\s*<rateDate>2026-06-30<\/rateDate>\s*<source>ecb<\/source>/,
    );
    const elster = await report<TaxReportFile>({
      report: 'vat-oss-export-elster',
      ...OSS_Q2,
    });
    expect(elster.content).toContain('2,NL,STANDARD,21.00,130.00,27.30');
    const csv = await report<TaxReportFile>({ report: 'by-country-export', ...q2, timezone: 'Europe/Berlin' });
    const rows = parse(csv.content, { columns: true }) as Record<string, string>[];
    expect(rows.find((x) => x.currency === 'USD')).toMatchObject({
      eur_rate: '1.25',
      eur_rate_date: '2026-06-30',
      eur_rate_source: 'ecb',
    });
    expect(rows.find((x) => x.currency === 'EUR')).toMatchObject({ eur_rate: '1', eur_rate_source: '' });
  });

  it('a past period whose rates the service does not keep leaves USD unconverted as not kept', async () => {
    // Nothing kept from 20 to 27 May, though later days are.
    const r = await report<ByCountryReport>({ report: 'by-country', startDate: '2026-05-01', endDate: '2026-05-20' });
    expect(r.totals.unconverted).toEqual(['USD']);
    expect(r.eurRatesMissing).toEqual([
      {
        currency: 'USD',
        rateDate: '2026-05-20',
        reason: 'not_kept',
        message:
          'no ECB reference rates are kept for 2026-05-20 (the tax service keeps the days it fetched; the latest is of 2026-07-10)',
      },
    ]);
  });

  it('a currency the publication does not quote stays unconverted as not quoted', async () => {
    const r = await report<CurrenciesReport>({ report: 'currencies', startDate: '2026-05-01', endDate: '2026-05-08' });
    expect(r.eurRates).toEqual([{ currency: 'USD', rate: 1.1, rateDate: '2026-05-08', source: 'ecb' }]);
    h.clock.set('2026-07-15T12:00:00.000Z');
    await storeEcbRates(h.deps, [{ date: '2026-05-08', rates: { GBP: 0.8 } }], 'test');
    const after = await report<CurrenciesReport>({
      report: 'currencies',
      startDate: '2026-05-01',
      endDate: '2026-05-08',
    });
    expect(after.eurRatesMissing).toEqual([
      {
        currency: 'USD',
        rateDate: '2026-05-08',
        reason: 'not_quoted',
        message: 'the ECB publishes no reference rate for USD (publication of 2026-05-08)',
      },
    ]);
  });
});
