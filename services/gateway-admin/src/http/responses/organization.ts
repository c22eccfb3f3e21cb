import { datevSettingsView, senderVerificationView } from '@paymesh/contracts';
import { z } from 'zod';
import { objectIdString, timestamp } from './common';

const licenseState = z.enum(['ACTIVE', 'BLOCKED', 'NOT_ACTIVATED']);

export const license = z.object({ organizationId: objectIdString, licenseState, updatedAt: timestamp });

/** What every member needs to show the organization's data: its calendar's time zone. */
export const displaySettings = z.object({
  timeZone: z
    .string()
    .describe("IANA time zone of the organization's calendar (the invoicing settings' timeZone; default UTC)"),
});

const numberingLayout = z.object({
  prefix: z.string(),
  periodType: z.string(),
  periodGranularity: z.string(),
  fiscalYearStartMonth: z.number().int(),
  fiscalYearLabelMode: z.string(),
  periodSeparator: z.string(),
  infix: z.string(),
  sequenceDigits: z.number().int(),
  suffix: z.string(),
  resetPolicy: z.string(),
  startNumber: z.number().int(),
});

export const invoicingSettings = z.object({
  enabled: z.boolean(),
  autoGenerateInvoice: z.boolean(),
  companyName: z.string().nullable(),
  companyAddress: z
    .object({ street: z.string(), city: z.string(), postalCode: z.string(), country: z.string() })
    .nullable(),
  companyEmail: z.string().nullable(),
  companyPhone: z.string().nullable().describe('seller contact telephone (XRechnung BT-42)'),
  bankIBAN: z.object({ masked: z.string() }).nullable().describe('write-only plaintext; reads show it masked'),
  eInvoice: z.object({
    enabled: z.boolean(),
    allowedFormats: z.array(z.string()),
    strictValidation: z.boolean(),
    sellerPeppolRoutingAddress: z
      .object({ schemeId: z.string(), value: z.object({ plaintext: z.string() }) })
      .nullable(),
    emailFormat: z
      .string()
      .nullable()
      .describe('e-invoice attached to e-mails of business clients without their own eInvoiceFormat; null: none'),
  }),
  documents: z
    .object({
      language: z.string().describe('language of clients without their own: en | de'),
      supplyDateRule: z
        .string()
        .describe('date of supply stated when a draft has no service period: invoice_date | invoice_month'),
      replyToEmail: z.string().nullable().describe('Reply-To of document e-mails; null: companyEmail'),
      senderEmail: z
        .string()
        .nullable()
        .describe(
          "From address of document e-mails at the merchant's domain, used while sender.state is verified; null: the platform's",
        ),
      sender: senderVerificationView
        .nullable()
        .describe(
          'the verification of senderEmail: the TXT record to publish and the outcome of the last check; null without senderEmail',
        ),
    })
    .describe('how invoices, credit notes and their e-mails are written'),
  autoPaymentLinkExpiresInHours: z.number().int(),
  timeZone: z
    .string()
    .describe('IANA time zone whose calendar day dates invoices and picks their number period (default UTC)'),
  invoiceNumberLayout: numberingLayout,
  creditNoteNumberLayout: numberingLayout,
  retention: z
    .object({ voucherYears: z.number().int(), recordYears: z.number().int() })
    .describe(
      'Years issued documents, their files and audit events are kept after the end of their calendar year (§ 147 AO): vouchers at least 8, books and records at least 10; nothing they cover can be deleted before',
    ),
  datev: datevSettingsView.describe(
    'DATEV export settings in effect: adviser and client numbers, chart, and the account mapping (saved values over the chart defaults)',
  ),
  updatedAt: timestamp.nullable().describe('null until first saved'),
});

export const taxSettings = z.object({
  homeCountry: z.string().nullable(),
  ossEnabled: z.boolean(),
  iossEnabled: z.boolean(),
  viesEnabled: z.boolean(),
  vatId: z
    .string()
    .nullable()
    .describe("the organization's own VAT ID (normalized), sent to VIES as the requester; null when not set"),
  priceMode: z.string(),
  rounding: z.object({ level: z.string(), method: z.string() }),
  updatedAt: timestamp.nullable().describe('null until first saved'),
});

export const ossThresholdStatus = z.object({
  year: z.number().int(),
  currency: z.string(),
  threshold: z.number().int().describe('EUR minor units'),
  currentTotal: z
    .number()
    .int()
    .describe(
      'EUR minor units: net intra-EU B2C distance sales of the year in the tax ledger, sales minus reversals and credits',
    ),
  exceeded: z.boolean(),
  unconvertedEntries: z
    .number()
    .int()
    .describe('ledger entries with such sales in other currencies, not in currentTotal until exchange rates are kept'),
});

export const portalSettings = z.object({
  enabled: z.boolean().describe('the buyer portal of the organization (default false)'),
  magicLinksEnabled: z
    .boolean()
    .describe(
      'magic links work whenever the portal is on and the buyer has something to see (default true); false turns them off',
    ),
  eInvoiceFormats: z
    .array(z.enum(['xrechnung', 'peppol', 'zugferd']))
    .describe('e-invoice formats buyers may download in the portal; the e-invoice settings must allow each too'),
  proformaPreviewsEnabled: z
    .boolean()
    .describe(
      'buyers may download a pro forma PDF preview of a subscription’s first upcoming charge in the portal (default false)',
    ),
});

/** Answer of `POST /organizations/settings/portal/magic-links`. */
export const portalMagicLink = z.object({
  url: z
    .string()
    .describe(
      'the portal page with the single-use token in its fragment (`#token=`); the page exchanges it with POST /portal/auth/magic-link',
    ),
  expiresAt: z.string().datetime({ offset: true }),
  ttlMinutes: z.number().int().describe("the lifetime applied (the request's, capped to the system default)"),
});
