import { z } from 'zod';
import { ValidationError } from '@paymesh/core';

/** VAT ID validation modes of the hosted checkout. */
export const VAT_ID_VALIDATION_MODES = ['none', 'format', 'vies'] as const;
export type VatIdValidation = (typeof VAT_ID_VALIDATION_MODES)[number];

/** Mode of a site that never chose one. */
export const DEFAULT_VAT_ID_VALIDATION: VatIdValidation = 'format';

/**
 * Effective runtime mode: `vies` is downgraded to `format` unless the organization's tax settings
 * allow VIES-backed tax handling; an unknown tax setting counts as "not allowed". Without a
 * configured mode the checkout validates the format.
 */
export function effectiveVatIdValidation(
  configured: VatIdValidation | undefined,
  taxAllowsVies: boolean | undefined,
): VatIdValidation {
  const mode = configured ?? DEFAULT_VAT_ID_VALIDATION;
  if (mode === 'vies' && taxAllowsVies !== true) return 'format';
  return mode;
}

/** Site branding shown by the hosted checkout; absent fields are not shown. */
export interface SiteBranding {
  logo?: string;
  primaryColor?: string;
}

/** Site-level checkout settings as configured (not the effective runtime mode). */
export interface SiteCheckoutSettings {
  vatIdValidation: VatIdValidation;
}

/** Branding change: absent = unchanged, '' = cleared. */
export interface SiteBrandingPatch {
  logo?: string | undefined;
  primaryColor?: string | undefined;
}

const MAX_LOGO_URL = 2048;
const COLOR = /^#[0-9a-f]{6}$/;

/** An absolute https URL without credentials, at most 2048 characters (the buyer's browser loads it). */
export function validateLogoUrl(raw: string): string {
  const field = 'branding.logo';
  const value = raw.trim();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ValidationError('branding.logo must be an absolute https URL', { field });
  }
  if (url.protocol !== 'https:') throw new ValidationError('branding.logo must be an absolute https URL', { field });
  if (url.username || url.password) throw new ValidationError('branding.logo must not contain credentials', { field });
  if (value.length > MAX_LOGO_URL)
    throw new ValidationError(`branding.logo must be at most ${MAX_LOGO_URL} characters`, { field });
  return url.toString();
}

/** `#rrggbb` (hex digits, stored lower-case). */
export function validatePrimaryColor(raw: string): string {
  const value = raw.trim().toLowerCase();
  if (!COLOR.test(value))
    throw new ValidationError('branding.primaryColor must be a color like #1a2b3c', { field: 'branding.primaryColor' });
  return value;
}

export function validateVatIdValidation(raw: string): VatIdValidation {
  const mode = VAT_ID_VALIDATION_MODES.find((m) => m === raw);
  if (!mode) {
    throw new ValidationError(`checkoutSettings.vatIdValidation must be one of ${VAT_ID_VALIDATION_MODES.join(', ')}`, {
      field: 'checkoutSettings.vatIdValidation',
    });
  }
  return mode;
}

/** Applies a branding change to the current branding; an empty value clears the field. */
export function applyBrandingPatch(current: SiteBranding | undefined, patch: SiteBrandingPatch): SiteBranding {
  const next: SiteBranding = { ...(current ?? {}) };
  if (patch.logo !== undefined) {
    if (patch.logo === '') delete next.logo;
    else next.logo = validateLogoUrl(patch.logo);
  }
  if (patch.primaryColor !== undefined) {
    if (patch.primaryColor === '') delete next.primaryColor;
    else next.primaryColor = validatePrimaryColor(patch.primaryColor);
  }
  return next;
}

/**
 * Optional presentation settings a site may carry (branding, checkout settings). Read leniently:
 * a site written before these fields existed, or with a malformed value, gets the defaults.
 */
const sitePresentation = z.object({
  branding: z
    .object({
      logo: z.string().url().optional().catch(undefined),
      primaryColor: z.string().max(50).optional().catch(undefined),
    })
    .optional()
    .catch(undefined),
  checkoutSettings: z
    .object({ vatIdValidation: z.enum(VAT_ID_VALIDATION_MODES).optional().catch(undefined) })
    .optional()
    .catch(undefined),
});

export interface SitePresentation {
  logo: string | undefined;
  primaryColor: string | undefined;
  vatIdValidation: VatIdValidation | undefined;
}

export function sitePresentationOf(site: object): SitePresentation {
  const parsed = sitePresentation.safeParse(site);
  const p = parsed.success ? parsed.data : {};
  return {
    logo: p.branding?.logo,
    primaryColor: p.branding?.primaryColor,
    vatIdValidation: p.checkoutSettings?.vatIdValidation,
  };
}
