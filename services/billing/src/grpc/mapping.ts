import type { billing } from '@paymesh/proto';
import type { SecretBox } from '@paymesh/core';
import { documentSettingsOf, retentionOf, type InvoicingSettings } from '../domain/invoicing-settings';
import { effectiveDatev } from '../domain/datev';
import type { NumberingLayout } from '../domain/numbering';
import type { OrgKey } from '../app/deps';
import { settingsAad, type InvoicingSettingsState } from '../app/invoicing-settings';
import { senderView } from '../app/sender-verification';
import type { SiteInvoicingView } from '../app/site-invoicing-settings';

function layoutMessage(l: NumberingLayout): billing.NumberingLayout {
  return { ...l };
}

/** Wire view of the settings: the IBAN only masked, the seller's own Peppol address in clear. */
export function invoicingSettingsMessage(
  state: InvoicingSettingsState,
  secrets: SecretBox,
  key: OrgKey,
): billing.InvoicingSettings {
  const s: InvoicingSettings = state.settings;
  const peppol = s.eInvoice.sellerPeppolRoutingAddress;
  const docs = documentSettingsOf(s);
  return {
    enabled: s.enabled,
    autoGenerateInvoice: s.autoGenerateInvoice,
    ...(s.companyName !== null ? { companyName: s.companyName } : {}),
    companyAddress: s.companyAddress ?? undefined,
    ...(s.companyEmail !== null ? { companyEmail: s.companyEmail } : {}),
    ...(s.companyPhone ? { companyPhone: s.companyPhone } : {}),
    ...(s.bankIBAN ? { bankIbanMasked: s.bankIBAN.masked } : {}),
    eInvoice: {
      enabled: s.eInvoice.enabled,
      allowedFormats: s.eInvoice.allowedFormats,
      strictValidation: s.eInvoice.strictValidation,
      sellerPeppolRoutingAddress: peppol
        ? {
            schemeId: peppol.schemeId,
            value: secrets.open(peppol.value, settingsAad(key, 'eInvoice.sellerPeppolRoutingAddress')),
          }
        : undefined,
      ...(s.eInvoice.emailFormat ? { emailFormat: s.eInvoice.emailFormat } : {}),
    },
    documents: {
      language: docs.language,
      supplyDateRule: docs.supplyDateRule,
      ...(docs.replyToEmail ? { replyToEmail: docs.replyToEmail } : {}),
      ...(docs.sender ? { senderJson: JSON.stringify(senderView(docs.sender)) } : {}),
    },
    autoPaymentLinkExpiresInHours: s.autoPaymentLinkExpiresInHours,
    // Settings saved before the time zone existed follow UTC.
    timeZone: s.timeZone ?? 'UTC',
    invoiceNumberLayout: layoutMessage(s.invoiceNumberLayout),
    creditNoteNumberLayout: layoutMessage(s.creditNoteNumberLayout),
    updatedAt: state.updatedAt ?? undefined,
    retentionVoucherYears: retentionOf(s).voucherYears,
    retentionRecordYears: retentionOf(s).recordYears,
    datevJson: JSON.stringify(effectiveDatev(s.datev)),
  };
}

export function siteInvoicingMessage(v: SiteInvoicingView): billing.SiteInvoicingSettings {
  return {
    siteId: v.siteId,
    ...(v.invoicePrefix !== null ? { invoicePrefix: v.invoicePrefix } : {}),
    ...(v.creditNotePrefix !== null ? { creditNotePrefix: v.creditNotePrefix } : {}),
    effectiveInvoicePrefix: v.effective.invoicePrefix,
    effectiveCreditNotePrefix: v.effective.creditNotePrefix,
  };
}
