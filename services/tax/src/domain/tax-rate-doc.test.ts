import { describe, expect, it } from 'vitest';
import { isCalendarDate, periodsOverlap, validateRateFields, type TaxRateFields } from './tax-rate-doc';
import { ruleSpecificity } from './tax-rule-doc';

const f: TaxRateFields = {
  code: 'X',
  country: 'DE',
  rateType: 'standard',
  percent: 19,
  categories: [],
  validFrom: '2025-01-01',
  validTo: null,
  source: null,
  description: null,
};

describe('rate fields', () => {
  it('needs an assigned ISO country, real days and an end after the start', () => {
    expect(validateRateFields({ ...f, categories: ['food', 'food'] }).categories).toEqual(['food']);
    expect(() => validateRateFields({ ...f, country: 'XX' })).toThrow(/country: XX is not an ISO/);
    expect(() => validateRateFields({ ...f, validFrom: '2025-02-30' })).toThrow(/validFrom/);
    expect(() => validateRateFields({ ...f, validTo: '2025-01-01' })).toThrow(/validTo must be after validFrom/);
    expect(() => validateRateFields({ ...f, validTo: '2024-12-31' })).toThrow(/validTo must be after validFrom/);
    expect(validateRateFields({ ...f, validTo: '2025-01-02' }).validTo).toBe('2025-01-02');
  });

  it('tells calendar days', () => {
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('2025-02-29')).toBe(false);
    expect(isCalendarDate('2025-13-01')).toBe(false);
  });

  it('treats validTo as exclusive when comparing periods', () => {
    const a = { validFrom: '2024-01-01', validTo: '2025-07-01' };
    expect(periodsOverlap(a, { validFrom: '2025-07-01', validTo: null })).toBe(false);
    expect(periodsOverlap(a, { validFrom: '2025-06-30', validTo: null })).toBe(true);
    expect(
      periodsOverlap({ validFrom: '2020-01-01', validTo: null }, { validFrom: '2030-01-01', validTo: '2031-01-01' }),
    ).toBe(true);
    expect(periodsOverlap({ validFrom: '2026-01-01', validTo: null }, a)).toBe(false);
  });
});

describe('rule specificity', () => {
  it('weighs country over category over item type', () => {
    const none = { country: null, category: null, itemType: null };
    expect(ruleSpecificity({ ...none, country: 'DE' })).toBeGreaterThan(
      ruleSpecificity({ ...none, category: 'books', itemType: 'goods' }),
    );
    expect(ruleSpecificity({ ...none, category: 'books' })).toBeGreaterThan(
      ruleSpecificity({ ...none, itemType: 'goods' }),
    );
    expect(ruleSpecificity(none)).toBe(0);
  });
});
