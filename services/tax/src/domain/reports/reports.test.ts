import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { ErrorCode } from '@paymesh/core';
import { create } from 'xmlbuilder2';
import { byCountryRows, totalsOf } from './build';
import { EurConverter } from './eur';
import { byCountryCsv, decimal, vatOssElsterCsv, vatOssXml } from './exports';
import { buildVatOss, declaredKey, type OssInput } from './oss';
import { daysBetween, localDay, periodOf, quarterPeriod } from './period';
import type { LineGroup } from './query';

const period = quarterPeriod({ year: 2026, quarter: 2 }, 'Europe/Berlin');
const echo = { period, source: 'both' as const, currency: null, siteId: null };

const line = (over: Partial<LineGroup>): LineGroup => ({
  taxCountry: 'FR',
  buyerCountry: 'FR',
  currency: 'EUR',
  taxRate: 20,
  taxRateCode: 'VAT_FR_STANDARD',
  rateType: 'standard',
  decision: 'oss_destination',
  itemType: 'digital_service',
  net: 0,
  tax: 0,
  lines: 1,
  ...over,
});

/** Hand-computed: FR services 150.00 + 30.00 and goods 100.00 + 5.50; GR 50.00 USD at 1.25 = 40.00 EUR; a domestic and an export line left out; FR Q1 corrected by -20.00. */
const lines: LineGroup[] = [
  line({ net: 20000, tax: 4000, lines: 2 }),
  line({ net: -5000, tax: -1000 }),
  line({ taxRate: 5.5, taxRateCode: 'VAT_FR_REDUCED', rateType: 'reduced', itemType: 'goods', net: 10000, tax: 550 }),
  line({
    taxCountry: 'GR',
    buyerCountry: 'GR',
    currency: 'USD',
    taxRate: 24,
    taxRateCode: 'VAT_GR_STANDARD',
    net: 5000,
    tax: 1200,
  }),
  line({
    taxCountry: 'DE',
    buyerCountry: 'DE',
    taxRate: 19,
    taxRateCode: 'VAT_DE_STANDARD',
    decision: 'domestic',
    net: 10000,
    tax: 1900,
  }),
  line({
    taxCountry: null,
    buyerCountry: 'US',
    currency: 'USD',
    taxRate: 0,
    taxRateCode: 'EXPORT',
    rateType: null,
    decision: 'export',
    net: 8000,
    tax: 0,
  }),
];
const eur = new EurConverter({ USD: 1.25 }, period.endDate);

function ossInput(over: Partial<OssInput> = {}): OssInput {
  return {
    quarter: { year: 2026, quarter: 2 },
    period,
    echo,
    settings: { homeCountry: 'DE', vatId: 'DE321571435' },
    lines,
    corrections: [
      {
        recordId: 'r1',
        correctsRecordId: 's1',
        country: 'FR',
        period: { year: 2026, quarter: 1 },
        currency: 'EUR',
        tax: -2000,
      },
    ],
    declared: new Map([[declaredKey('FR', { year: 2026, quarter: 1 }), 2000]]),
    eur,
    ...over,
  };
}

describe('report periods', () => {
  it('counts days in the zone: a quarter in Berlin starts at 22:00 UTC the day before', () => {
    expect(period).toMatchObject({
      startDate: '2026-04-01',
      endDate: '2026-06-30',
      startAt: '2026-03-31T22:00:00.000Z',
      endAt: '2026-06-30T22:00:00.000Z',
    });
    expect(periodOf('2026-01-01', '2026-01-31', 'UTC')).toMatchObject({
      startAt: '2026-01-01T00:00:00.000Z',
      endAt: '2026-02-01T00:00:00.000Z',
    });
    expect(localDay({ taxPointDate: '2026-03-31', taxPointAt: '2026-03-31T22:30:00.000Z' }, 'Europe/Berlin')).toBe(
      '2026-04-01',
    );
    expect(localDay({ taxPointDate: '2026-03-31', taxPointAt: '2026-03-31T22:30:00.000Z' }, 'UTC')).toBe('2026-03-31');
    expect(localDay({ taxPointDate: '2026-03-31', taxPointAt: null }, 'Pacific/Kiritimati')).toBe('2026-03-31');
    expect(daysBetween('2026-02-27', '2026-03-02')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
  });

  it('refuses unknown zones, impossible days, reversed and over-long periods', () => {
    expect(() => periodOf('2026-01-01', '2026-01-02', 'Europe/Nowhere')).toThrow(/timezone/);
    expect(() => periodOf('2026-02-29', '2026-03-01', 'UTC')).toThrow(/startDate/);
    expect(() => periodOf('2026-03-02', '2026-03-01', 'UTC')).toThrow(/after endDate/);
    expect(() => periodOf('2023-01-01', '2026-03-01', 'UTC')).toThrow(/at most/);
  });
});

describe('report builders', () => {
  it('by country: lines summed per country (the buyer country outside the EU) and currency, converted to EUR', () => {
    const rows = byCountryRows(lines, eur);
    expect(
      rows.map((r) => [r.country, r.currency, r.net, r.tax, r.gross, r.lines, r.eur?.net ?? null, r.eur?.tax ?? null]),
    ).toEqual([
      ['DE', 'EUR', 10000, 1900, 11900, 1, 10000, 1900],
      ['FR', 'EUR', 25000, 3550, 28550, 4, 25000, 3550],
      ['GR', 'USD', 5000, 1200, 6200, 1, 4000, 960],
      ['US', 'USD', 8000, 0, 8000, 1, 6400, 0],
    ]);
    expect(totalsOf(rows).eur).toEqual({ net: 45400, tax: 6410, gross: 51810 });
    expect(totalsOf(byCountryRows(lines, new EurConverter({}, period.endDate))).unconverted).toEqual(['USD']);
  });

  it('VAT OSS: supplies per country, type and rate in EUR, a correction of Q1, the rest excluded', () => {
    const r = buildVatOss(ossInput());
    expect(
      r.countries.map((c) => [
        c.country,
        c.supplies.map((s) => [s.supplyType, s.rateType, s.vatRate, s.taxableAmount, s.vatAmount]),
        c.correctionsTotal,
        c.balance,
      ]),
    ).toEqual([
      ['EL', [['SERVICES', 'STANDARD', 24, 4000, 960]], 0, 960],
      [
        'FR',
        [
          ['GOODS', 'REDUCED', 5.5, 10000, 550],
          ['SERVICES', 'STANDARD', 20, 15000, 3000],
        ],
        -2000,
        1550,
      ],
    ]);
    expect(r.countries[1]!.corrections).toEqual([
      {
        year: 2026,
        quarter: 1,
        vatAmount: -2000,
        declaredVat: 2000,
        conversions: [
          { currency: 'EUR', net: 0, tax: -2000, rate: 1, rateDate: '2026-06-30', eurNet: 0, eurTax: -2000 },
        ],
      },
    ]);
    expect(r.totals).toEqual({ taxableAmount: 29000, vatAmount: 4510, correctionsTotal: -2000, balance: 2510 });
    expect(r.excluded.map((e) => e.decision)).toEqual(['domestic', 'export']);
    expect(r.memberStateOfIdentification).toBe('DE');
  });

  it('VAT OSS without the rate of a currency it declares is refused, not guessed', () => {
    expect(() => buildVatOss(ossInput({ eur: new EurConverter({}, period.endDate) }))).toThrow(
      expect.objectContaining({ code: ErrorCode.TAX_REPORT_EUR_RATE_MISSING }),
    );
  });
});

describe('EUR rates: the ECB publication of the last day of the period, or the next one; a given rate wins', () => {
  // Q2 2026 ends on Tuesday 30 June; a quarter ending on a Saturday takes Monday's publication.
  const ecb = (date: string, rates: Record<string, number>) => ({
    kind: 'published' as const,
    day: period.endDate,
    publication: { date, rates },
  });

  it('converts at the ECB rate of the publication and says which day and source each currency used', () => {
    const conv = new EurConverter({ GBP: 0.8 }, period.endDate, ecb('2026-06-30', { USD: 1.25, GBP: 0.85, JPY: 160 }));
    const rows = byCountryRows([...lines, line({ taxCountry: 'FR', currency: 'GBP', net: 800, tax: 160 })], conv);
    expect(rows.find((r) => r.currency === 'USD')?.eur).toEqual({
      rate: 1.25,
      rateDate: '2026-06-30',
      net: 4000,
      tax: 960,
      gross: 4960,
    });
    expect(rows.find((r) => r.currency === 'GBP')?.eur).toEqual({
      rate: 0.8,
      rateDate: '2026-06-30',
      net: 1000,
      tax: 200,
      gross: 1200,
    });
    expect(conv.summary()).toEqual({
      eurRates: [
        { currency: 'GBP', rate: 0.8, rateDate: '2026-06-30', source: 'caller' },
        { currency: 'USD', rate: 1.25, rateDate: '2026-06-30', source: 'ecb' },
      ],
      eurRatesMissing: [],
    });
    const monday = new EurConverter({}, '2026-10-03', ecb('2026-10-05', { USD: 1.2 }));
    expect(monday.amounts('USD', { net: 1200, tax: 0 })).toMatchObject({
      rate: 1.2,
      rateDate: '2026-10-05',
      net: 1000,
    });
  });

  it('a currency the ECB does not quote, or a publication not out yet, stays unconverted with the reason', () => {
    const unquoted = new EurConverter({}, period.endDate, ecb('2026-06-30', { GBP: 0.85 }));
    expect(totalsOf(byCountryRows(lines, unquoted)).unconverted).toEqual(['USD']);
    expect(unquoted.summary().eurRatesMissing).toEqual([
      {
        currency: 'USD',
        rateDate: '2026-06-30',
        reason: 'not_quoted',
        message: 'the ECB publishes no reference rate for USD (publication of 2026-06-30)',
      },
    ]);
    const early = new EurConverter({}, period.endDate, {
      kind: 'not_published',
      day: period.endDate,
      latest: '2026-06-29',
    });
    byCountryRows(lines, early);
    expect(early.summary()).toEqual({
      eurRates: [],
      eurRatesMissing: [
        {
          currency: 'USD',
          rateDate: '2026-06-30',
          reason: 'not_published',
          message:
            'the ECB reference rate for 2026-06-30 (or the next publication day) is not published yet; the latest kept is of 2026-06-29',
        },
      ],
    });
    expect(() => buildVatOss(ossInput({ eur: early }))).toThrow(
      /no EUR rate for USD: the ECB reference rate for 2026-06-30 \(or the next publication day\) is not published yet/,
    );
    // The caller's rate files the return at once.
    const given = new EurConverter({ USD: 1.25 }, period.endDate, {
      kind: 'not_published',
      day: period.endDate,
      latest: '2026-06-29',
    });
    expect(buildVatOss(ossInput({ eur: given })).eurRates).toEqual([
      { currency: 'USD', rate: 1.25, rateDate: '2026-06-30', source: 'caller' },
    ]);
  });

  it('VAT OSS conversions carry the ECB publication day', () => {
    const r = buildVatOss(ossInput({ eur: new EurConverter({}, period.endDate, ecb('2026-06-30', { USD: 1.25 })) }));
    expect(r.countries[0]!.supplies[0]!.conversions).toEqual([
      { currency: 'USD', net: 5000, tax: 1200, rate: 1.25, rateDate: '2026-06-30', eurNet: 4000, eurTax: 960 },
    ]);
    expect(r.eurRates).toEqual([{ currency: 'USD', rate: 1.25, rateDate: '2026-06-30', source: 'ecb' }]);
  });
});

describe('export files', () => {
  it('writes exact decimals of minor units', () => {
    expect([decimal(12345), decimal(-5), decimal(0), decimal(100), decimal(1500, 0), decimal(-123456, 3)]).toEqual([
      '123.45',
      '-0.05',
      '0.00',
      '1.00',
      '1500',
      '-123.456',
    ]);
  });

  it('the by-country CSV parses back to the report rows', () => {
    const rows = byCountryRows(lines, eur);
    const file = byCountryCsv({
      ...echo,
      ...eur.summary(),
      period: periodOf('2026-04-01', '2026-06-30', 'UTC'),
      data: rows,
      totals: totalsOf(rows),
    });
    expect(file.filename).toBe('tax-by-country_2026-04-01_2026-06-30.csv');
    const parsed = parse(file.content, { columns: true }) as Record<string, string>[];
    expect(parsed[2]).toEqual({
      country: 'GR',
      currency: 'USD',
      net: '50.00',
      tax: '12.00',
      gross: '62.00',
      lines: '1',
      eur_rate: '1.25',
      eur_rate_date: '2026-06-30',
      eur_rate_source: 'caller',
      eur_net: '40.00',
      eur_tax: '9.60',
      eur_gross: '49.60',
    });
    expect(parsed.reduce((s, r) => s + Math.round(Number(r.eur_tax) * 100), 0)).toBe(totalsOf(rows).eur.tax);
  });

  it('the OSS XML follows the core return: per member state the supplies and corrections, totals equal', () => {
    const report = buildVatOss(ossInput());
    const xml = vatOssXml(report, '2026-07-10T08:00:00.000Z');
    expect(xml.contentType).toBe('application/xml; charset=utf-8');
    const ret = (create(xml.content).end({ format: 'object' }) as any).CoreVatReturn;
    expect(ret['@xmlns']).toBe('urn:paymesh:tax:oss-return:1');
    expect(ret).toMatchObject({
      vatReturnReferenceNumber: 'DE/DE321571435/Q2.2026',
      period: { year: '2026', quarter: '2' },
      totalAmountVatDue: '25.10',
      currency: 'EUR',
    });
    const fr = ret.msconSupplies.msconSupply[1];
    expect(fr).toMatchObject({
      msconCountryCode: 'FR',
      balanceOfVatDue: '15.50',
      correctionsTotal: '-20.00',
      corrections: { correction: { period: { year: '2026', quarter: '1' }, totalVatAmountCorrection: '-20.00' } },
    });
    expect(ret.exchangeRates).toEqual({
      exchangeRate: { currency: 'USD', rate: '1.25', rateDate: '2026-06-30', source: 'caller' },
    });
    expect(fr.msidSupplies.msidSupply).toEqual([
      { supplyType: 'GOODS', vatRate: '5.50', vatRateType: 'REDUCED', taxableAmount: '100.00', vatAmount: '5.50' },
      {
        supplyType: 'SERVICES',
        vatRate: '20.00',
        vatRateType: 'STANDARD',
        taxableAmount: '150.00',
        vatAmount: '30.00',
      },
    ]);
  });

  it('the BZSt CSV: #v2.0, record 1 per country, 2 services, 3 goods, 6 corrections, no zero rows', () => {
    const report = buildVatOss(
      ossInput({
        lines: [
          ...lines,
          line({ taxCountry: 'NL', buyerCountry: 'NL', taxRate: 21, net: 100, tax: -100 }),
          line({ taxCountry: 'NL', buyerCountry: 'NL', taxRate: 21, net: -100, tax: 100 }),
        ],
      }),
    );
    expect(vatOssElsterCsv(report).content).toBe(
      [
        '#v2.0',
        '1,EL',
        '2,EL,STANDARD,24.00,40.00,9.60',
        '1,FR',
        '3,FR,REDUCED,5.50,100.00,5.50',
        '2,FR,STANDARD,20.00,150.00,30.00',
        '6,FR,2026,1,20.00,0.00',
        '',
      ].join('\n'),
    );
  });
});
