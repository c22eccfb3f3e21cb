import { createHash } from 'node:crypto';
import { DomainError, ERROR_CATALOGUE, type ErrorCodeName, ErrorCode } from '@paymesh/core';
import type { ChargebackStatus } from '@paymesh/contracts';
import type { PaymentOutcome } from '../domain/payment';
import type { ProviderType } from '../domain/provider';
import type { MandateStatus } from '../domain/webhook';

/** What the platform asks a provider to collect. */
export interface CreatePaymentInput {
  transactionId: string;
  organizationId: string;
  siteId: string;
  providerId: string;
  /** Minor units. */
  amount: number;
  /** ISO 4217, any case. */
  currency: string;
  description: string | null;
  buyerEmail: string | null;
  /** Where the provider sends the buyer back, if anywhere. */
  returnUrl: string | null;
  /** The record's inbound webhook URL, for providers that take it per payment. */
  webhookUrl: string;
}

/** A payment as started at the provider. */
export interface ProviderPayment {
  providerPaymentId: string;
  outcome: PaymentOutcome;
  /** Where to send the buyer next (hosted payment page), if anywhere. */
  redirectUrl: string | null;
  /** Secret for embedded flows, if the provider has one. */
  clientSecret: string | null;
}

/** The provider's current view of a payment. */
export interface ProviderPaymentStatus {
  providerPaymentId: string;
  outcome: PaymentOutcome;
  /** The provider's own status word, for logs. */
  providerStatus: string;
  metadata: Record<string, string>;
  /**
   * The buyer approved a payment the platform still has to capture ({@link PaymentAdapter.capturePayment}):
   * the reconciler captures it, as the approval event would have (absent: nothing to capture).
   */
  capture?: boolean;
}

export interface WebhookInput {
  rawBody: Buffer;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  receivedAt: Date;
}

/**
 * Money moving back after a payment succeeded, as an event reports it: a refund (the provider's
 * refund id, this refund's amount and the payment's refunded total) or a dispute in a state.
 */
export type ProviderAdjustment =
  | { kind: 'refund'; refundId: string; amount: number; currency: string; refundedTotal: number }
  | {
      kind: 'dispute';
      disputeId: string;
      status: ChargebackStatus;
      amount: number;
      currency: string;
      reason: string | null;
    };

/** An authentic provider event, normalized. */
export interface ProviderWebhookEvent {
  eventId: string;
  eventType: string;
  occurredAt: string;
  /** Whether the provider sent it from its live environment. */
  live: boolean;
  /** Outcome it reports for a payment; null when the event is acknowledged without effect. */
  outcome: PaymentOutcome | null;
  /** Refund or dispute the event reports; null when it reports none. */
  adjustment: ProviderAdjustment | null;
  /**
   * The payment the event is about, with the metadata the platform attached at creation; metadata
   * null when the event's object carries none of ours (a dispute), so only the stored payment
   * binds it to a transaction.
   */
  payment: { providerPaymentId: string; metadata: Record<string, string> | null } | null;
  /**
   * The event reports the buyer's approval of a payment the platform still has to capture
   * ({@link PaymentAdapter.capturePayment}); the event is claimed before the capture.
   */
  capture?: boolean;
  /**
   * A direct-debit mandate of the record's account reaching a state (fetched with the record's
   * credentials, so it is the account's); absent for providers without mandates.
   */
  mandate?: { providerMandateId: string; status: MandateStatus } | null;
}

/**
 * One interface for every provider type. An adapter is bound to one provider record's credentials.
 * Every failure is a DomainError (usually a {@link ProviderError}); nothing throws a bare Error.
 */
export interface PaymentAdapter {
  readonly type: ProviderType;
  /**
   * Registers the platform's webhook endpoint at the provider; returns its id and signing secret.
   * @throws NotSupportedError where the provider has no such API.
   */
  registerWebhookEndpoint(url: string): Promise<{ endpointId: string; secret: string }>;
  /** Removes an endpoint registered by {@link registerWebhookEndpoint} (clean-up after a failed create). */
  deleteWebhookEndpoint(endpointId: string): Promise<void>;
  /** Starts a payment; idempotent per `input.transactionId` at the provider. */
  createPayment(input: CreatePaymentInput): Promise<ProviderPayment>;
  /**
   * Cancels a payment; "already cancelled" counts as success.
   * @throws ConflictError (code PAYMENT_ALREADY_CAPTURED) when the money was already taken.
   */
  cancelPayment(providerPaymentId: string, idempotencyKey: string): Promise<void>;
  fetchStatus(providerPaymentId: string): Promise<ProviderPaymentStatus>;
  /**
   * Authenticates a delivery and reads the events it reports (usually one; a provider whose
   * callback only names a payment reports what the fetched payment shows, each with its own id).
   * @throws ValidationError when the delivery is not authentic, not parseable or names a payment
   * these credentials cannot see.
   */
  verifyWebhook(input: WebhookInput): Promise<ProviderWebhookEvent[]>;
  /**
   * Captures a payment the buyer approved (providers where the merchant captures); idempotent per
   * payment at the provider. Answers the events the capture reports (usually its outcome).
   */
  capturePayment?(providerPaymentId: string): Promise<ProviderWebhookEvent[]>;
  /** @throws NotSupportedError until refunds are built. */
  refund(providerPaymentId: string, amount: number, idempotencyKey: string): Promise<never>;
}

/**
 * How a provider call failed, as the platform cares about it:
 * - `declined`: the provider refused the payment method (buyer may try another);
 * - `retryable`: network, rate limit or provider outage before the provider acted; safe to retry with the same key;
 * - `indeterminate`: the request may or may not have taken effect (timeout, connection lost after
 *   sending); never guessed: a retry with the same idempotency key, the webhook or the reconciler settles it;
 * - `invalid`: the provider rejected our request as malformed or not allowed in its current state;
 * - `auth`: the record's credentials were rejected;
 * - `not_found`: the provider has no such object for these credentials;
 * - `idempotency`: a retry with the same idempotency key carried different parameters.
 */
export type ProviderErrorKind =
  'declined' | 'retryable' | 'indeterminate' | 'invalid' | 'auth' | 'not_found' | 'idempotency';

/** The catalogue code of each provider failure; the code fixes the error's kind (and statuses). */
const CODE_OF: Record<ProviderErrorKind, ErrorCodeName> = {
  declined: ErrorCode.PROVIDER_DECLINED,
  retryable: ErrorCode.PROVIDER_UNAVAILABLE,
  indeterminate: ErrorCode.PROVIDER_OUTCOME_UNKNOWN,
  invalid: ErrorCode.PROVIDER_INVALID_REQUEST,
  auth: ErrorCode.PROVIDER_AUTH_FAILED,
  not_found: ErrorCode.PROVIDER_RESOURCE_MISSING,
  idempotency: ErrorCode.PROVIDER_IDEMPOTENCY_MISMATCH,
};

/** A provider failure with its kind; travels over gRPC as the mapped DomainError kind and `code`. */
export class ProviderError extends DomainError {
  readonly providerKind: ProviderErrorKind;

  constructor(providerKind: ProviderErrorKind, message: string, options: { cause?: unknown } = {}) {
    const code = CODE_OF[providerKind];
    super(ERROR_CATALOGUE[code].kind, message, { code, cause: options.cause });
    this.name = 'ProviderError';
    this.providerKind = providerKind;
  }
}

/** Version of the idempotency-key scheme. WARNING: changing it makes retries of in-flight payments create new ones. */
export const IDEMPOTENCY_KEY_VERSION = 'pmk1';

/** Provider idempotency key: versioned SHA-256 over the parts, e.g. (transactionId, 'create'). */
export function idempotencyKey(...parts: string[]): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([IDEMPOTENCY_KEY_VERSION, ...parts]))
    .digest('hex');
  return `${IDEMPOTENCY_KEY_VERSION}_${hash}`;
}
