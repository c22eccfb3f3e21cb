import { ValidationError } from '@paymesh/core';
import type { SiteInvoicingSettingsPatch } from '@paymesh/contracts';
import { sameLiterals, type InvoicingSettings } from './invoicing-settings';

/** A site's own prefixes; null inherits the organization layout's prefix. */
export interface SitePrefixes {
  invoicePrefix: string | null;
  creditNotePrefix: string | null;
}

/** The prefixes a site's numbers actually use. */
export function effectivePrefixes(
  site: SitePrefixes,
  org: InvoicingSettings,
): { invoicePrefix: string; creditNotePrefix: string } {
  return {
    invoicePrefix: site.invoicePrefix ?? org.invoiceNumberLayout.prefix,
    creditNotePrefix: site.creditNotePrefix ?? org.creditNoteNumberLayout.prefix,
  };
}

/**
 * Applies a site prefix patch; rejects a result whose invoice and credit note numbers could
 * coincide under the organization's layouts.
 */
export function applySitePatch(
  current: SitePrefixes,
  patch: SiteInvoicingSettingsPatch,
  org: InvoicingSettings,
): SitePrefixes {
  const next: SitePrefixes = {
    invoicePrefix: patch.invoicePrefix !== undefined ? patch.invoicePrefix : current.invoicePrefix,
    creditNotePrefix: patch.creditNotePrefix !== undefined ? patch.creditNotePrefix : current.creditNotePrefix,
  };
  const eff = effectivePrefixes(next, org);
  if (
    sameLiterals(
      { ...org.invoiceNumberLayout, prefix: eff.invoicePrefix },
      { ...org.creditNoteNumberLayout, prefix: eff.creditNotePrefix },
    )
  ) {
    const field = patch.creditNotePrefix !== undefined ? 'creditNotePrefix' : 'invoicePrefix';
    throw new ValidationError(
      `${field}: invoice and credit note numbers of this site would share prefix "${eff.invoicePrefix}"`,
      { field },
    );
  }
  return next;
}
