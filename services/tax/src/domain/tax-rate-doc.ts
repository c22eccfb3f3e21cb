import { ValidationError } from '@paymesh/core';
import type { RateType, TaxRateRecord } from '@paymesh/contracts';
import type { StoredDoc } from '@paymesh/store';
import { isIsoCountry } from './country';
import type { DefaultTaxRate } from './default-rates';
import type { Mode } from '@paymesh/core';

export type { Mode } from '@paymesh/core';

/** Open end of a period, for range filters (`validTo` null). */
export const OPEN_END = '9999-12-31';

/** The fields of a rate a merchant or a managed default decides. */
export interface TaxRateFields {
  code: string;
  country: string;
  rateType: RateType;
  percent: number;
  categories: string[];
  validFrom: string;
  validTo: string | null;
  source: string | null;
  description: string | null;
}

/** A stored rate of one organization and data mode. */
export interface TaxRateDoc extends StoredDoc, TaxRateFields {
  organizationId: string;
  mode: Mode;
  /** `validTo` or OPEN_END: lets the store answer "valid on day D" with two range conditions. */
  validUntil: string;
  managed: boolean;
  /**
   * The managed default this record stems from (`code@validFrom` of the default), kept when a
   * merchant edits it (it then turns custom) so replace-defaults recognises it. Never shown.
   */
  defaultKey: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Identity of a managed default rate: its code and first day. */
export function defaultRateKey(d: Pick<DefaultTaxRate, 'code' | 'validFrom'>): string {
  return `${d.code}@${d.validFrom}`;
}

/** The record fields a managed default gives. */
export function defaultRateFields(d: DefaultTaxRate): TaxRateFields {
  return {
    code: d.code,
    country: d.country,
    rateType: d.rateType,
    percent: d.percent,
    categories: [...d.categories],
    validFrom: d.validFrom,
    validTo: d.validTo,
    source: d.source,
    description: d.description ?? null,
  };
}

/** Whether two field sets say the same (categories compared as sets). */
export function sameRateFields(a: TaxRateFields, b: TaxRateFields): boolean {
  const cats = (c: string[]) => [...new Set(c)].sort().join(',');
  return (
    a.code === b.code &&
    a.country === b.country &&
    a.rateType === b.rateType &&
    a.percent === b.percent &&
    cats(a.categories) === cats(b.categories) &&
    a.validFrom === b.validFrom &&
    a.validTo === b.validTo &&
    a.source === b.source &&
    a.description === b.description
  );
}

/** Whether `YYYY-MM-DD` names a real calendar day (not 2025-02-30). */
export function isCalendarDate(day: string): boolean {
  const t = Date.parse(`${day}T00:00:00.000Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === day;
}

/** Whether two periods `[from, to)` (to null: open) share at least one day. */
export function periodsOverlap(
  a: { validFrom: string; validTo: string | null },
  b: { validFrom: string; validTo: string | null },
): boolean {
  return a.validFrom < (b.validTo ?? OPEN_END) && b.validFrom < (a.validTo ?? OPEN_END);
}

/**
 * Rules of a rate beyond its schema: an assigned ISO country, real dates, and a period that ends
 * after it starts. Throws a ValidationError naming the field.
 */
export function validateRateFields(f: TaxRateFields): TaxRateFields {
  if (!isIsoCountry(f.country))
    throw new ValidationError(`country: ${f.country} is not an ISO 3166-1 alpha-2 country code`, { field: 'country' });
  if (!isCalendarDate(f.validFrom))
    throw new ValidationError(`validFrom: ${f.validFrom} is not a calendar date`, { field: 'validFrom' });
  if (f.validTo !== null) {
    if (!isCalendarDate(f.validTo))
      throw new ValidationError(`validTo: ${f.validTo} is not a calendar date`, { field: 'validTo' });
    if (f.validTo <= f.validFrom)
      throw new ValidationError(
        'validTo must be after validFrom (validTo is the first day the rate no longer applies)',
        { field: 'validTo' },
      );
  }
  return { ...f, categories: [...new Set(f.categories)] };
}

/** The stored document of a rate from its fields. */
export function rateDocBody(
  key: { organizationId: string; mode: Mode },
  f: TaxRateFields,
  meta: { managed: boolean; defaultKey: string | null; createdAt: string; updatedAt: string },
): Omit<TaxRateDoc, 'id' | 'version'> {
  return { organizationId: key.organizationId, mode: key.mode, ...f, validUntil: f.validTo ?? OPEN_END, ...meta };
}

/** The public record of a stored rate (without tenant and bookkeeping fields). */
export function rateRecordOf(d: TaxRateDoc): TaxRateRecord {
  return {
    id: d.id,
    code: d.code,
    country: d.country,
    rateType: d.rateType,
    percent: d.percent,
    categories: d.categories,
    validFrom: d.validFrom,
    validTo: d.validTo,
    managed: d.managed,
    source: d.source,
    description: d.description,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}
