import { describe, expect, it } from 'vitest';
import {
  counterPeriodKey,
  DEFAULT_CREDIT_NOTE_LAYOUT,
  DEFAULT_INVOICE_LAYOUT,
  formatDocumentNumber,
  layoutAmbiguity,
  type NumberingLayout,
} from './numbering';

const layout = (over: Partial<NumberingLayout>): NumberingLayout => ({ ...DEFAULT_INVOICE_LAYOUT, ...over });
const d = (iso: string) => new Date(`${iso}T12:00:00Z`);

describe('formatDocumentNumber', () => {
  it('formats the calendar year_month example from the layout', () => {
    expect(formatDocumentNumber(layout({ periodGranularity: 'year_month' }), d('2026-11-05'), 42)).toBe(
      'INV-2026-11-00042',
    );
  });

  it('uses the defaults INV-<year>-<5 digits> and CN-<year>-<5 digits>', () => {
    expect(formatDocumentNumber(DEFAULT_INVOICE_LAYOUT, d('2026-01-31'), 1)).toBe('INV-2026-00001');
    expect(formatDocumentNumber(DEFAULT_CREDIT_NOTE_LAYOUT, d('2026-01-31'), 7)).toBe('CN-2026-00007');
  });

  it('omits the period for periodType none', () => {
    expect(formatDocumentNumber(layout({ periodType: 'none', resetPolicy: 'never' }), d('2026-11-05'), 42)).toBe(
      'INV-00042',
    );
  });

  it('joins month and day without a separator for periodSeparator none', () => {
    const l = layout({ periodGranularity: 'year_month_day', periodSeparator: 'none' });
    expect(formatDocumentNumber(l, d('2026-03-09'), 3)).toBe('INV-20260309-00003');
    expect(formatDocumentNumber(layout({ periodGranularity: 'year_month_day' }), d('2026-03-09'), 3)).toBe(
      'INV-2026-03-09-00003',
    );
  });

  it('places infix before and suffix after the sequence and skips empty parts', () => {
    const l = layout({ prefix: 'RE', infix: 'B2B', suffix: 'EU', sequenceDigits: 4 });
    expect(formatDocumentNumber(l, d('2026-06-01'), 12)).toBe('RE-2026-B2B-0012-EU');
    expect(
      formatDocumentNumber(
        layout({ prefix: '', periodType: 'none', resetPolicy: 'never', sequenceDigits: 3 }),
        d('2026-06-01'),
        5,
      ),
    ).toBe('005');
  });

  it('never truncates a sequence longer than sequenceDigits', () => {
    expect(formatDocumentNumber(layout({ sequenceDigits: 2 }), d('2026-06-01'), 12345)).toBe('INV-2026-12345');
  });

  it('labels a fiscal year by its end year or its start year', () => {
    const april = layout({ periodType: 'fiscal', fiscalYearStartMonth: 4, resetPolicy: 'fiscal_year' });
    expect(formatDocumentNumber(april, d('2026-03-31'), 1)).toBe('INV-2026-00001');
    expect(formatDocumentNumber(april, d('2026-04-01'), 1)).toBe('INV-2027-00001');
    const startLabel = { ...april, fiscalYearLabelMode: 'start_year' as const };
    expect(formatDocumentNumber(startLabel, d('2026-03-31'), 1)).toBe('INV-2025-00001');
    expect(formatDocumentNumber(startLabel, d('2026-04-01'), 1)).toBe('INV-2026-00001');
  });

  it('shows the calendar month under a fiscal year label', () => {
    const l = layout({
      periodType: 'fiscal',
      periodGranularity: 'year_month',
      fiscalYearStartMonth: 7,
      resetPolicy: 'fiscal_year',
    });
    expect(formatDocumentNumber(l, d('2026-08-15'), 9)).toBe('INV-2027-08-00009');
  });

  it('uses the UTC calendar day of the date', () => {
    expect(
      formatDocumentNumber(layout({ periodGranularity: 'year_month_day' }), new Date('2026-12-31T23:59:59Z'), 1),
    ).toBe('INV-2026-12-31-00001');
  });

  it('rejects a sequence below 1 and an invalid date', () => {
    expect(() => formatDocumentNumber(DEFAULT_INVOICE_LAYOUT, d('2026-01-01'), 0)).toThrow(RangeError);
    expect(() => formatDocumentNumber(DEFAULT_INVOICE_LAYOUT, new Date('nope'), 1)).toThrow(RangeError);
  });
});

describe('counterPeriodKey', () => {
  it('keeps one bucket for never, one per calendar year, one per fiscal year', () => {
    expect(counterPeriodKey(layout({ resetPolicy: 'never' }), d('2026-05-01'))).toBe('all');
    expect(counterPeriodKey(layout({ resetPolicy: 'calendar_year' }), d('2026-05-01'))).toBe('cy2026');
    const fy = layout({ periodType: 'fiscal', resetPolicy: 'fiscal_year', fiscalYearStartMonth: 4 });
    expect(counterPeriodKey(fy, d('2026-03-31'))).toBe('fy2026');
    expect(counterPeriodKey(fy, d('2026-04-01'))).toBe('fy2027');
  });
});

describe('layoutAmbiguity', () => {
  it('accepts the defaults and any layout that never resets', () => {
    expect(layoutAmbiguity(DEFAULT_INVOICE_LAYOUT)).toBeNull();
    expect(layoutAmbiguity(layout({ periodType: 'none', resetPolicy: 'never' }))).toBeNull();
  });

  it('rejects a yearly reset when the number shows no period', () => {
    expect(layoutAmbiguity(layout({ periodType: 'none', resetPolicy: 'calendar_year' }))).toMatch(/repeats numbers/);
  });

  it('rejects a fiscal reset under a calendar year label only when the month is hidden and the fiscal year is offset', () => {
    const base = layout({ periodType: 'calendar', resetPolicy: 'fiscal_year', fiscalYearStartMonth: 4 });
    expect(layoutAmbiguity(base)).toMatch(/fiscal year does not start in January/);
    expect(layoutAmbiguity({ ...base, periodGranularity: 'year_month' })).toBeNull();
    expect(layoutAmbiguity({ ...base, fiscalYearStartMonth: 1 })).toBeNull();
  });

  it('rejects a calendar reset under a fiscal year label with an offset fiscal year and no month', () => {
    expect(
      layoutAmbiguity(layout({ periodType: 'fiscal', resetPolicy: 'calendar_year', fiscalYearStartMonth: 10 })),
    ).not.toBeNull();
  });
});
