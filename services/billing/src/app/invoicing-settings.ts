import type { InvoicingSettingsPatch } from '@paymesh/contracts';
import { applyInvoicingPatch, defaultInvoicingSettings, type InvoicingSettings } from '../domain/invoicing-settings';
import { INVOICING_SETTINGS } from '../store/collections';
import { findOrgSettings, updateOrgSettings, type OrgSettingsDoc } from '@paymesh/store';
import { zonedDay } from '../domain/numbering';
import type { BillingDeps, OrgKey } from './deps';
import { previewDocumentNumbers } from './document-number';

/** Effective invoicing settings and when they were last saved (null: never, defaults apply). */
export interface InvoicingSettingsState {
  settings: InvoicingSettings;
  updatedAt: string | null;
}

/** Binds sealed settings values to their tenant, mode and field, so they cannot be moved. */
export function settingsAad(key: OrgKey, field: string): string {
  return `invoicing:${key.organizationId}:${key.mode}:${field}`;
}

export async function getInvoicingSettings(deps: BillingDeps, key: OrgKey): Promise<InvoicingSettingsState> {
  const doc = await findOrgSettings<InvoicingSettings>(deps.store, INVOICING_SETTINGS, key.organizationId, key.mode);
  return doc
    ? { settings: doc.settings, updatedAt: doc.updatedAt }
    : { settings: defaultInvoicingSettings(), updatedAt: null };
}

/** Stores `change` of the organization's invoicing settings (of the defaults while none are stored). */
export function changeInvoicingSettings(
  deps: Pick<BillingDeps, 'store' | 'clock'>,
  key: OrgKey,
  change: (current: InvoicingSettings) => InvoicingSettings,
): Promise<OrgSettingsDoc<InvoicingSettings>> {
  return updateOrgSettings(
    deps.store,
    INVOICING_SETTINGS,
    key,
    deps.clock.now().toISOString(),
    defaultInvoicingSettings,
    change,
  );
}

/** Merges a validated patch into the stored settings; an invalid or empty patch writes nothing. */
export async function updateInvoicingSettings(
  deps: BillingDeps,
  key: OrgKey,
  patch: InvoicingSettingsPatch,
): Promise<InvoicingSettingsState> {
  if (Object.keys(patch).length === 0) return getInvoicingSettings(deps, key);
  const seal = (plaintext: string, field: string) => deps.secrets.seal(plaintext, settingsAad(key, field));
  const doc = await changeInvoicingSettings(deps, key, (current) => applyInvoicingPatch(current, patch, seal));
  deps.logger.info(
    { organizationId: key.organizationId, mode: key.mode, fields: Object.keys(patch) },
    'invoicing settings updated',
  );
  return { settings: doc.settings, updatedAt: doc.updatedAt };
}

/**
 * The next invoice and credit note numbers under the stored layouts with `patch` applied (checked
 * like a save, nothing written): the numbering screen's preview of what it is about to save.
 */
export async function previewNumbers(
  deps: BillingDeps,
  key: OrgKey,
  patch: Pick<InvoicingSettingsPatch, 'invoiceNumberLayout' | 'creditNoteNumberLayout'>,
): Promise<{ invoice: string; creditNote: string; day: string }> {
  const { settings } = await getInvoicingSettings(deps, key);
  const next = applyInvoicingPatch(settings, patch, () => {
    throw new Error('a number preview seals nothing');
  });
  const day = zonedDay(deps.clock.now(), next.timeZone ?? 'UTC');
  const numbers = await previewDocumentNumbers(
    deps.store,
    key,
    { invoice: next.invoiceNumberLayout, creditNote: next.creditNoteNumberLayout },
    day,
  );
  return { ...numbers, day };
}
