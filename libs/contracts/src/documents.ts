import { z } from 'zod';
import { DOCUMENT_LANGUAGES, postalAddress, SUPPLY_DATE_RULES } from './settings';
import { TAX_DECISIONS } from './tax';

/**
 * Documents service: what a PDF is rendered from. Billing builds this view from an invoice's
 * snapshot (or a draft, for the pro forma) or a credit note and sends it as JSON in
 * `RenderPdfRequest.body_json`; the documents service renders it and answers the PDF bytes.
 * Money is an integer in minor units of `currency`.
 */

/**
 * `reminder`: a payment reminder for an issued invoice that is still open (the invoice's number,
 * lines and totals, with `reminder` saying what is outstanding and how to pay).
 */
export const DOCUMENT_KINDS = ['invoice', 'credit_note', 'proforma', 'reminder'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');
const money = z.number().int();

const party = z.object({
  name: z.string().min(1).max(200),
  address: postalAddress.nullable(),
  email: z.string().max(254).nullable(),
  /** VAT ID (seller) or tax ID (buyer) as printed. */
  vatId: z.string().max(50).nullable(),
});

export const documentLine = z.object({
  description: z.string().min(1).max(500),
  quantity: z.number().int(),
  unitPrice: money,
  net: money,
  tax: money,
  gross: money,
  /** Percent, e.g. 19 or 7.7. */
  taxRate: z.number(),
  /** The tax engine's decision for the line; reverse charge and export print a note. */
  decision: z.enum(TAX_DECISIONS).nullable(),
});
export type DocumentLine = z.infer<typeof documentLine>;

export const documentView = z.object({
  kind: z.enum(DOCUMENT_KINDS),
  /** Invoice or credit-note number; the pro forma label for drafts. */
  number: z.string().min(1).max(100),
  issueDate: isoDate.nullable(),
  dueDate: isoDate.nullable(),
  servicePeriod: z.object({ start: isoDate, end: isoDate }).nullable(),
  /** Invoices without a service period: the merchant's rule for the date of supply, printed as such. */
  supplyDateRule: z.enum(SUPPLY_DATE_RULES).nullable().optional(),
  /** Language of the texts and of number and date formats; absent: English. */
  language: z.enum(DOCUMENT_LANGUAGES).optional(),
  currency: z.string().regex(/^[A-Z]{3}$/),
  seller: party.extend({ name: z.string().max(200), iban: z.string().max(50).nullable() }),
  buyer: party,
  lines: z.array(documentLine).min(1).max(500),
  taxBreakdown: z.array(
    z.object({ taxRate: z.number(), taxRateCode: z.string(), taxableBase: money, taxAmount: money }),
  ),
  totals: z.object({ net: money, tax: money, gross: money }),
  /** Days after the issue date the amount is due, when the invoice was given terms. */
  paymentTermsDays: z.number().int().min(0).nullable(),
  /** Credit notes: the invoice they credit. */
  invoiceNumber: z.string().nullable(),
  /** Reminders: what is still outstanding, since when, and where to pay online (absent otherwise). */
  reminder: z
    .object({
      amountDue: money.positive(),
      daysOverdue: z.number().int().min(0),
      paymentUrl: z.string().url().max(2048).nullable(),
    })
    .nullable()
    .optional(),
  /** Free text printed under the totals (notes, a credit note's reason, a void notice); line breaks kept. */
  remarks: z.string().max(4000).nullable(),
  /**
   * The site's look: its name printed above the title and its primary colour as the accent. Logos
   * are not printed (they are remote URLs and the renderer loads no external assets).
   */
  branding: z
    .object({
      name: z.string().max(200).nullable(),
      primaryColor: z
        .string()
        .regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour #rrggbb')
        .nullable(),
    })
    .nullable()
    .optional(),
});
export type DocumentView = z.infer<typeof documentView>;
