import type { StoredDoc } from '@paymesh/store';
import type { Mode, ProviderType } from './provider';

/** Result of one verified webhook delivery. */
export type WebhookOutcome = 'accepted' | 'duplicate' | 'ignored';

/**
 * Claim of a provider event by a provider record; unique on (providerId, providerEventId), written
 * in the same transaction as the outbox event it causes, so each event has effect at most once.
 */
export interface EventClaimDoc extends StoredDoc {
  providerId: string;
  providerEventId: string;
  eventType: string;
  /** The transaction the event changed; null for events about no payment (a mandate). */
  transactionId: string | null;
  claimedAt: string;
}

/** States of a direct-debit mandate the platform records (provider_c). */
export type MandateStatus = 'active' | 'cancelled' | 'failed' | 'expired';

/**
 * A provider's direct-debit mandate as its webhooks reported it; unique on (providerId,
 * providerMandateId). Final states (cancelled, failed, expired) are never left again.
 */
export interface MandateDoc extends StoredDoc {
  providerId: string;
  organizationId: string;
  mode: Mode;
  providerMandateId: string;
  status: MandateStatus;
  lastEventId: string;
  lastEventAt: string;
  createdAt: string;
  updatedAt: string;
}

/** Audit record of every authentic webhook delivery (duplicates included), with its raw body. */
export interface WebhookReceiptDoc extends StoredDoc {
  providerId: string;
  providerType: ProviderType;
  organizationId: string;
  mode: Mode;
  providerEventId: string;
  eventType: string;
  outcome: WebhookOutcome;
  receivedAt: string;
  /** The exact bytes received (UTF-8), for audit and re-processing. */
  rawBody: string;
}
