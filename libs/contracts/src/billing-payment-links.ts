import { z } from 'zod';
import { taxCalculation } from './tax';
import { objectId } from './object-id';

/**
 * Invoice payment links (billing service, Admin `POST /invoices/:id/payment-checkout`) and the
 * fixed tax a checkout of an invoice carries. Money is an integer in minor units.
 */

/** Limits of a payment link (interface specification, Limits). */
export const PAYMENT_LINK_LIMITS = {
  /** Smallest amount of a link, minor units. */
  minAmount: 50,
  minExpireInHours: 1,
  maxExpireInHours: 3120,
  /** Expiry when neither the request nor the invoicing setting `autoPaymentLinkExpiresInHours` names one. */
  defaultExpireInHours: 336,
} as const;

/** Body of `POST /invoices/:id/payment-checkout` (every field optional). */
export const invoicePaymentCheckoutRequest = z
  .object({
    /** Default: the invoice's outstanding amount; from 50 up to the outstanding amount. */
    amount: z.number().int().optional(),
    /** Default: the invoicing setting `autoPaymentLinkExpiresInHours`, else 336; 1 to 3120. */
    expireInHours: z.number().int().optional(),
    returnUrl: z.string().max(2048).optional(),
    cancelUrl: z.string().max(2048).optional(),
  })
  .strict();
export type InvoicePaymentCheckoutRequest = z.infer<typeof invoicePaymentCheckoutRequest>;

/** Answer of `POST /invoices/:id/payment-checkout`. */
export const invoicePaymentCheckout = z.object({
  checkoutId: z.string(),
  sessionPublicId: z.string(),
  paymentUrl: z.string(),
  amount: z.number().int(),
  expiresAt: z.string(),
});
export type InvoicePaymentCheckout = z.infer<typeof invoicePaymentCheckout>;

/** A payment link recorded on an invoice (`paymentLinks[]`). */
export const invoicePaymentLink = invoicePaymentCheckout.extend({ createdAt: z.string() });
export type InvoicePaymentLink = z.infer<typeof invoicePaymentLink>;

/** A payment of an invoice reversed by a refund or a lost dispute of its transaction. */
export const invoicePaymentReversal = z.object({
  transactionId: z.string(),
  amount: z.number().int(),
  /** `refund` (transaction status 3) or `chargeback` (dispute lost or accepted). */
  kind: z.enum(['refund', 'chargeback']),
  at: z.string(),
  /** The event the reversal was recorded from (one reversal, one credit note per event). */
  sourceEventId: z.string(),
  creditNoteId: z.string().nullable(),
});
export type InvoicePaymentReversal = z.infer<typeof invoicePaymentReversal>;

/**
 * The fixed tax of a checkout that pays (part of) an invoice: the transaction stores `allocation`
 * instead of asking the tax engine, so the tax follows the invoice's tax snapshot.
 * `allocation` is the snapshot allocated to the checkout amount (its `totalGross` is the amount).
 */
export const checkoutInvoiceTax = z
  .object({
    kind: z.literal('invoice'),
    invoiceId: objectId,
    allocation: taxCalculation,
  })
  .strict();
export type CheckoutInvoiceTax = z.infer<typeof checkoutInvoiceTax>;
