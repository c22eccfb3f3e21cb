import { z } from 'zod';
import { calculateTaxRequest, taxCalculation, VAT_ID_STATUSES, type TaxCalculation } from './tax';

/**
 * The tax preview buyers and merchants see (checkout `tax-preview`, Admin `invoices/preview-tax`):
 * the specification's totals and breakdown, plus the currency, the lines and how the buyer (and
 * their VAT ID) was treated. One shape for both gateways, built from the engine's answer.
 */
export const taxPreview = z.object({
  taxIncluded: z.boolean().describe('true: the prices were gross (tax included)'),
  totalNet: z.number().int().describe('minor units'),
  totalTax: z.number().int().describe('minor units'),
  totalGross: z.number().int().describe('minor units; for a checkout, what the buyer will be charged'),
  taxBreakdown: z.array(
    z.object({
      taxRate: z.number().describe('percent'),
      taxRateCode: z.string().describe('VAT_DE_STANDARD, REVERSE_CHARGE, EXPORT, ...'),
      taxableBase: z.number().int().describe('minor units'),
      taxAmount: z.number().int().describe('minor units'),
    }),
  ),
  currency: z.string(),
  lines: z.array(
    z.object({
      name: z.string(),
      quantity: z.number().int(),
      net: z.number().int(),
      tax: z.number().int(),
      gross: z.number().int(),
      taxRate: z.number(),
      taxRateCode: z.string(),
      reason: z.string().describe('why this rate applies'),
    }),
  ),
  buyer: z.object({
    type: z.enum(['consumer', 'business']).describe('business only with a VIES-confirmed VAT ID in vies mode'),
    vatIdStatus: z.enum(VAT_ID_STATUSES),
    vatIdTreatment: z.string().describe('one sentence on how the VAT ID was treated'),
    consultationNumber: z.string().nullable().describe('VIES consultation number, when VIES issued one'),
  }),
});
export type TaxPreview = z.infer<typeof taxPreview>;

export function taxPreviewOf(calc: TaxCalculation): TaxPreview {
  return {
    taxIncluded: calc.taxIncluded,
    totalNet: calc.totalNet,
    totalTax: calc.totalTax,
    totalGross: calc.totalGross,
    taxBreakdown: calc.taxBreakdown.map((b) => ({
      taxRate: b.taxRate,
      taxRateCode: b.taxRateCode,
      taxableBase: b.taxableBase,
      taxAmount: b.taxAmount,
    })),
    currency: calc.currency,
    lines: calc.lines.map((l) => ({
      name: l.name,
      quantity: l.quantity,
      net: l.net,
      tax: l.tax,
      gross: l.gross,
      taxRate: l.taxRate,
      taxRateCode: l.taxRateCode,
      reason: l.reason,
    })),
    buyer: {
      type: calc.buyer.type,
      vatIdStatus: calc.buyer.vatIdCheck.status,
      vatIdTreatment: calc.buyer.vatIdTreatment,
      consultationNumber: calc.buyer.vatIdCheck.consultationNumber,
    },
  };
}

/** Tax of a transaction (Admin `GET /transactions/:id/tax` and its recalculation). */
export const transactionTaxView = z.object({
  transactionId: z.string(),
  status: z
    .enum(['computed', 'not_computed'])
    .describe('not_computed: no tax stored (manual transaction, or the tax service could not answer)'),
  tax: taxCalculation.nullable(),
  input: calculateTaxRequest.nullable().describe('what the tax was (or would have been) computed from'),
});
export type TransactionTaxView = z.infer<typeof transactionTaxView>;
