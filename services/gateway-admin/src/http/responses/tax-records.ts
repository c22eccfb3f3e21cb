import { z } from 'zod';
import {
  RATE_TYPES,
  RECOGNITION_MODES,
  TAX_DECISIONS,
  TAX_ITEM_TYPES,
  TAX_RECORD_ENTRY_TYPES,
  TAX_RECORD_REBUILD_STATUSES,
  TAX_RECORD_SOURCE_KINDS,
  VAT_ID_STATUSES,
  type TaxRecord,
  type TaxRecordRebuildJob,
} from '@paymesh/contracts';
import { objectIdString, page, testMode, timestamp } from './common';

const date = z.string().describe('YYYY-MM-DD');
const signed = (what: string) => z.number().int().describe(`${what}, minor units; negative for reversals and credits`);

const recordLine = z.object({
  taxCountry: z.string().nullable().describe('member state whose VAT applies; null outside the EU'),
  taxRateCode: z.string(),
  taxRate: z.number().describe('percent'),
  rateType: z
    .enum(RATE_TYPES)
    .nullable()
    .describe('kind of the rate applied; null for synthetic codes and entries written before it was kept'),
  rateVersion: z.string().nullable().describe('rate record version used (code@validFrom); null for synthetic codes'),
  decision: z.enum(TAX_DECISIONS).describe('the engine rule that decided the line'),
  reason: z.string(),
  itemType: z.enum(TAX_ITEM_TYPES),
  net: signed('net amount'),
  tax: signed('tax amount'),
});

const vatIdEvidence = z.object({
  vatId: z.string().nullable(),
  status: z.enum(VAT_ID_STATUSES),
  source: z.string().nullable().describe('vies, cache, format or null'),
  checkedAt: z.string().nullable(),
  consultationNumber: z.string().nullable().describe('VIES request identifier, when VIES issued one'),
  companyName: z.string().nullable(),
  address: z.string().nullable(),
  error: z.string().nullable().describe('why VIES did not answer, when it did not'),
});

/** One immutable entry of the tax-record ledger (Admin shape). */
export const taxRecordResponse = z.object({
  id: objectIdString.describe(
    'derived from the source event and entry type: one entry per event, however often it is delivered',
  ),
  organizationId: objectIdString,
  testMode,
  siteId: objectIdString.nullable(),
  sourceKind: z.enum(TAX_RECORD_SOURCE_KINDS).describe('what the entry was derived from'),
  sourceId: objectIdString.describe('transaction, invoice or credit-note id'),
  sourceEventId: z.string().describe('id of the event the entry was derived from'),
  entryType: z
    .enum(TAX_RECORD_ENTRY_TYPES)
    .describe('sale; reversal (cancels a sale whole: refund, void); credit (credit note)'),
  recognitionMode: z
    .enum(RECOGNITION_MODES)
    .describe('cash: recognized when paid (transactions); accrual: when invoiced'),
  taxPointDate: date.describe('date the tax is due for this entry: payment, issue, refund or void date (UTC)'),
  taxPointAt: timestamp
    .nullable()
    .describe(
      'instant of the tax point (payment, refund or void time); null when it is a calendar day (invoice or credit-note issue date); reports place instants in the period of the zone asked for',
    ),
  currency: z.string(),
  totals: z.object({ net: signed('net'), tax: signed('tax'), gross: signed('gross') }),
  lines: z.array(recordLine),
  breakdown: z.array(
    z.object({
      taxRate: z.number(),
      taxRateCode: z.string(),
      taxableBase: signed('taxable base'),
      taxAmount: signed('tax'),
    }),
  ),
  buyer: z.object({
    country: z.string(),
    type: z.enum(['consumer', 'business']),
    vatIdCheck: vatIdEvidence.describe('VAT ID evidence of the calculation'),
  }),
  seller: z.object({ homeCountry: z.string().nullable(), ossEnabled: z.boolean(), ossThresholdExceeded: z.boolean() }),
  eur: z
    .object({ rate: z.number(), rateDate: date, net: signed('net in EUR'), tax: signed('tax in EUR') })
    .nullable()
    .describe('amounts in EUR (rate 1 for EUR entries); null for other currencies until exchange rates are kept'),
  correctsRecordId: objectIdString.nullable().describe('the entry this one reverses or credits'),
  linkedTransactionId: objectIdString.nullable().describe('the transaction the entry belongs to or was paid by'),
  linkedInvoiceId: objectIdString.nullable().describe('the invoice the entry belongs to or corrects'),
  invoicePayment: z
    .boolean()
    .describe(
      "a transaction's entry whose transaction paid an invoice: reports over both sources count the invoice instead",
    ),
  createdAt: timestamp,
});

export const taxRecordPage = page(taxRecordResponse);

/** A rebuild of the ledger from its stored source events (Admin shape). */
export const taxRecordRebuildJobResponse = z.object({
  id: objectIdString,
  organizationId: objectIdString,
  testMode,
  status: z.enum(TAX_RECORD_REBUILD_STATUSES),
  progress: z.object({
    sourceEvents: z.number().int().describe('source events of the organization when the job started'),
    processed: z.number().int(),
    created: z.number().int().describe('entries that were missing and are now written'),
    existing: z.number().int().describe('entries identical to their re-derivation'),
    mismatched: z
      .number()
      .int()
      .describe('entries that differ from their re-derivation: kept as stored and logged, never rewritten'),
    failed: z.number().int().describe('source events whose derivation failed'),
    pending: z
      .number()
      .int()
      .describe('source events still waiting (for the tax engine, or for the sale they correct)'),
  }),
  attempts: z.number().int().describe('runs of the job; more than 1 when an interrupted run was resumed'),
  createdAt: timestamp,
  startedAt: timestamp.nullable(),
  finishedAt: timestamp.nullable(),
  error: z.string().nullable(),
});

export function taxRecordView(r: TaxRecord): z.input<typeof taxRecordResponse> {
  const { mode, ...rest } = r;
  return {
    ...rest,
    taxPointAt: r.taxPointAt ?? null,
    invoicePayment: r.invoicePayment ?? false,
    lines: r.lines.map((l) => ({ ...l, rateType: l.rateType ?? null })),
    testMode: mode === 'test',
  };
}

export function rebuildJobView(j: TaxRecordRebuildJob): z.input<typeof taxRecordRebuildJobResponse> {
  const { mode, ...rest } = j;
  return { ...rest, testMode: mode === 'test' };
}
