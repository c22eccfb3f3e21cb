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
  transactionId: string;
  claimedAt: string;
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
