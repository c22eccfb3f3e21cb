import { z } from 'zod';
import { ForbiddenError } from '@paymesh/core';
import type { billing, tax } from '@paymesh/proto';
import {
  datevSettingsView,
  einvoiceReadinessView,
  invoicingSettingsPatch,
  numberPreview,
  numberPreviewRequest,
  portalSettingsPatch,
  senderCheckView,
  senderVerificationView,
  taxSettingsPatch,
} from '@paymesh/contracts';
import {
  displaySettings,
  invoicingSettings,
  ossThresholdStatus,
  portalSettings,
  taxSettings,
} from '../responses/organization';
import { resource } from '../route-table';
import { invoicingFieldsBeyondRole } from '../../domain/settings-roles';
import { orgRpc, settingsPatch, settingsRead } from './common';
import { toBilling } from './billing-rpc';

const organizationSettings = resource({ tag: 'Organization settings', scopePrefix: 'organization' });

function layoutView(l: billing.NumberingLayout | undefined) {
  if (!l) throw new Error('billing answered without a numbering layout');
  return { ...l };
}

/** Public shape of the invoicing settings: the IBAN masked, everything else as stored. */
export function invoicingView(s: billing.InvoicingSettings) {
  const e = s.eInvoice;
  if (!e) throw new Error('billing answered without eInvoice settings');
  const peppol = e.sellerPeppolRoutingAddress;
  const sender = s.documents?.senderJson ? senderVerificationView.parse(JSON.parse(s.documents.senderJson)) : null;
  return {
    enabled: s.enabled,
    autoGenerateInvoice: s.autoGenerateInvoice,
    companyName: s.companyName ?? null,
    companyAddress: s.companyAddress ?? null,
    companyEmail: s.companyEmail ?? null,
    companyPhone: s.companyPhone ?? null,
    bankIBAN: s.bankIbanMasked ? { masked: s.bankIbanMasked } : null,
    eInvoice: {
      enabled: e.enabled,
      allowedFormats: e.allowedFormats,
      strictValidation: e.strictValidation,
      sellerPeppolRoutingAddress: peppol ? { schemeId: peppol.schemeId, value: { plaintext: peppol.value } } : null,
      emailFormat: e.emailFormat ?? null,
    },
    documents: {
      language: s.documents?.language || 'en',
      supplyDateRule: s.documents?.supplyDateRule || 'invoice_date',
      replyToEmail: s.documents?.replyToEmail ?? null,
      senderEmail: sender?.email ?? null,
      sender,
    },
    autoPaymentLinkExpiresInHours: s.autoPaymentLinkExpiresInHours,
    timeZone: s.timeZone || 'UTC',
    invoiceNumberLayout: layoutView(s.invoiceNumberLayout),
    creditNoteNumberLayout: layoutView(s.creditNoteNumberLayout),
    retention: { voucherYears: s.retentionVoucherYears || 8, recordYears: s.retentionRecordYears || 10 },
    datev: datevSettingsView.parse(JSON.parse(s.datevJson || '{}')),
    updatedAt: s.updatedAt ?? null,
  };
}

export function taxView(s: tax.TaxSettings) {
  if (!s.rounding) throw new Error('tax answered without rounding settings');
  return {
    homeCountry: s.homeCountry ?? null,
    ossEnabled: s.ossEnabled,
    iossEnabled: s.iossEnabled,
    viesEnabled: s.viesEnabled,
    vatId: s.vatId ?? null,
    priceMode: s.priceMode,
    rounding: { level: s.rounding.level, method: s.rounding.method },
    updatedAt: s.updatedAt ?? null,
  };
}

/**
 * Organization settings. Reads need the Viewer role. Invoicing settings are written by Editors
 * (the spec's scope table names Admin only for the tax settings), except the payout IBAN, which
 * needs an Admin; tax and portal settings need the Admin role. PUT is a partial update (JSON merge patch).
 */
export const organizationSettingsRoutes = [
  organizationSettings({
    method: 'GET',
    path: '/organizations/settings/display',
    operationId: 'getDisplaySettings',
    response: displaySettings,
    summary:
      "The organization's time zone, for showing its dates (organization:read: every member may read it; the full invoicing settings need organization:execute)",
    handler: settingsRead(
      'billing',
      (c) => c.getInvoicingSettings,
      (s) => ({ timeZone: s.timeZone || 'UTC' }),
    ),
  }),
  organizationSettings({
    method: 'GET',
    action: 'execute',
    path: '/organizations/settings/invoicing',
    operationId: 'getInvoicingSettings',
    response: invoicingSettings,
    summary: 'Invoicing settings (defaults until first saved; bankIBAN masked)',
    handler: settingsRead('billing', (c) => c.getInvoicingSettings, invoicingView),
  }),
  organizationSettings({
    method: 'PUT',
    action: 'execute',
    path: '/organizations/settings/invoicing',
    operationId: 'updateInvoicingSettings',
    response: invoicingSettings,
    errors: [409],
    summary:
      'Update invoicing settings (partial merge; null clears; bankIBAN.plaintext is write-only). Setting or clearing bankIBAN (the payout account) needs the Admin role: 403 otherwise, nothing written',
    body: invoicingSettingsPatch,
    async handler({ deps, org, body, principal }) {
      const beyond = invoicingFieldsBeyondRole(body, principal.role);
      if (beyond.length > 0)
        throw new ForbiddenError(
          `role Admin required to change ${beyond.join(', ')} (the payout account printed on invoices)`,
          { field: beyond[0] },
        );
      const s = await orgRpc(deps, org, 'billing', (c) => c.updateInvoicingSettings, {
        patchJson: JSON.stringify(body),
      });
      return invoicingView(s);
    },
  }),
  organizationSettings({
    method: 'GET',
    action: 'execute',
    path: '/organizations/settings/invoicing/einvoice-readiness',
    operationId: 'getEInvoiceReadiness',
    response: einvoiceReadinessView,
    summary:
      "Each e-invoice format (xrechnung, peppol, zugferd): whether the settings allow it, and which seller value the invoicing or tax settings lack for it (the rules that refuse an issued invoice's e-invoice with 422 EINVOICE_READINESS_FAILED; buyer values are checked per document)",
    handler: toBilling.bare('getEInvoiceReadiness'),
  }),
  organizationSettings({
    method: 'POST',
    action: 'execute',
    path: '/organizations/settings/invoicing/number-preview',
    operationId: 'previewDocumentNumbers',
    response: numberPreview,
    summary:
      'The numbers the next invoice and credit note issued today would get under the stored numbering layouts with these changes applied (checked as PUT /organizations/settings/invoicing checks them: 400 naming the field); nothing is saved and no number is used up',
    body: numberPreviewRequest,
    handler: toBilling.body('previewDocumentNumbers'),
  }),
  organizationSettings({
    method: 'POST',
    action: 'execute',
    path: '/organizations/settings/invoicing/sender/verify',
    operationId: 'verifyInvoicingSender',
    response: senderCheckView,
    errors: [409, 422],
    summary:
      "Look up the TXT record proving documents.senderEmail (dnsRecord of the settings) and record the outcome: verified (invoice and credit-note e-mails are sent from the address) or failed (they keep the platform's address). 422 SENDER_EMAIL_MISSING without an address; 503 when DNS gives no answer (nothing changes); repeating it re-checks",
    handler: toBilling.bare('verifySender'),
  }),
  organizationSettings({
    method: 'GET',
    action: 'execute',
    path: '/organizations/settings/tax',
    operationId: 'getTaxSettings',
    response: taxSettings,
    summary: 'Tax settings: OSS/IOSS, VIES, rounding, price mode, home country',
    handler: settingsRead('tax', (c) => c.getTaxSettings, taxView),
  }),
  organizationSettings({
    method: 'PUT',
    action: 'execute',
    path: '/organizations/settings/tax',
    operationId: 'updateTaxSettings',
    response: taxSettings,
    errors: [409],
    role: 'Admin',
    summary: 'Update tax settings (partial merge)',
    body: taxSettingsPatch,
    handler: settingsPatch('tax', (c) => c.updateTaxSettings, taxView),
  }),
  organizationSettings({
    method: 'GET',
    path: '/organizations/settings/tax/oss-threshold-status',
    operationId: 'getOssThresholdStatus',
    response: ossThresholdStatus,
    summary: "EU OSS distance-sales threshold (EUR 10 000) against this calendar year's sales, in EUR minor units",
    query: z.object({ year: z.coerce.number().int().min(2021).max(9999).optional() }).strict(),
    async handler({ deps, org, query }) {
      return orgRpc(deps, org, 'tax', (c) => c.getOssThresholdStatus, { year: query.year ?? 0 });
    },
  }),
  organizationSettings({
    method: 'GET',
    action: 'execute',
    path: '/organizations/settings/portal',
    operationId: 'getPortalSettings',
    response: portalSettings,
    summary: 'Buyer portal access of the organization (portal and magic links)',
    handler: settingsRead(
      'billing',
      (c) => c.getPortalSettings,
      (s) => portalSettings.parse(s),
    ),
  }),
  organizationSettings({
    method: 'PUT',
    action: 'execute',
    path: '/organizations/settings/portal',
    operationId: 'updatePortalSettings',
    response: portalSettings,
    errors: [409],
    role: 'Admin',
    summary:
      'Turn the buyer portal and its magic links on or off, and choose the e-invoice formats buyers may download there (partial)',
    body: portalSettingsPatch,
    handler: settingsPatch(
      'billing',
      (c) => c.updatePortalSettings,
      (s) => portalSettings.parse(s),
    ),
  }),
];
