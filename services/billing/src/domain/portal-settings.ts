import type { PortalSettingsPatch } from '@paymesh/contracts';

/**
 * Organization switches of the buyer portal. Both are off until the merchant turns them on;
 * magic links work only while the portal itself is enabled (and the deployment allows both).
 */
export interface PortalSettings {
  enabled: boolean;
  magicLinksEnabled: boolean;
  /**
   * E-invoice formats buyers may download in the portal; each also needs the organization's
   * e-invoice settings to allow it. Default: every format (the e-invoice settings decide).
   */
  eInvoiceFormats: ('xrechnung' | 'peppol' | 'zugferd')[];
  /** Pro forma PDF previews of a subscription's first upcoming charge in the portal (default off). */
  proformaPreviewsEnabled: boolean;
}

export function defaultPortalSettings(): PortalSettings {
  return { enabled: false, magicLinksEnabled: false, eInvoiceFormats: ['xrechnung', 'peppol', 'zugferd'], proformaPreviewsEnabled: false };
}

export function applyPortalPatch(current: PortalSettings, patch: PortalSettingsPatch): PortalSettings {
  return {
    enabled: patch.enabled ?? current.enabled,
    magicLinksEnabled: patch.magicLinksEnabled ?? current.magicLinksEnabled,
    eInvoiceFormats: patch.eInvoiceFormats ?? current.eInvoiceFormats ?? defaultPortalSettings().eInvoiceFormats,
    proformaPreviewsEnabled: patch.proformaPreviewsEnabled ?? current.proformaPreviewsEnabled ?? false,
  };
}
