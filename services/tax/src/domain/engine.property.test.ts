import { describe, expect, it } from 'vitest';
import { TAX_ITEM_TYPES, type TaxCalculation, type TaxLineInput, type VatIdCheck } from '@paymesh/contracts';
import { calculateTax, type EngineContext, type EngineInput, type EngineRate, type EngineRule } from './engine';
import { DEFAULT_RATES } from './default-rates';
import { DEFAULT_RULES } from './default-rules';
import { EU_MEMBER_STATES } from './eu';
import { defaultTaxSettings, type TaxSettings } from './tax-settings';

// Property checks over random inputs from a seeded PRNG (reproducible: a failure names its seed).
// Expectations are derived with plain BigInt fractions here, not with the engine's rounding code.

const RATES: EngineRate[] = DEFAULT_RATES.map((r, i) => ({ ...r, id: `r${i}`, categories: [...r.categories] }));
const RULES: EngineRule[] = DEFAULT_RULES.map((r, i) => ({ ...r, id: `u${i}` }));
const MEMBERS = Object.keys(EU_MEMBER_STATES);
const CATEGORIES = [undefined, undefined, 'books', 'food', 'newspapers', 'medicines', 'restaurant', 'software'];

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Scenario {
  input: EngineInput;
  settings: TaxSettings;
  exceeded: boolean;
}

function scenario(seed: number): Scenario {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const day = new Date(Date.UTC(2024, 0, 1) + int(0, 1058) * 86_400_000).toISOString().slice(0, 10);
  const lines: TaxLineInput[] = Array.from({ length: int(1, 12) }, (_, i) => {
    const line: TaxLineInput = {
      name: `line ${i}`,
      quantity: int(1, 5),
      unitPrice: rnd() < 0.15 ? -int(1, 5000) : int(1, 250_000),
      itemType: pick(TAX_ITEM_TYPES),
    };
    const category = pick(CATEGORIES);
    if (category !== undefined) line.category = category;
    if (rnd() < 0.3) line.amountType = pick(['gross', 'net'] as const);
    if (rnd() < 0.1) line.taxRate = pick([0, 5, 7, 10, 19, 25.5]);
    if (rnd() < 0.1) line.shipToCountry = pick([...MEMBERS, 'CH']);
    return line;
  });
  const business = rnd() < 0.25;
  const vatIdCheck: VatIdCheck = {
    vatId: business ? 'FR40303265045' : null,
    status: business ? 'valid' : 'not_given',
    source: business ? 'vies' : null,
    checkedAt: null,
    consultationNumber: null,
    companyName: null,
    address: null,
    error: null,
  };
  const settings: TaxSettings = {
    ...defaultTaxSettings(),
    homeCountry: rnd() < 0.05 ? null : pick(MEMBERS),
    ossEnabled: rnd() < 0.5,
    priceMode: pick(['gross', 'net'] as const),
    rounding: { level: pick(['per_line', 'per_document'] as const), method: pick(['half_up', 'half_even'] as const) },
  };
  const input: EngineInput = {
    date: day,
    currency: 'EUR',
    priceMode: settings.priceMode,
    lines,
    buyer: { country: pick([...MEMBERS, 'US', 'XI']), postcode: null },
    vatIdValidation: 'vies',
    vatIdCheck,
  };
  return { input, settings, exceeded: rnd() < 0.3 };
}

function run(s: Scenario, rounding?: TaxSettings['rounding']): TaxCalculation {
  const ctx: EngineContext = {
    settings: { ...s.settings, rounding: rounding ?? s.settings.rounding },
    ossThresholdExceeded: s.exceeded,
    rates: RATES,
    rules: RULES,
    now: new Date(0),
  };
  return calculateTax(s.input, ctx);
}

/** Exact tax of a line as numerator/denominator: net·r or gross·r/(1+r), r = bp/10000. */
function exact(s: Scenario, i: number, bp: number): { n: bigint; d: bigint } {
  const line = s.input.lines[i]!;
  const base = BigInt(line.quantity) * BigInt(line.unitPrice);
  const gross = (line.amountType ?? s.input.priceMode) === 'gross';
  return gross ? { n: base * BigInt(bp), d: BigInt(10000 + bp) } : { n: base * BigInt(bp), d: 10000n };
}
const bpOf = (percent: number) => Math.round(percent * 100);
/** |a - n/d| compared with limit num/den, all exact. */
const distanceAtMost = (a: bigint, n: bigint, d: bigint, num: bigint, den: bigint) => {
  const diff = a * d - n;
  return (diff < 0n ? -diff : diff) * den <= num * d;
};

const SEEDS = Array.from({ length: 400 }, (_, i) => 1000 + i);

describe('calculateTax: properties', () => {
  it('totals are the sums of the lines and gross = net + tax, everywhere', () => {
    for (const seed of SEEDS) {
      const out = run(scenario(seed));
      const sum = (k: 'net' | 'tax' | 'gross') => out.lines.reduce((a, l) => a + l[k], 0);
      expect([out.totalNet, out.totalTax, out.totalGross], `seed ${seed}`).toEqual([
        sum('net'),
        sum('tax'),
        sum('gross'),
      ]);
      expect(out.totalGross, `seed ${seed}`).toBe(out.totalNet + out.totalTax);
      for (const l of out.lines) expect(l.gross, `seed ${seed} line ${l.index}`).toBe(l.net + l.tax);
      expect(
        out.taxBreakdown.reduce((a, e) => a + e.taxAmount, 0),
        `seed ${seed}`,
      ).toBe(out.totalTax);
      expect(
        out.taxBreakdown.reduce((a, e) => a + e.taxableBase, 0),
        `seed ${seed}`,
      ).toBe(out.totalNet);
    }
  });

  it('per line: each line is its exact tax rounded to the nearest minor unit', () => {
    for (const seed of SEEDS) {
      const s = scenario(seed);
      const out = run(s, { level: 'per_line', method: 'half_up' });
      out.lines.forEach((l, i) => {
        const { n, d } = exact(s, i, bpOf(l.taxRate));
        expect(distanceAtMost(BigInt(l.tax), n, d, 1n, 2n), `seed ${seed} line ${i}`).toBe(true);
      });
    }
  });

  it('per document: each rate group is rounded once and its lines add up to it exactly', () => {
    for (const seed of SEEDS) {
      const s = scenario(seed);
      for (const method of ['half_up', 'half_even'] as const) {
        const out = run(s, { level: 'per_document', method });
        const groups = new Map<string, number[]>();
        out.lines.forEach((l, i) =>
          groups.set(`${l.taxRateCode}|${l.taxRate}`, [...(groups.get(`${l.taxRateCode}|${l.taxRate}`) ?? []), i]),
        );
        for (const [key, idx] of groups) {
          const bp = bpOf(out.lines[idx[0]!]!.taxRate);
          // exact group tax over the common denominator 10000·(10000+bp)
          const D = 10000n * BigInt(10000 + bp);
          let N = 0n;
          for (const i of idx) {
            const { n, d } = exact(s, i, bp);
            N += n * (D / d);
          }
          const lineSum = idx.reduce((a, i) => a + out.lines[i]!.tax, 0);
          expect(distanceAtMost(BigInt(lineSum), N, D, 1n, 2n), `seed ${seed} ${method} group ${key}`).toBe(true);
          const entry = out.taxBreakdown.find((e) => `${e.taxRateCode}|${e.taxRate}` === key)!;
          expect(entry.taxAmount, `seed ${seed} ${key}`).toBe(lineSum);
          for (const i of idx) {
            const { n, d } = exact(s, i, bp);
            // largest remainder: every line within one minor unit of its exact share
            expect(distanceAtMost(BigInt(out.lines[i]!.tax), n, d, 1n, 1n), `seed ${seed} line ${i}`).toBe(true);
          }
        }
      }
    }
  });

  it('half_even differs from half_up only on exact halves, by one unit toward the even neighbour', () => {
    let halves = 0;
    let differing = 0;
    for (const seed of SEEDS) {
      const s = scenario(seed);
      const up = run(s, { level: 'per_line', method: 'half_up' });
      const even = run(s, { level: 'per_line', method: 'half_even' });
      up.lines.forEach((l, i) => {
        const { n, d } = exact(s, i, bpOf(l.taxRate));
        const isHalf = (n * 2n) % d === 0n && n % d !== 0n;
        const e = even.lines[i]!.tax;
        if (!isHalf) {
          expect(e, `seed ${seed} line ${i}`).toBe(l.tax);
          return;
        }
        halves += 1;
        // x.5: half_up gives the neighbour away from zero, half_even the even one of the two
        const away = n > 0n ? n / d + 1n : n / d - 1n;
        expect(BigInt(l.tax), `seed ${seed} line ${i}: half_up away from zero`).toBe(away);
        expect(Math.abs(e % 2), `seed ${seed} line ${i}: half_even even`).toBe(0);
        expect(BigInt(e), `seed ${seed} line ${i}`).toBe(away % 2n === 0n ? away : n / d);
        if (e !== l.tax) differing += 1;
      });
    }
    expect(halves).toBeGreaterThan(0);
    expect(differing).toBeGreaterThan(0);
  });

  it('a negated document is the mirror image (discounts and credits round symmetrically)', () => {
    for (const seed of SEEDS.slice(0, 150)) {
      const s = scenario(seed);
      const neg: Scenario = {
        ...s,
        input: { ...s.input, lines: s.input.lines.map((l) => ({ ...l, unitPrice: -l.unitPrice })) },
      };
      for (const method of ['half_up', 'half_even'] as const) {
        const a = run(s, { level: 'per_line', method });
        const b = run(neg, { level: 'per_line', method });
        expect(
          b.lines.map((l) => l.tax),
          `seed ${seed} ${method}`,
        ).toEqual(a.lines.map((l) => -l.tax || 0));
        const da = run(s, { level: 'per_document', method });
        const db = run(neg, { level: 'per_document', method });
        expect(
          db.taxBreakdown.map((e) => e.taxAmount),
          `seed ${seed} ${method}`,
        ).toEqual(da.taxBreakdown.map((e) => -e.taxAmount || 0));
      }
    }
  });

  it('is deterministic', () => {
    for (const seed of SEEDS.slice(0, 50)) {
      const s = scenario(seed);
      expect(run(s)).toEqual(run(s));
    }
  });
});
