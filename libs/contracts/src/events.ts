import { z } from 'zod';
import { calculateTaxRequest, taxCalculation } from './tax';
import { objectId } from './object-id';

/**
 * Cross-service events: subject constants and the zod schema of each event's `data`.
 * Publishers build `data` with these types; consumers decode with these schemas. Every event
 * carries `organizationId` (and `siteId` where one exists) so consumers never need a lookup to
 * enforce tenancy.
 */
export const Subjects = {
  organizationCreated: 'identity.organization.created',
  organizationLicenseChanged: 'identity.organization.license_changed',
  siteCreated: 'checkout.site.created',
  siteSecretRotated: 'checkout.site.secret_rotated',
  siteDeleted: 'checkout.site.deleted',
  transactionStatusChanged: 'checkout.transaction.status_changed',
  transactionOpened: 'checkout.transaction.opened',
  paymentStatusReported: 'payments.payment.status_reported',
  paymentAdjustmentReported: 'payments.payment.adjustment_reported',
  providerChanged: 'payments.provider.changed',
  chargebackResolved: 'checkout.chargeback.resolved',
  transactionRefunded: 'checkout.transaction.refunded',
  checkoutSessionExpired: 'checkout.session.expired',
  invoiceIssued: 'billing.invoice.issued',
  invoiceVoided: 'billing.invoice.voided',
  creditNoteIssued: 'billing.credit_note.issued',
  emailDelivered: 'notifications.email.delivered',
  emailFailed: 'notifications.email.failed',
} as const;

const mode = z.enum(['live', 'test']);
/** The fields naming what an event of one site is about: its organization, the site and its mode. */
const siteScope = { organizationId: objectId, siteId: objectId, mode };
const licenseState = z.enum(['ACTIVE', 'BLOCKED', 'NOT_ACTIVATED']);

export const organizationCreated = z.object({
  organizationId: objectId,
  name: z.string(),
  licenseState,
});
export type OrganizationCreated = z.infer<typeof organizationCreated>;

export const organizationLicenseChanged = z.object({
  organizationId: objectId,
  licenseState,
  previousLicenseState: licenseState,
});
export type OrganizationLicenseChanged = z.infer<typeof organizationLicenseChanged>;

export const siteCreated = z.object({
  ...siteScope,
  name: z.string(),
});
export type SiteCreated = z.infer<typeof siteCreated>;

/**
 * A site's outbound IPN signing secret was replaced; from `rotatedAt` on only the new secret
 * signs. Carries no secret material (holders of a cached secret must fetch it again).
 */
export const siteSecretRotated = z.object({
  ...siteScope,
  /** Last characters of the new secret, as shown in the Admin API (e.g. "…a1b2"). */
  secretHint: z.string(),
  rotatedAt: z.string(),
});
export type SiteSecretRotated = z.infer<typeof siteSecretRotated>;

/** A site was deleted (soft): no new checkouts; existing transactions keep their site reference. */
export const siteDeleted = z.object({
  ...siteScope,
  deletedAt: z.string(),
});
export type SiteDeleted = z.infer<typeof siteDeleted>;

/**
 * A payment provider record was created, enabled, disabled or deleted. Carries no credentials;
 * services that cache an organization's providers drop them.
 */
export const providerChanged = z.object({
  organizationId: objectId,
  providerId: objectId,
  mode,
  enabled: z.boolean(),
  deleted: z.boolean(),
  changedAt: z.string(),
});
export type ProviderChanged = z.infer<typeof providerChanged>;

/** Transaction status codes of the interface specification. */
export const TransactionStatus = {
  canceled: -2,
  initiated: -1,
  pending: 0,
  completed: 1,
  failed: 2,
  refunded: 3,
  disputed: 4,
} as const;
export type TransactionStatusCode = (typeof TransactionStatus)[keyof typeof TransactionStatus];

/**
 * A transaction's integer status changed (never published for a sub-state change that keeps the
 * integer). notifications-ipn sends an IPN for each of these when `ipnUrl` is set, but for a
 * transaction's first status (`previousStatus` null), which is no change.
 *
 * The first status of a buyer's transaction, pending (0), travels as `checkout.transaction.opened`
 * with the same data (sequence 1) instead: no consumer acts on it (no IPN, no sale, no invoice), so
 * the consumers of `checkout.transaction.status_changed` are not handed it only to drop it. A
 * manual transaction's first status (-1 or 1) stays a `status_changed` event: a completed one is a
 * sale and may pay an invoice.
 */
export const transactionStatusChanged = z.object({
  organizationId: objectId,
  siteId: objectId,
  transactionId: objectId,
  mode,
  status: z.number().int().min(-2).max(4),
  previousStatus: z.number().int().min(-2).max(4).nullable(),
  /** Sub-state kept by checkout, e.g. `pending_provider`. */
  subState: z.string().nullable(),
  externalReference: z.string().nullable(),
  ipnUrl: z.string().nullable(),
  /** Monotonic per transaction: 1 for the first status, +1 for each change. */
  sequence: z.number().int().min(1),
  changedAt: z.string(),
  /** Charged amount (minor units) and currency; absent in events published before they were added. */
  amount: z.number().int().optional(),
  currency: z.string().optional(),
  /**
   * The transaction's tax (engine answer) when one was computed, so the tax ledger needs no lookup;
   * null when none was; absent in older events. Schema `taxCalculation` (tax.ts).
   */
  tax: z
    .lazy(() => taxCalculation)
    .nullable()
    .optional(),
  /** The engine request behind `tax` (lets the ledger derive the tax when `tax` is null). */
  taxInput: z
    .lazy(() => calculateTaxRequest)
    .nullable()
    .optional(),
  /** The checkout the transaction pays; null for manual transactions; absent in older events. */
  checkoutId: objectId.nullable().optional(),
  /**
   * The invoice the transaction pays when its checkout is an invoice payment link (its tax follows
   * the invoice's snapshot); null otherwise; absent in older events.
   */
  invoiceId: objectId.nullable().optional(),
  /**
   * The provider refunds recorded on the transaction when the event was published (each one is
   * also announced by `checkout.transaction.refunded`); absent in older events. Lets a consumer of
   * status 3 tell a refund that refund events cover from a status set without a refund record.
   */
  refunds: z.array(z.object({ refundId: z.string().min(1), amount: z.number().int().positive() })).optional(),
});
export type TransactionStatusChanged = z.infer<typeof transactionStatusChanged>;

/**
 * `checkout.transaction.status_changed` without its tax snapshot (`tax`, `taxInput`): for consumers
 * that do not use the tax. The snapshot is most of the event, and validating it cost every such
 * consumer CPU on every payment; parsing with this schema drops it unchecked.
 */
export const transactionStatusChangedBrief = transactionStatusChanged.omit({ tax: true, taxInput: true });
export type TransactionStatusChangedBrief = z.infer<typeof transactionStatusChangedBrief>;

/**
 * A provider reported a payment outcome through an authentic webhook (or a fetch that settled an
 * indeterminate result). checkout applies it through the transaction state machine.
 */
/** The payment provider types (docs/providers.md); the one list every service uses. */
export const PROVIDER_TYPES = ['provider_a', 'provider_b', 'provider_c', 'provider_d'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

export const paymentStatusReported = z.object({
  organizationId: objectId,
  siteId: objectId,
  transactionId: objectId,
  providerId: objectId,
  providerType: z.enum(PROVIDER_TYPES),
  providerPaymentId: z.string(),
  /** Normalized outcome: succeeded -> 1, failed -> 2, cancelled -> -2, pending stays 0. */
  outcome: z.enum(['succeeded', 'failed', 'cancelled', 'pending']),
  /** The provider's own event id (claimed once by payments-webhooks). */
  providerEventId: z.string(),
  providerEventType: z.string(),
  occurredAt: z.string(),
});
export type PaymentStatusReported = z.infer<typeof paymentStatusReported>;

/** Chargeback states: `open` / `under_review` are active; `won`, `lost`, `accepted` are final. */
export const chargebackStatus = z.enum(['open', 'under_review', 'won', 'lost', 'accepted']);
export type ChargebackStatus = z.infer<typeof chargebackStatus>;

/**
 * Money moving back after a payment succeeded, reported by a provider through an authentic
 * webhook: a refund, or a dispute (chargeback) opened or decided. Claimed once per provider event
 * by payments-webhooks; checkout records it on the transaction (idempotent per provider event and
 * per refund / dispute id).
 */
export const paymentAdjustmentReported = paymentStatusReported.omit({ outcome: true }).extend({
  adjustment: z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('refund'),
      /** Provider-side id of the refund (unique per payment). */
      refundId: z.string().min(1),
      /** This refund, minor units (> 0). */
      amount: z.number().int().positive(),
      currency: z.string().regex(/^[A-Z]{3}$/),
      /** Everything refunded on the payment so far, this refund included (minor units). */
      refundedTotal: z.number().int().positive(),
    }),
    z.object({
      kind: z.literal('dispute'),
      disputeId: z.string().min(1),
      status: chargebackStatus,
      /** Disputed amount, minor units. */
      amount: z.number().int().nonnegative(),
      currency: z.string().regex(/^[A-Z]{3}$/),
      reason: z.string().nullable(),
    }),
  ]),
});
export type PaymentAdjustmentReported = z.infer<typeof paymentAdjustmentReported>;

/**
 * A chargeback of a transaction reached a final outcome. `lost` / `accepted`: the merchant lost the
 * money (billing writes ONE chargeback credit note per chargeback when an invoice is linked);
 * `won`: the payment stands. Emitted once per chargeback and outcome.
 */
export const chargebackResolved = z.object({
  organizationId: objectId,
  siteId: objectId,
  transactionId: objectId,
  mode,
  chargebackId: z.string().min(1),
  outcome: z.enum(['won', 'lost', 'accepted']),
  /** Disputed amount, minor units. */
  amount: z.number().int().nonnegative(),
  currency: z.string(),
  /** The checkout the transaction pays (null for manual transactions). */
  checkoutId: objectId.nullable(),
  /** The invoice the transaction pays through a payment link, else null. */
  invoiceId: objectId.nullable(),
  resolvedAt: z.string(),
  /**
   * The transaction's amount (minor units) and when it completed (null if never): a chargeback
   * proves the payment, so billing records it first when the status event has not arrived yet.
   * Absent from events of older publishers.
   */
  transactionAmount: z.number().int().nonnegative().optional(),
  paidAt: z.string().nullable().optional(),
});
export type ChargebackResolved = z.infer<typeof chargebackResolved>;

/**
 * A provider refund was recorded on a transaction (once per provider refund id, in the store
 * transaction that records it), partial or full. A refund never changes the transaction's status
 * (an operator marks it refunded, 3). billing writes ONE refund credit note per refund when an
 * invoice is paid by the transaction; the tax ledger ONE reversal entry per refund.
 */
export const transactionRefunded = z.object({
  organizationId: objectId,
  siteId: objectId,
  transactionId: objectId,
  mode,
  /** Provider-side refund id (unique per payment). */
  refundId: z.string().min(1),
  /** This refund, minor units. */
  amount: z.number().int().positive(),
  currency: z.string().regex(/^[A-Z]{3}$/),
  /** Every refund recorded on the transaction so far, this one included (minor units). */
  refundedTotal: z.number().int().positive(),
  /** The transaction's amount (minor units). */
  transactionAmount: z.number().int().nonnegative(),
  /** When the transaction was completed (last move to 1), null when it never was. */
  paidAt: z.string().nullable(),
  /** The checkout the transaction pays (null for manual transactions). */
  checkoutId: objectId.nullable(),
  /** The invoice the transaction pays through a payment link, else null. */
  invoiceId: objectId.nullable(),
  refundedAt: z.string(),
});
export type TransactionRefunded = z.infer<typeof transactionRefunded>;

/**
 * A checkout session passed its `expiresAt` unpaid and was stored as expired by checkout's sweep
 * (once per session). Its transaction still pending then, if any, is abandoned through transaction
 * expiry, whose status event carries the IPN; the session itself has no IPN.
 */
export const checkoutSessionExpired = z.object({
  ...siteScope,
  checkoutId: objectId,
  externalReference: z.string().nullable(),
  invoiceNumber: z.string().nullable(),
  /** The session's expiry time. */
  expiresAt: z.string(),
  /** When the sweep stored it as expired (at or after `expiresAt`). */
  expiredAt: z.string(),
  /**
   * The session's pending transaction sent to transaction expiry with it (-2 and its IPN once the
   * provider cancels), else null: no transaction, or one waiting for an asynchronous provider flow
   * (`pending_provider`), which keeps its own expiry time.
   */
  abandonedTransactionId: objectId.nullable(),
});
export type CheckoutSessionExpired = z.infer<typeof checkoutSessionExpired>;

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

/** What every billing document event carries for the tax ledger. */
const billingDocument = z.object({
  organizationId: objectId,
  mode,
  siteId: objectId.nullable(),
  currency: z.string().regex(/^[A-Z]{3}$/),
  /**
   * The document's tax as calculated when it was issued (schema `taxCalculation`, tax.ts), amounts
   * positive; null when no tax was calculated (the ledger then records nothing). The credit note a
   * void writes carries null: the void's own event reverses the invoice's ledger entry, and a
   * second (credit) entry would take the tax off twice.
   */
  taxCalculation: z.lazy(() => taxCalculation).nullable(),
  /** The transaction that paid (or pays) the document, when one is linked. */
  transactionId: objectId.nullable(),
  occurredAt: z.string(),
});

/** An invoice was issued (finalized with its number); the tax ledger records an accrual sale. */
export const invoiceIssued = billingDocument.extend({
  invoiceId: objectId,
  number: z.string(),
  /** The invoice's issue date, its tax point. */
  issueDate: isoDate,
});
export type InvoiceIssued = z.infer<typeof invoiceIssued>;

/**
 * An issued invoice was voided; the tax ledger reverses its sale entry as of the void
 * (`occurredAt`). `taxCalculation` is the voided invoice's snapshot.
 */
export const invoiceVoided = invoiceIssued;
export type InvoiceVoided = z.infer<typeof invoiceVoided>;

/**
 * A credit note was issued against an invoice; `taxCalculation` holds the credited amounts
 * (positive), which the tax ledger records negated, linked to the invoice's entry.
 */
export const creditNoteIssued = billingDocument.extend({
  creditNoteId: objectId,
  /** The invoice the credit note corrects. */
  invoiceId: objectId,
  number: z.string(),
  issueDate: isoDate,
});
export type CreditNoteIssued = z.infer<typeof creditNoteIssued>;

/**
 * An e-mail of the outbox reached a final state: accepted by the SMTP server (`delivered`) or
 * given up (`failed`: permanent refusal or every attempt used). The sender (e.g. billing) updates
 * its record of the send by `emailId`.
 */
export const emailSettled = z.object({
  organizationId: objectId,
  mode,
  emailId: objectId,
  /** `portal_otp`: a buyer portal sign-in code (no document to update). */
  source: z.object({ kind: z.enum(['invoice', 'credit_note', 'portal_otp']), id: objectId }),
  to: z.array(z.string()),
  state: z.enum(['sent', 'failed']),
  attempts: z.number().int(),
  /** SMTP answer of the accepting server, or why the e-mail failed. */
  detail: z.string(),
  at: z.string(),
});
export type EmailSettled = z.infer<typeof emailSettled>;

/** Event subject -> its `data`, for emitting events typed by subject (the bus's `Committer`). */
export type EventMap = {
  [Subjects.organizationCreated]: OrganizationCreated;
  [Subjects.organizationLicenseChanged]: OrganizationLicenseChanged;
  [Subjects.siteCreated]: SiteCreated;
  [Subjects.siteSecretRotated]: SiteSecretRotated;
  [Subjects.siteDeleted]: SiteDeleted;
  [Subjects.transactionStatusChanged]: TransactionStatusChanged;
  [Subjects.transactionOpened]: TransactionStatusChanged;
  [Subjects.paymentStatusReported]: PaymentStatusReported;
  [Subjects.paymentAdjustmentReported]: PaymentAdjustmentReported;
  [Subjects.providerChanged]: ProviderChanged;
  [Subjects.chargebackResolved]: ChargebackResolved;
  [Subjects.transactionRefunded]: TransactionRefunded;
  [Subjects.checkoutSessionExpired]: CheckoutSessionExpired;
  [Subjects.invoiceIssued]: InvoiceIssued;
  [Subjects.invoiceVoided]: InvoiceVoided;
  [Subjects.creditNoteIssued]: CreditNoteIssued;
  [Subjects.emailDelivered]: EmailSettled;
  [Subjects.emailFailed]: EmailSettled;
};
