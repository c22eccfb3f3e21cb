import type { CalculateTaxRequest, VatIdCheck, VatIdValidationMode } from '@paymesh/contracts';
import type { EngineInput } from './engine';
import type { TaxSettings } from './tax-settings';
import { ValidationError } from '@paymesh/core';
import { isIsoCountry } from './country';

/** First calendar year of the Union OSS scheme (and of its EUR 10 000 threshold). */
export const OSS_FIRST_YEAR = 2021;

/** Tax point of a calculation: the requested date, else today (UTC). */
export function taxPointOf(date: string | undefined, now: Date): string {
  return date ?? now.toISOString().slice(0, 10);
}

/**
 * Calendar years whose OSS threshold status decides the tax point: the threshold counts when it was
 * exceeded in the tax point's year or the year before. Years before the scheme and years that have
 * not started yet (a tax point in the future) have no sales to count and are left out.
 */
export function ossYearsOf(taxPoint: string, currentYear: number): number[] {
  const year = Number(taxPoint.slice(0, 4));
  return [year, year - 1].filter((y) => y >= OSS_FIRST_YEAR && y <= currentYear);
}

/** The buyer's country and every line's ship-to country must be assigned ISO 3166-1 codes (the schema checks only the shape). */
export function assertKnownCountries(req: Pick<CalculateTaxRequest, 'buyer' | 'lines'>): void {
  const bad = (field: string, code: string) =>
    new ValidationError(`${field}: "${code}" is not an ISO 3166-1 alpha-2 country code`, { field });
  if (!isIsoCountry(req.buyer.country)) throw bad('buyer.country', req.buyer.country);
  req.lines.forEach((l, i) => {
    if (l.shipToCountry !== undefined && !isIsoCountry(l.shipToCountry))
      throw bad(`lines.${i}.shipToCountry`, l.shipToCountry);
  });
}

/** A check record for a VAT ID that is not looked at (absent, or a mode that ignores it). */
export function uncheckedVatId(vatId: string | null): VatIdCheck {
  return {
    vatId,
    status: vatId === null ? 'not_given' : 'not_checked',
    source: null,
    checkedAt: null,
    consultationNumber: null,
    companyName: null,
    address: null,
    error: null,
  };
}

/** How the buyer VAT ID of a request is to be checked before the engine runs. */
export type VatIdPlan =
  /** A check made earlier (stored with a transaction): reused as it is, so a recalculation is reproducible. */
  | { kind: 'reuse'; check: VatIdCheck }
  /** Nothing to ask: no VAT ID, or the mode `none`. */
  | { kind: 'skip'; check: VatIdCheck }
  | { kind: 'check'; vatId: string; mode: 'format' | 'vies' };

/**
 * `vies` is the requested mode only while the organization's tax settings allow VIES (`viesEnabled`);
 * otherwise the VAT ID is checked for format only, like the hosted checkout downgrades it.
 */
export function effectiveMode(
  requested: VatIdValidationMode,
  settings: Pick<TaxSettings, 'viesEnabled'>,
): VatIdValidationMode {
  return requested === 'vies' && !settings.viesEnabled ? 'format' : requested;
}

export function vatIdPlanOf(
  req: Pick<CalculateTaxRequest, 'buyer' | 'vatIdCheck'>,
  mode: VatIdValidationMode,
): VatIdPlan {
  if (req.vatIdCheck) return { kind: 'reuse', check: req.vatIdCheck };
  const vatId = req.buyer.vatId?.trim() ? req.buyer.vatId.trim() : null;
  if (vatId === null || mode === 'none') return { kind: 'skip', check: uncheckedVatId(vatId) };
  return { kind: 'check', vatId, mode };
}

/** The engine's input from a validated request, with the tax point and the VAT ID check resolved. */
export function engineInputOf(
  req: CalculateTaxRequest,
  ctx: {
    taxPoint: string;
    mode: VatIdValidationMode;
    settings: Pick<TaxSettings, 'priceMode'>;
    vatIdCheck: VatIdCheck;
  },
): EngineInput {
  return {
    date: ctx.taxPoint,
    currency: req.currency,
    priceMode: req.priceMode ?? ctx.settings.priceMode,
    lines: req.lines,
    buyer: { country: req.buyer.country, postcode: req.buyer.postcode?.trim() ? req.buyer.postcode.trim() : null },
    vatIdValidation: ctx.mode,
    vatIdCheck: ctx.vatIdCheck,
  };
}
