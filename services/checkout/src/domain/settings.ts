import { z } from 'zod';

/** VAT ID validation modes of the hosted checkout. */
export type VatIdValidation = 'none' | 'format' | 'vies';

/**
 * Effective runtime mode: `vies` is downgraded to `format` unless the organization's tax settings
 * allow VIES-backed tax handling; an unknown tax setting counts as "not allowed". Without a
 * configured mode the checkout validates the format.
 */
export function effectiveVatIdValidation(configured: VatIdValidation | undefined, taxAllowsVies: boolean | undefined): VatIdValidation {
  const mode = configured ?? 'format';
  if (mode === 'vies' && taxAllowsVies !== true) return 'format';
  return mode;
}

/**
 * Optional presentation settings a site may carry (branding, checkout settings). Read leniently:
 * a site written before these fields existed, or with a malformed value, gets the defaults.
 */
const sitePresentation = z.object({
  branding: z
    .object({ logo: z.string().url().optional().catch(undefined), primaryColor: z.string().max(50).optional().catch(undefined) })
    .optional()
    .catch(undefined),
  checkoutSettings: z
    .object({ vatIdValidation: z.enum(['none', 'format', 'vies']).optional().catch(undefined) })
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
