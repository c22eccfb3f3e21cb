import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { taxCategory, taxPercent, taxRateCode } from '@paymesh/contracts';
import { DEFAULT_RATES, RATE_CATEGORIES, type DefaultTaxRate } from './default-rates';
import { DEFAULT_RULES } from './default-rules';
import { EU_MEMBER_STATES } from './eu';

/** sales-tax's data file, read directly (never through its online VAT number check). */
interface SalesTaxEntry {
  type: string;
  rate: number;
  before?: Record<string, { rate: number }>;
}
const salesTaxRates = JSON.parse(
  readFileSync(createRequire(import.meta.url).resolve('sales-tax/res/sales_tax_rates.json'), 'utf8'),
) as Record<string, SalesTaxEntry>;

const MEMBERS = Object.keys(EU_MEMBER_STATES);
const today = new Date().toISOString().slice(0, 10);

function validOn(r: DefaultTaxRate, date: string): boolean {
  return r.validFrom <= date && (r.validTo === null || date < r.validTo);
}
function standardOn(cc: string, date: string): DefaultTaxRate[] {
  return DEFAULT_RATES.filter((r) => r.country === cc && r.rateType === 'standard' && validOn(r, date));
}
function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

describe('DEFAULT_RATES', () => {
  it("today's standard rate of every member state matches sales-tax's current rate", () => {
    const mismatches = MEMBERS.flatMap((cc) => {
      const ours = standardOn(cc, today).map((r) => r.percent);
      const theirs = Math.round(salesTaxRates[cc]!.rate * 10000) / 100;
      return ours.length === 1 && ours[0] === theirs ? [] : [`${cc}: ours ${ours.join('/')} vs sales-tax ${theirs}`];
    });
    expect(mismatches).toEqual([]);
  });

  it("matches sales-tax's earlier standard rates of changes since 2024 (two days before each change)", () => {
    let compared = 0;
    for (const cc of MEMBERS) {
      for (const [instant, before] of Object.entries(salesTaxRates[cc]!.before ?? {})) {
        const day = addDays(instant.slice(0, 10), -2);
        if (day < '2024-01-01') continue;
        compared += 1;
        expect(
          standardOn(cc, day).map((r) => r.percent),
          `${cc} on ${day}`,
        ).toEqual([Math.round(before.rate * 10000) / 100]);
      }
    }
    expect(compared).toBeGreaterThanOrEqual(4); // FI 2024, EE 2025, SK 2025, RO 2025 at least
  });

  it('every member state (and XI) has exactly one standard rate on every day from 2024-01-01 until today', () => {
    const gaps: string[] = [];
    for (const cc of [...MEMBERS, 'XI']) {
      for (let day = '2024-01-01'; day <= today; day = addDays(day, 1)) {
        if (standardOn(cc, day).length !== 1) gaps.push(`${cc} ${day}`);
      }
    }
    expect(gaps).toEqual([]);
  });

  it('has no overlapping periods per code', () => {
    const byCode = new Map<string, DefaultTaxRate[]>();
    for (const r of DEFAULT_RATES) byCode.set(r.code, [...(byCode.get(r.code) ?? []), r]);
    for (const [code, rows] of byCode) {
      const sorted = [...rows].sort((a, b) => a.validFrom.localeCompare(b.validFrom));
      for (let i = 1; i < sorted.length; i += 1) {
        expect(sorted[i - 1]!.validTo, `${code} ${sorted[i - 1]!.validFrom}`).not.toBeNull();
        expect(sorted[i - 1]!.validTo! <= sorted[i]!.validFrom, `${code} overlaps at ${sorted[i]!.validFrom}`).toBe(
          true,
        );
      }
    }
  });

  it('every entry is well-formed and names its source', () => {
    for (const r of DEFAULT_RATES) {
      const where = `${r.code}@${r.validFrom}`;
      expect(r.source.trim().length, where).toBeGreaterThan(10);
      expect(taxPercent.safeParse(r.percent).success, `${where} percent ${r.percent}`).toBe(true);
      expect(Math.round(r.percent * 100) / 100, where).toBe(r.percent);
      expect(taxRateCode.safeParse(r.code).success, where).toBe(true);
      expect(r.validTo === null || r.validFrom < r.validTo, where).toBe(true);
      expect(r.code.startsWith(`VAT_${r.country}_`), where).toBe(true);
      const suffix = r.code.slice(`VAT_${r.country}_`.length);
      const expected = {
        standard: /^STANDARD$/,
        reduced: /^REDUCED(_\d+(_\d+)?)?$/,
        super_reduced: /^SUPER_REDUCED$/,
        zero: /^ZERO$/,
      }[r.rateType];
      expect(suffix, where).toMatch(expected);
      if (/^REDUCED_/.test(suffix))
        expect(suffix.slice('REDUCED_'.length).replace('_', '.'), where).toBe(String(r.percent));
      if (r.rateType === 'standard') expect(r.categories, where).toEqual([]);
      else expect(r.categories.length, where).toBeGreaterThan(0);
      for (const c of r.categories) {
        expect(RATE_CATEGORIES as readonly string[], where).toContain(c);
        expect(taxCategory.safeParse(c).success).toBe(true);
      }
    }
  });

  it('a category has at most one rate of a type per country and day (no ambiguous choice)', () => {
    const dates = [...new Set(DEFAULT_RATES.flatMap((r) => [r.validFrom, r.validTo ?? today]))].filter(
      (d) => d >= '2024-01-01',
    );
    for (const date of dates) {
      const seen = new Set<string>();
      for (const r of DEFAULT_RATES.filter((x) => validOn(x, date))) {
        for (const c of r.categories) {
          const key = `${r.country}/${r.rateType}/${c}`;
          expect(seen.has(key), `${key} on ${date}`).toBe(false);
          seen.add(key);
        }
      }
    }
  });

  it('Greece is GR, not its VAT prefix EL', () => {
    expect(DEFAULT_RATES.some((r) => r.country === 'EL')).toBe(false);
    expect(standardOn('GR', today).map((r) => r.percent)).toEqual([24]);
  });
});

describe('DEFAULT_RULES', () => {
  it('have unique keys, one catch-all standard rule, and categories of the vocabulary', () => {
    expect(new Set(DEFAULT_RULES.map((r) => r.key)).size).toBe(DEFAULT_RULES.length);
    expect(DEFAULT_RULES.filter((r) => r.category === null && r.itemType === null && r.country === null)).toEqual([
      expect.objectContaining({ key: 'default_standard', rateType: 'standard' }),
    ]);
    for (const r of DEFAULT_RULES)
      if (r.category !== null) expect(RATE_CATEGORIES as readonly string[]).toContain(r.category);
  });
});
