import { ValidationError } from '@paymesh/core';
import type { TaxSettingsPatch } from '@paymesh/contracts';
import { isIsoCountry } from './country';
import { parseVatId } from './vat-id';

export type RoundingLevel = 'per_line' | 'per_document';
export type RoundingMethod = 'half_up' | 'half_even';

/** Organization tax settings, the inputs of the one tax engine. */
export interface TaxSettings {
  /** Country the organization is established in (member state of identification for OSS). */
  homeCountry: string | null;
  /** Union/non-Union OSS: intra-EU B2C distance sales taxed at the buyer's country rate. */
  ossEnabled: boolean;
  /** Import OSS for low-value goods imported into the EU. */
  iossEnabled: boolean;
  /** Whether buyer VAT IDs may be checked against VIES (checkout's `vies` mode). */
  viesEnabled: boolean;
  /** The organization's own VAT ID, normalized (`DE123456789`): the requester of VIES checks. */
  vatId: string | null;
  priceMode: 'gross' | 'net';
  /** Where tax is rounded to minor units, and how halves round. */
  rounding: { level: RoundingLevel; method: RoundingMethod };
}

/**
 * Defaults: gross prices, tax rounded per line half-up (what buyers see on a receipt adds up line
 * by line), no OSS/IOSS and no VIES until the merchant opts in.
 */
export function defaultTaxSettings(): TaxSettings {
  return {
    homeCountry: null,
    ossEnabled: false,
    iossEnabled: false,
    viesEnabled: false,
    vatId: null,
    priceMode: 'gross',
    rounding: { level: 'per_line', method: 'half_up' },
  };
}

function invalid(field: string, message: string): ValidationError {
  return new ValidationError(`${field}: ${message}`, { field });
}

/** Applies a validated merge patch; OSS and IOSS need the home country they are registered in. */
export function applyTaxPatch(current: TaxSettings, patch: TaxSettingsPatch): TaxSettings {
  const next: TaxSettings = {
    homeCountry: patch.homeCountry !== undefined ? patch.homeCountry : current.homeCountry,
    ossEnabled: patch.ossEnabled ?? current.ossEnabled,
    iossEnabled: patch.iossEnabled ?? current.iossEnabled,
    viesEnabled: patch.viesEnabled ?? current.viesEnabled,
    vatId: patch.vatId !== undefined ? normalizedVatId(patch.vatId) : current.vatId,
    priceMode: patch.priceMode ?? current.priceMode,
    rounding: { ...current.rounding, ...patch.rounding },
  };
  if (next.homeCountry !== null && !isIsoCountry(next.homeCountry)) {
    throw invalid('homeCountry', `"${next.homeCountry}" is not an ISO 3166-1 alpha-2 country code`);
  }
  if ((next.ossEnabled || next.iossEnabled) && next.homeCountry === null) {
    throw invalid('homeCountry', `is required while ${next.ossEnabled ? 'ossEnabled' : 'iossEnabled'} is true`);
  }
  return next;
}

/** The seller's VAT ID as stored: normalized, or a ValidationError naming the expected format. */
function normalizedVatId(raw: string | null): string | null {
  if (raw === null) return null;
  const parsed = parseVatId(raw);
  if (!parsed.ok) throw invalid('vatId', parsed.message);
  return parsed.vatId;
}
