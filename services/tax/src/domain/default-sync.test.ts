import { describe, expect, it } from 'vitest';
import type { DefaultTaxRate } from './default-rates';
import { missingDefaultRules, planDefaultRateSync } from './default-sync';
import { defaultRateFields, defaultRateKey, rateDocBody, type TaxRateDoc } from './tax-rate-doc';

const key = { organizationId: 'a'.repeat(24), mode: 'live' as const };
const t = '2026-01-01T00:00:00.000Z';

const std: DefaultTaxRate = {
  code: 'VAT_DE_STANDARD',
  country: 'DE',
  rateType: 'standard',
  percent: 19,
  categories: [],
  validFrom: '2021-01-01',
  validTo: null,
  source: 'UStG § 12 (1)',
};
const red: DefaultTaxRate = {
  code: 'VAT_DE_REDUCED',
  country: 'DE',
  rateType: 'reduced',
  percent: 7,
  categories: ['books', 'food'],
  validFrom: '2021-01-01',
  validTo: null,
  source: 'UStG § 12 (2)',
};

let n = 0;
function doc(
  fields: Partial<TaxRateDoc> & Pick<TaxRateDoc, 'code' | 'validFrom'>,
  managed: boolean,
  defaultKey: string | null,
): TaxRateDoc {
  const base = rateDocBody(
    key,
    { ...defaultRateFields(std), ...fields },
    { managed, defaultKey, createdAt: t, updatedAt: t },
  );
  n += 1;
  return { ...base, ...fields, id: n.toString(16).padStart(24, '0'), version: 1 };
}
const managedOf = (d: DefaultTaxRate, over: Partial<TaxRateDoc> = {}) =>
  doc({ ...defaultRateFields(d), ...over }, true, defaultRateKey(d));

describe('planDefaultRateSync', () => {
  it('creates every default into an empty book', () => {
    const plan = planDefaultRateSync([std, red], []);
    expect(plan.create.map((c) => c.defaultKey)).toEqual(['VAT_DE_STANDARD@2021-01-01', 'VAT_DE_REDUCED@2021-01-01']);
    expect(plan.create[1]?.fields).toMatchObject({
      percent: 7,
      categories: ['books', 'food'],
      source: 'UStG § 12 (2)',
    });
    expect(plan).toMatchObject({ update: [], retire: [], unchanged: 0, skipped: [] });
  });

  it('leaves equal managed rates alone (categories in any order) and updates the changed ones', () => {
    const a = managedOf(std);
    const b = managedOf(red, { categories: ['food', 'books'] });
    expect(planDefaultRateSync([std, red], [a, b])).toMatchObject({ create: [], update: [], retire: [], unchanged: 2 });
    const stale = managedOf(std, { percent: 16, validTo: '2021-06-30', source: 'old' });
    const plan = planDefaultRateSync([std], [stale]);
    expect(plan.update).toHaveLength(1);
    expect(plan.update[0]?.doc.id).toBe(stale.id);
    expect(plan.update[0]?.fields).toMatchObject({ percent: 19, validTo: null, source: 'UStG § 12 (1)' });
  });

  it('retires managed rates whose default is gone, never custom ones', () => {
    const gone = doc({ code: 'VAT_DE_OLD', validFrom: '2020-07-01' }, true, 'VAT_DE_OLD@2020-07-01');
    const custom = doc({ code: 'MY_RATE', validFrom: '2020-01-01' }, false, null);
    const plan = planDefaultRateSync([std], [gone, custom, managedOf(std)]);
    expect(plan.retire.map((d) => d.id)).toEqual([gone.id]);
    expect(plan.unchanged).toBe(1);
  });

  it('never overwrites a default the merchant edited, nor creates one that collides with a custom rate', () => {
    const edited = doc({ ...defaultRateFields(std), percent: 20 }, false, defaultRateKey(std));
    const custom = doc({ code: 'VAT_DE_REDUCED', validFrom: '2020-01-01', validTo: null, percent: 5 }, false, null);
    const plan = planDefaultRateSync([std, red], [edited, custom]);
    expect(plan.create).toEqual([]);
    expect(plan.update).toEqual([]);
    expect(plan.skipped).toEqual([
      { code: 'VAT_DE_STANDARD', validFrom: '2021-01-01', reason: 'customized', rateId: edited.id },
      { code: 'VAT_DE_REDUCED', validFrom: '2021-01-01', reason: 'conflicts_with_custom', rateId: custom.id },
    ]);
  });

  it('creates a default next to a custom rate of the same code whose period ends before it', () => {
    const earlier = doc(
      { code: 'VAT_DE_STANDARD', validFrom: '2020-07-01', validTo: '2021-01-01', percent: 16 },
      false,
      null,
    );
    expect(planDefaultRateSync([std], [earlier]).create).toHaveLength(1);
  });
});

describe('missingDefaultRules', () => {
  const rule = (k: string) => ({
    key: k,
    name: k,
    itemType: null,
    category: null,
    country: null,
    rateType: 'standard' as const,
    priority: 0,
    description: '',
  });
  it('names the defaults no stored rule carries the key of', () => {
    expect(
      missingDefaultRules([rule('a'), rule('b')], [{ defaultKey: 'a' }, { defaultKey: null }]).map((r) => r.key),
    ).toEqual(['b']);
    expect(missingDefaultRules([rule('a')], [{ defaultKey: 'a' }])).toEqual([]);
  });
});
