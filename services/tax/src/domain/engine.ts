import { ErrorCode, UnprocessableError, ValidationError } from '@paymesh/core';
import type {
  RateType,
  TaxBreakdownEntry,
  TaxCalculation,
  TaxDecision,
  TaxLineInput,
  TaxLineResult,
  TaxRateRecord,
  TaxRuleRecord,
  VatIdCheck,
  VatIdValidationMode,
} from '@paymesh/contracts';
import type { TaxSettings } from './tax-settings';
import { placeOfSupply, type PlaceOfSupply } from './place-of-supply';
import { preferentialRate, rateOfType, ratesOn, selectRule } from './rate-selection';
import { bpToPercent, denominatorOf, distributeGroupTax, exactTaxNumerator, percentToBp, roundedTax } from './rounding';
import { buyerTreatment } from './vat-id-treatment';

/** The rate fields the engine reads (stored records and managed defaults both fit). */
export type EngineRate = Pick<
  TaxRateRecord,
  'id' | 'code' | 'country' | 'rateType' | 'percent' | 'categories' | 'validFrom' | 'validTo'
>;
/** The rule fields the engine reads. */
export type EngineRule = Pick<TaxRuleRecord, 'id' | 'itemType' | 'category' | 'country' | 'rateType' | 'priority'>;

export interface EngineInput {
  /** Tax point YYYY-MM-DD; picks the rate version. */
  date: string;
  currency: string;
  priceMode: 'gross' | 'net';
  lines: readonly TaxLineInput[];
  buyer: { country: string; postcode: string | null };
  vatIdValidation: VatIdValidationMode;
  /** Resolved before the engine runs (format check, VIES or cache); the engine does no I/O. */
  vatIdCheck: VatIdCheck;
}

export interface EngineContext {
  settings: TaxSettings;
  /** Union threshold exceeded in the current or the previous calendar year. */
  ossThresholdExceeded: boolean;
  rates: readonly EngineRate[];
  rules: readonly EngineRule[];
  /** calculatedAt */
  now: Date;
}

/** Version of the engine's rules; kept with every calculation. Bump when a result can change. */
export const ENGINE_VERSION = 'paymesh-tax-engine/1.0.0';

/** Codes of lines the seller charges no VAT on. */
export const ZERO_CODES = {
  export: 'EXPORT',
  reverse_charge: 'REVERSE_CHARGE',
  intra_community_supply: 'INTRA_COMMUNITY_SUPPLY',
  seller_not_configured: 'NOT_CONFIGURED',
  manual_override: 'MANUAL',
} as const;

interface ResolvedLine {
  line: TaxLineInput;
  gross: boolean;
  base: bigint;
  bp: number;
  taxRateCode: string;
  taxCountry: string | null;
  rateType: RateType | null;
  decision: TaxDecision;
  reason: string;
  rateId: string | null;
  rateVersion: string | null;
  ruleId: string | null;
}

type LineDecision = Omit<ResolvedLine, 'line' | 'gross' | 'base'>;

const MAX_AMOUNT = BigInt(Number.MAX_SAFE_INTEGER);

function checkedAmount(value: bigint, what: string): number {
  if (value > MAX_AMOUNT || value < -MAX_AMOUNT) {
    throw new ValidationError(`${what} exceeds ${Number.MAX_SAFE_INTEGER} minor units`, { field: what });
  }
  return Number(value);
}

function describeRate(rate: EngineRate): string {
  const kind = rate.rateType === 'super_reduced' ? 'super-reduced' : rate.rateType;
  return `${kind} rate ${rate.percent} % (${rate.code} from ${rate.validFrom})`;
}

function fromRate(rate: EngineRate, pos: PlaceOfSupply, ruleId: string | null, reason: string): LineDecision {
  return {
    bp: percentToBp(rate.percent),
    taxRateCode: rate.code,
    taxCountry: pos.taxCountry,
    rateType: rate.rateType,
    decision: pos.decision,
    reason,
    rateId: rate.id,
    rateVersion: `${rate.code}@${rate.validFrom}`,
    ruleId,
  };
}

/** Looks up the rate of a taxable line in its place of supply (see rate-selection.ts). */
function rateDecision(
  line: TaxLineInput,
  pos: PlaceOfSupply,
  date: string,
  candidatesOf: (cc: string) => EngineRate[],
  rules: readonly EngineRule[],
): LineDecision {
  const cc = pos.taxCountry;
  if (cc === null) throw new Error(`a taxable line has a country of taxation (${pos.reason})`);
  const category = line.category ?? null;
  const candidates = candidatesOf(cc);
  const rule = selectRule(rules, { itemType: line.itemType, category }, cc);
  const ruleId = rule?.id ?? null;
  const wanted = rule?.rateType ?? 'standard';
  const forCategory = category !== null ? ` for category ${category}` : '';

  if (wanted === 'zero') {
    const zero = rateOfType(candidates, 'zero', category);
    if (zero !== null) return fromRate(zero, pos, ruleId, `${pos.reason}; ${describeRate(zero)}${forCategory}`);
    return {
      bp: 0,
      taxRateCode: `VAT_${cc}_ZERO`,
      taxCountry: cc,
      rateType: 'zero',
      decision: pos.decision,
      reason: `${pos.reason}; zero rate${forCategory} by tax rule`,
      rateId: null,
      rateVersion: null,
      ruleId,
    };
  }
  let fallback = '';
  if (wanted === 'reduced' || wanted === 'super_reduced') {
    const pref = preferentialRate(candidates, wanted, category);
    if (pref !== null) return fromRate(pref, pos, ruleId, `${pos.reason}; ${describeRate(pref)}${forCategory}`);
    const kind = wanted === 'reduced' ? 'a reduced' : 'a super-reduced';
    fallback = ` (the tax rule asks for ${kind} rate${forCategory}, but ${cc} has none on ${date})`;
  }
  const standard = rateOfType(candidates, 'standard', category);
  if (standard === null) {
    throw new UnprocessableError(`no standard VAT rate for ${cc} on ${date}`, { code: ErrorCode.TAX_RATE_MISSING });
  }
  return fromRate(standard, pos, ruleId, `${pos.reason}; ${describeRate(standard)}${fallback}`);
}

function decideLine(
  line: TaxLineInput,
  input: EngineInput,
  ctx: EngineContext,
  business: boolean,
  candidatesOf: (cc: string) => EngineRate[],
): LineDecision {
  const home = ctx.settings.homeCountry;
  if (home === null) {
    return {
      bp: 0,
      taxRateCode: ZERO_CODES.seller_not_configured,
      taxCountry: null,
      rateType: null,
      decision: 'seller_not_configured',
      reason: 'no VAT calculated: the organization has no home country; set homeCountry in the tax settings',
      rateId: null,
      rateVersion: null,
      ruleId: null,
    };
  }
  const pos = placeOfSupply({
    homeCountry: home,
    itemType: line.itemType,
    buyerCountry: input.buyer.country,
    shipToCountry: line.shipToCountry,
    business,
    ossEnabled: ctx.settings.ossEnabled,
    ossThresholdExceeded: ctx.ossThresholdExceeded,
  });
  if (!pos.taxable) {
    const ignored =
      line.taxRate !== undefined
        ? `; the line's manual rate ${line.taxRate} % is not applied: no VAT may be charged on this supply`
        : '';
    return {
      bp: 0,
      taxRateCode: ZERO_CODES[pos.decision as 'export' | 'reverse_charge' | 'intra_community_supply'],
      taxCountry: pos.taxCountry,
      rateType: null,
      decision: pos.decision,
      reason: pos.reason + ignored,
      rateId: null,
      rateVersion: null,
      ruleId: null,
    };
  }
  if (line.taxRate !== undefined) {
    return {
      bp: percentToBp(line.taxRate),
      taxRateCode: ZERO_CODES.manual_override,
      taxCountry: pos.taxCountry,
      rateType: null,
      decision: 'manual_override',
      reason: `manual rate ${line.taxRate} % set on the line replaces the ${pos.taxCountry} rate (${pos.reason})`,
      rateId: null,
      rateVersion: null,
      ruleId: null,
    };
  }
  return rateDecision(line, pos, input.date, candidatesOf, ctx.rules);
}

/** Tax of every line, rounded per line or per document (per rate group, spread back by largest remainder). */
function lineTaxes(lines: readonly ResolvedLine[], rounding: TaxSettings['rounding']): bigint[] {
  if (rounding.level === 'per_line') return lines.map((l) => roundedTax(l.base, l.bp, l.gross, rounding.method));
  const taxes = new Array<bigint>(lines.length).fill(0n);
  const groups = new Map<string, { bp: bigint; members: { index: number; line: ResolvedLine }[] }>();
  lines.forEach((line, index) => {
    if (line.bp === 0) return;
    const key = `${line.taxRateCode}|${line.bp}`;
    const g = groups.get(key);
    if (g) g.members.push({ index, line });
    else groups.set(key, { bp: BigInt(line.bp), members: [{ index, line }] });
  });
  for (const { bp, members } of groups.values()) {
    const nums = members.map(({ line }) => exactTaxNumerator(line.base, bp, line.gross));
    const shares = distributeGroupTax(nums, denominatorOf(bp), rounding.method);
    shares.forEach((share, k) => {
      const member = members[k];
      if (member) taxes[member.index] = share;
    });
  }
  return taxes;
}

/**
 * The one tax engine: pure, deterministic, minor units only. Place of supply: place-of-supply.ts;
 * buyer type: vat-id-treatment.ts; rule and rate choice: rate-selection.ts; rounding: rounding.ts.
 *
 * Gross lines (unit prices include VAT): tax = gross·r/(1+r) rounded, net = gross - tax. Net lines:
 * tax = net·r rounded, gross = net + tax. A line's `amountType` overrides the calculation's price
 * mode; `taxIncluded` is true when every line is gross. Per-document rounding groups lines by
 * (taxRateCode, rate) whatever their amount type: the exact taxes of gross and net lines share one
 * denominator, so the group is rounded once and spread back exactly. Totals are sums of lines, so
 * totalGross = totalNet + totalTax always. Negative lines and negative totals (credits) are allowed.
 *
 * @throws UnprocessableError TAX_RATE_MISSING when a taxable line's country has no rate on the date.
 * @throws ValidationError when an amount leaves the safe integer range.
 */
export function calculateTax(input: EngineInput, ctx: EngineContext): TaxCalculation {
  const treatment = buyerTreatment(input.vatIdValidation, input.vatIdCheck);
  const byCountry = new Map<string, EngineRate[]>();
  const candidatesOf = (cc: string): EngineRate[] => {
    let list = byCountry.get(cc);
    if (list === undefined) {
      list = ratesOn(ctx.rates, cc, input.date);
      byCountry.set(cc, list);
    }
    return list;
  };

  const resolved: ResolvedLine[] = input.lines.map((line, index) => {
    const base = BigInt(line.quantity) * BigInt(line.unitPrice);
    checkedAmount(base, `lines.${index}`);
    const gross = (line.amountType ?? input.priceMode) === 'gross';
    return { line, gross, base, ...decideLine(line, input, ctx, treatment.business, candidatesOf) };
  });
  const taxes = lineTaxes(resolved, ctx.settings.rounding);

  let totalNet = 0n;
  let totalTax = 0n;
  const breakdown = new Map<string, { taxRate: number; taxRateCode: string; base: bigint; tax: bigint }>();
  const lines: TaxLineResult[] = resolved.map((r, index) => {
    const tax = taxes[index] ?? 0n; // one per line: lineTaxes maps the lines
    const net = r.gross ? r.base - tax : r.base;
    totalNet += net;
    totalTax += tax;
    const key = `${r.bp}|${r.taxRateCode}`;
    const entry = breakdown.get(key);
    if (entry) {
      entry.base += net;
      entry.tax += tax;
    } else {
      breakdown.set(key, { taxRate: bpToPercent(r.bp), taxRateCode: r.taxRateCode, base: net, tax });
    }
    return {
      index,
      name: r.line.name,
      itemType: r.line.itemType,
      category: r.line.category ?? null,
      quantity: r.line.quantity,
      unitPrice: r.line.unitPrice,
      net: checkedAmount(net, `lines.${index}`),
      tax: Number(tax),
      gross: checkedAmount(net + tax, `lines.${index}`),
      taxRate: bpToPercent(r.bp),
      taxRateCode: r.taxRateCode,
      taxCountry: r.taxCountry,
      rateType: r.rateType,
      decision: r.decision,
      reason: r.reason,
      rateId: r.rateId,
      rateVersion: r.rateVersion,
      ruleId: r.ruleId,
    };
  });
  const taxBreakdown: TaxBreakdownEntry[] = [...breakdown.values()].map((e) => ({
    taxRate: e.taxRate,
    taxRateCode: e.taxRateCode,
    taxableBase: checkedAmount(e.base, 'taxBreakdown'),
    taxAmount: checkedAmount(e.tax, 'taxBreakdown'),
  }));

  return {
    currency: input.currency,
    taxIncluded: resolved.every((r) => r.gross),
    totalNet: checkedAmount(totalNet, 'totalNet'),
    totalTax: checkedAmount(totalTax, 'totalTax'),
    totalGross: checkedAmount(totalNet + totalTax, 'totalGross'),
    taxBreakdown,
    lines,
    buyer: {
      country: input.buyer.country,
      postcode: input.buyer.postcode,
      type: treatment.business ? 'business' : 'consumer',
      vatIdValidation: input.vatIdValidation,
      vatIdCheck: input.vatIdCheck,
      vatIdTreatment: treatment.sentence,
    },
    seller: {
      homeCountry: ctx.settings.homeCountry,
      ossEnabled: ctx.settings.ossEnabled,
      ossThresholdExceeded: ctx.ossThresholdExceeded,
    },
    settings: { priceMode: input.priceMode, rounding: { ...ctx.settings.rounding } },
    date: input.date,
    calculatedAt: ctx.now.toISOString(),
    engineVersion: ENGINE_VERSION,
  };
}
