import Stripe from 'stripe';
import { DomainError, isDomainError } from '@paymesh/core';
import { ProviderError } from '../adapter';

/** Stripe-style error code for an operation not allowed in the intent's current state. */
export const UNEXPECTED_STATE = 'payment_intent_unexpected_state';

export function isStripeError(err: unknown): err is Stripe.errors.StripeError {
  return err instanceof Stripe.errors.StripeError;
}

/** Maps an SDK failure onto a typed provider error; the provider's message is kept for operators. */
export function mapProviderAError(err: unknown, operation: string): DomainError {
  if (isDomainError(err)) return err;
  if (!isStripeError(err)) {
    return new DomainError('internal', `provider_a ${operation} failed unexpectedly`, { cause: err });
  }
  const detail = `provider_a ${operation}: ${err.message}`;
  if (err instanceof Stripe.errors.StripeCardError) return new ProviderError('declined', detail, { cause: err });
  if (err instanceof Stripe.errors.StripeIdempotencyError)
    return new ProviderError('idempotency', detail, { cause: err });
  if (err instanceof Stripe.errors.StripeAuthenticationError || err instanceof Stripe.errors.StripePermissionError) {
    return new ProviderError('auth', `provider_a ${operation}: credentials rejected by the provider`, { cause: err });
  }
  if (
    err instanceof Stripe.errors.StripeRateLimitError ||
    err instanceof Stripe.errors.StripeConnectionError ||
    err instanceof Stripe.errors.StripeAPIError ||
    (err.statusCode !== undefined && err.statusCode >= 500)
  ) {
    return new ProviderError('retryable', detail, { cause: err });
  }
  if (err.statusCode === 404 || err.code === 'resource_missing')
    return new ProviderError('not_found', detail, { cause: err });
  if (err.statusCode === 401 || err.statusCode === 403) {
    return new ProviderError('auth', `provider_a ${operation}: credentials rejected by the provider`, { cause: err });
  }
  return new ProviderError('invalid', detail, { cause: err });
}
