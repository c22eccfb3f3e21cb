import { describe, expect, it } from 'vitest';
import {
  counterPeriodKey,
  DEFAULT_INVOICE_LAYOUT,
  formatDocumentNumber,
  layoutIdentity,
  zonedDay,
  canonicalTimeZone,
  type NumberingLayout,
} from './numbering';

const layout = (over: Partial<NumberingLayout>): NumberingLayout => ({ ...DEFAULT_INVOICE_LAYOUT, ...over });

/** The fiscal layout of the invoices issue: FY from April, labelled by its end year. */
const FISCAL_APRIL = layout({
  prefix: 'INV',
  periodType: 'fiscal',
  fiscalYearStartMonth: 4,
  fiscalYearLabelMode: 'end_year',
  periodGranularity: 'year',
  periodSeparator: 'dash',
  sequenceDigits: 5,
  resetPolicy: 'fiscal_year',
});

describe('document numbers by layout (table)', () => {
  const rows: Array<[string, NumberingLayout, string, number, string, string]> = [
    // name, layout, issue day, sequence, number, counter bucket
    ['calendar year', layout({}), '2026-07-14', 1, 'INV-2026-00001', 'cy2026'],
    ['calendar year, last day', layout({}), '2026-12-31', 99, 'INV-2026-00099', 'cy2026'],
    ['fiscal April end_year, before April', FISCAL_APRIL, '2027-03-31', 12, 'INV-2027-00012', 'fy2027'],
    ['fiscal April end_year, from April', FISCAL_APRIL, '2027-04-01', 1, 'INV-2028-00001', 'fy2028'],
    [
      'fiscal April start_year',
      { ...FISCAL_APRIL, fiscalYearLabelMode: 'start_year' },
      '2027-03-31',
      3,
      'INV-2026-00003',
      'fy2027',
    ],
    [
      'year_month with separator',
      layout({ periodGranularity: 'year_month' }),
      '2026-02-03',
      7,
      'INV-2026-02-00007',
      'cy2026',
    ],
    [
      'year_month without separator',
      layout({ periodGranularity: 'year_month', periodSeparator: 'none' }),
      '2026-02-03',
      7,
      'INV-202602-00007',
      'cy2026',
    ],
    [
      'never resets',
      layout({ periodType: 'none', resetPolicy: 'never', sequenceDigits: 6 }),
      '2031-01-01',
      1234,
      'INV-001234',
      'all',
    ],
    ['site prefix override', layout({ prefix: 'SHOP' }), '2026-05-05', 2, 'SHOP-2026-00002', 'cy2026'],
    [
      'start number 1000',
      layout({ startNumber: 1000, sequenceDigits: 4 }),
      '2026-05-05',
      1000,
      'INV-2026-1000',
      'cy2026',
    ],
  ];
  it.each(rows)('%s', (_name, l, day, seq, number, bucket) => {
    expect(formatDocumentNumber(l, day, seq)).toBe(number);
    expect(counterPeriodKey(l, day)).toBe(bucket);
  });

  it('restarts the counter bucket at the reset boundary and nowhere else', () => {
    expect(counterPeriodKey(layout({}), '2026-12-31')).not.toBe(counterPeriodKey(layout({}), '2027-01-01'));
    expect(counterPeriodKey(FISCAL_APRIL, '2027-01-01')).toBe(counterPeriodKey(FISCAL_APRIL, '2027-03-31'));
    expect(counterPeriodKey(FISCAL_APRIL, '2027-03-31')).not.toBe(counterPeriodKey(FISCAL_APRIL, '2027-04-01'));
    expect(counterPeriodKey(layout({ periodType: 'none', resetPolicy: 'never' }), '2026-01-01')).toBe(
      counterPeriodKey(layout({ periodType: 'none', resetPolicy: 'never' }), '2040-06-01'),
    );
  });
});

describe('the organization time zone decides the day', () => {
  const lateNewYearsEve = new Date('2026-12-31T23:30:00Z');

  it('an invoice issued at 23:30 UTC on 31 December is next year in Europe/Berlin', () => {
    expect(zonedDay(lateNewYearsEve, 'Europe/Berlin')).toBe('2027-01-01');
    expect(formatDocumentNumber(layout({}), lateNewYearsEve, 1, 'Europe/Berlin')).toBe('INV-2027-00001');
    expect(counterPeriodKey(layout({}), lateNewYearsEve, 'Europe/Berlin')).toBe('cy2027');
  });

  it('the same instant is still the old year in UTC and in America/New_York', () => {
    expect(formatDocumentNumber(layout({}), lateNewYearsEve, 1)).toBe('INV-2026-00001');
    expect(formatDocumentNumber(layout({}), lateNewYearsEve, 1, 'America/New_York')).toBe('INV-2026-00001');
  });

  it('the fiscal year turns on local 1 April', () => {
    const instant = new Date('2027-03-31T22:30:00Z');
    expect(formatDocumentNumber(FISCAL_APRIL, instant, 5, 'Europe/Berlin')).toBe('INV-2028-00005');
    expect(formatDocumentNumber(FISCAL_APRIL, instant, 5, 'UTC')).toBe('INV-2027-00005');
  });

  it('knows IANA names and refuses others', () => {
    expect(canonicalTimeZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('Mars/Olympus')).toBeNull();
  });
});

describe('layoutIdentity', () => {
  it('separates counters of layouts whose numbers differ and shares them when only digits differ', () => {
    expect(layoutIdentity(layout({ prefix: 'A' }))).not.toBe(layoutIdentity(layout({ prefix: 'B' })));
    expect(layoutIdentity(layout({ sequenceDigits: 5 }))).toBe(layoutIdentity(layout({ sequenceDigits: 6 })));
  });
});
