import type { PortalSettingsPatch } from '@paymesh/contracts';

type EInvoiceFormat = 'xrechnung' | 'peppol' | 'zugferd';

/**
 * Organization switches of the buyer portal, as the API shows them. The portal is off until the
 * merchant turns it on; magic links are on by default (the spec's conditions decide, see
 * docs/adr/0009-merchant-configuration-sites-custom-domains-organization.md, "Portal switches") and work only while the portal itself is enabled (and the
 * deployment allows both).
 */
export interface PortalSettings {
  enabled: boolean;
  magicLinksEnabled: boolean;
  /**
   * E-invoice formats buyers may download in the portal; each also needs the organization's
   * e-invoice settings to allow it. Default: every format (the e-invoice settings decide).
   */
  eInvoiceFormats: EInvoiceFormat[];
  /** Pro forma PDF previews of a subscription's first upcoming charge in the portal (default off). */
  proformaPreviewsEnabled: boolean;
}

/**
 * The switches as stored. Magic links are stored as the merchant's opt-out (`magicLinksOff`), so
 * the default (on) needs nothing stored. `magicLinksEnabled` is what settings saved while magic
 * links were off by default hold: every save stored the then-default `false`, so an explicit "off"
 * cannot be told from it, and it is not read; the next save drops it.
 */
export interface StoredPortalSettings {
  enabled: boolean;
  magicLinksOff?: boolean;
  /** Legacy, not read (see above). */
  magicLinksEnabled?: boolean;
  eInvoiceFormats?: EInvoiceFormat[];
  proformaPreviewsEnabled?: boolean;
}

const ALL_FORMATS: readonly EInvoiceFormat[] = ['xrechnung', 'peppol', 'zugferd'];

export function defaultPortalSettings(): PortalSettings {
  return { enabled: false, magicLinksEnabled: true, eInvoiceFormats: [...ALL_FORMATS], proformaPreviewsEnabled: false };
}

export function defaultStoredPortalSettings(): StoredPortalSettings {
  return { enabled: false, eInvoiceFormats: [...ALL_FORMATS], proformaPreviewsEnabled: false };
}

/** The switches in effect for stored settings (none stored: the defaults). */
export function portalSettingsView(stored: StoredPortalSettings | undefined): PortalSettings {
  const d = defaultPortalSettings();
  if (!stored) return d;
  return {
    enabled: stored.enabled,
    magicLinksEnabled: stored.magicLinksOff !== true,
    eInvoiceFormats: stored.eInvoiceFormats ?? d.eInvoiceFormats,
    proformaPreviewsEnabled: stored.proformaPreviewsEnabled ?? d.proformaPreviewsEnabled,
  };
}

export function applyPortalPatch(current: StoredPortalSettings, patch: PortalSettingsPatch): StoredPortalSettings {
  const view = portalSettingsView(current);
  const magicLinksEnabled = patch.magicLinksEnabled ?? view.magicLinksEnabled;
  return {
    enabled: patch.enabled ?? view.enabled,
    ...(magicLinksEnabled ? {} : { magicLinksOff: true }),
    eInvoiceFormats: patch.eInvoiceFormats ?? view.eInvoiceFormats,
    proformaPreviewsEnabled: patch.proformaPreviewsEnabled ?? view.proformaPreviewsEnabled,
  };
}
