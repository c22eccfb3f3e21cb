import { z } from 'zod';

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
  paymentStatusReported: 'payments.payment.status_reported',
} as const;

const objectId = z.string().regex(/^[0-9a-f]{24}$/);
const mode = z.enum(['live', 'test']);
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
  organizationId: objectId,
  siteId: objectId,
  mode,
  name: z.string(),
});
export type SiteCreated = z.infer<typeof siteCreated>;

/**
 * A site's outbound IPN signing secret was replaced; from `rotatedAt` on only the new secret
 * signs. Carries no secret material (holders of a cached secret must fetch it again).
 */
export const siteSecretRotated = z.object({
  organizationId: objectId,
  siteId: objectId,
  mode,
  /** Last characters of the new secret, as shown in the Admin API (e.g. "…a1b2"). */
  secretHint: z.string(),
  rotatedAt: z.string(),
});
export type SiteSecretRotated = z.infer<typeof siteSecretRotated>;

/** A site was deleted (soft): no new checkouts; existing transactions keep their site reference. */
export const siteDeleted = z.object({
  organizationId: objectId,
  siteId: objectId,
  mode,
  deletedAt: z.string(),
});
export type SiteDeleted = z.infer<typeof siteDeleted>;

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
 * integer). notifications-ipn sends an IPN for each of these when `ipnUrl` is set.
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
});
export type TransactionStatusChanged = z.infer<typeof transactionStatusChanged>;

/**
 * A provider reported a payment outcome through an authentic webhook (or a fetch that settled an
 * indeterminate result). checkout applies it through the transaction state machine.
 */
export const paymentStatusReported = z.object({
  organizationId: objectId,
  siteId: objectId,
  transactionId: objectId,
  providerId: objectId,
  providerType: z.enum(['provider_a', 'provider_b', 'provider_c', 'provider_d']),
  providerPaymentId: z.string(),
  /** Normalized outcome: succeeded -> 1, failed -> 2, cancelled -> -2, pending stays 0. */
  outcome: z.enum(['succeeded', 'failed', 'cancelled', 'pending']),
  /** The provider's own event id (claimed once by payments-webhooks). */
  providerEventId: z.string(),
  providerEventType: z.string(),
  occurredAt: z.string(),
});
export type PaymentStatusReported = z.infer<typeof paymentStatusReported>;

/** Event subject -> its `data`, for emitting events typed by subject (the bus's `Committer`). */
export type EventMap = {
  [Subjects.organizationCreated]: OrganizationCreated;
  [Subjects.organizationLicenseChanged]: OrganizationLicenseChanged;
  [Subjects.siteCreated]: SiteCreated;
  [Subjects.siteSecretRotated]: SiteSecretRotated;
  [Subjects.siteDeleted]: SiteDeleted;
  [Subjects.transactionStatusChanged]: TransactionStatusChanged;
  [Subjects.paymentStatusReported]: PaymentStatusReported;
};
