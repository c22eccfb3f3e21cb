import Stripe from 'stripe';
import { z } from 'zod';
import { NotSupportedError, ValidationError } from '@paymesh/core';
import type { ProviderACredentials } from './module';
import { paymentMetadata, type ProviderOptions } from '../module';
import {
  idempotencyKey,
  ProviderError,
  type CreatePaymentInput,
  type PaymentAdapter,
  type ProviderPayment,
  type ProviderPaymentStatus,
  type ProviderWebhookEvent,
  type WebhookInput,
} from '../adapter';
import { settleRefusedCancellation } from '../cancellation';
import { isStripeError, mapProviderAError, UNEXPECTED_STATE } from './errors';
import {
  adjustmentKindOfEvent,
  chargebackStatusOf,
  outcomeOfEvent,
  outcomeOfIntentStatus,
  WEBHOOK_EVENTS,
} from './mapping';

/** Largest distance of a signed webhook timestamp from our clock we accept, past or future (seconds). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * The signed `t=` of a Stripe-Signature header. The SDK only bounds a timestamp's age, so one
 * dated in the future would stay replayable until then; we bound that side with the same window.
 * More than one `t=` is ambiguous (the SDK keeps the last) and refused.
 */
function signedTimestamp(header: string): number | undefined {
  const values = header
    .split(',')
    .map((item) => item.trim().split('='))
    .filter(([k]) => k === 't')
    .map(([, v]) => (v !== undefined && /^\d{1,12}$/.test(v) ? Number(v) : NaN));
  return values.length === 1 && Number.isFinite(values[0]) ? values[0] : undefined;
}

const metadataSchema = z.record(z.string(), z.string());

/** The part of an authentic event we rely on; anything else in it is ignored. */
const eventSchema = z.object({
  id: z.string().min(1).max(255),
  type: z.string().min(1).max(255),
  created: z.number().int().nonnegative(),
  livemode: z.boolean(),
  data: z.object({
    object: z.object({ object: z.string(), id: z.string().optional() }).passthrough(),
    previous_attributes: z.record(z.string(), z.unknown()).optional(),
  }),
});

const chargeObject = z.object({
  object: z.literal('charge'),
  id: z.string().min(1).max(255),
  payment_intent: z.string().min(1).max(255),
  amount_refunded: z.number().int().nonnegative(),
  currency: z.string().regex(/^[a-zA-Z]{3}$/),
  metadata: metadataSchema.default({}),
});

const disputeObject = z.object({
  object: z.literal('dispute'),
  id: z.string().min(1).max(255),
  payment_intent: z.string().min(1).max(255),
  amount: z.number().int().nonnegative(),
  currency: z.string().regex(/^[a-zA-Z]{3}$/),
  reason: z.string().nullable().default(null),
  status: z.string(),
});

const paymentIntentObject = z.object({
  object: z.literal('payment_intent'),
  id: z.string().min(1).max(255),
  metadata: metadataSchema.default({}),
});

/**
 * The refund or dispute an event reports. A `charge.refunded` charge carries the refunded total
 * and (in `previous_attributes`) the total before, but not the refund's id: the refund is named
 * by its charge and the total it brought the charge to, unique per refund because every refund
 * raises that total.
 */
function adjustmentOf(
  type: string,
  data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> | undefined },
): Pick<ProviderWebhookEvent, 'adjustment' | 'payment'> {
  const kind = adjustmentKindOfEvent(type);
  if (kind === 'refund') {
    const charge = chargeObject.safeParse(data.object);
    if (!charge.success) throw new ValidationError(`webhook ${type} does not carry a charge`);
    const c = charge.data;
    const before = data.previous_attributes?.['amount_refunded'];
    const amount = c.amount_refunded - (typeof before === 'number' ? before : 0);
    if (amount <= 0) return { adjustment: null, payment: null };
    return {
      adjustment: {
        kind,
        refundId: `${c.id}:${c.amount_refunded}`,
        amount,
        currency: c.currency.toUpperCase(),
        refundedTotal: c.amount_refunded,
      },
      payment: { providerPaymentId: c.payment_intent, metadata: c.metadata },
    };
  }
  if (kind === 'dispute') {
    const dispute = disputeObject.safeParse(data.object);
    if (!dispute.success) throw new ValidationError(`webhook ${type} does not carry a dispute`);
    const d = dispute.data;
    const status = chargebackStatusOf(d.status);
    if (status === null) return { adjustment: null, payment: null };
    return {
      adjustment: {
        kind,
        disputeId: d.id,
        status,
        amount: d.amount,
        currency: d.currency.toUpperCase(),
        reason: d.reason,
      },
      payment: { providerPaymentId: d.payment_intent, metadata: null },
    };
  }
  return { adjustment: null, payment: null };
}

/** The official SDK pointed at an API origin such as http://127.0.0.1:12111. */
export function providerAClient(
  secretKey: string,
  apiBaseUrl: string,
  opts: Pick<ProviderOptions, 'timeoutMs' | 'maxNetworkRetries'>,
): Stripe {
  const url = new URL(apiBaseUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(secretKey, {
    host: url.hostname,
    port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443,
    protocol,
    timeout: opts.timeoutMs,
    maxNetworkRetries: opts.maxNetworkRetries,
    telemetry: false,
    appInfo: { name: 'paymesh' },
  });
}

/** provider_a: Stripe-style card payments through PaymentIntents and a hosted pay page. */
export class ProviderAAdapter implements PaymentAdapter {
  readonly type = 'provider_a' as const;
  private readonly stripe: Stripe;

  constructor(
    private readonly credentials: ProviderACredentials,
    opts: ProviderOptions,
  ) {
    this.stripe = providerAClient(credentials.secretKey, credentials.apiBaseUrl ?? opts.defaultApiBaseUrl, opts);
  }

  async registerWebhookEndpoint(url: string): Promise<{ endpointId: string; secret: string }> {
    const endpoint = await this.call('webhook endpoint registration', () =>
      this.stripe.webhookEndpoints.create({
        url,
        enabled_events: [...WEBHOOK_EVENTS],
        description: 'paymesh platform webhook',
      }),
    );
    if (!endpoint.secret) throw new ProviderError('invalid', 'provider_a returned a webhook endpoint without a secret');
    return { endpointId: endpoint.id, secret: endpoint.secret };
  }

  async deleteWebhookEndpoint(endpointId: string): Promise<void> {
    await this.call('webhook endpoint deletion', () => this.stripe.webhookEndpoints.del(endpointId));
  }

  async createPayment(input: CreatePaymentInput): Promise<ProviderPayment> {
    const intent = await this.call('payment creation', () =>
      this.stripe.paymentIntents.create(
        {
          amount: input.amount,
          currency: input.currency.toLowerCase(),
          metadata: paymentMetadata(input),
          ...(input.description ? { description: input.description } : {}),
          ...(input.buyerEmail ? { receipt_email: input.buyerEmail } : {}),
          ...(input.returnUrl ? { return_url: input.returnUrl } : {}),
        },
        { idempotencyKey: idempotencyKey(input.transactionId, 'create') },
      ),
    );
    return {
      providerPaymentId: intent.id,
      outcome: outcomeOfIntentStatus(intent.status),
      redirectUrl: intent.next_action?.redirect_to_url?.url ?? null,
      clientSecret: intent.client_secret,
    };
  }

  async cancelPayment(providerPaymentId: string, key: string): Promise<void> {
    try {
      await this.stripe.paymentIntents.cancel(providerPaymentId, {}, { idempotencyKey: key });
      return;
    } catch (err) {
      if (!(isStripeError(err) && err.code === UNEXPECTED_STATE)) throw mapProviderAError(err, 'payment cancellation');
    }
    // The intent could not be cancelled in its state: settle what that state means for the caller.
    const current = await this.call('payment retrieval', () => this.stripe.paymentIntents.retrieve(providerPaymentId));
    settleRefusedCancellation({ status: current.status, outcome: outcomeOfIntentStatus(current.status) });
  }

  async fetchStatus(providerPaymentId: string): Promise<ProviderPaymentStatus> {
    const intent = await this.call('payment retrieval', () => this.stripe.paymentIntents.retrieve(providerPaymentId));
    return {
      providerPaymentId: intent.id,
      outcome: outcomeOfIntentStatus(intent.status),
      providerStatus: intent.status,
      metadata: { ...intent.metadata },
    };
  }

  verifyWebhook(input: WebhookInput): Promise<ProviderWebhookEvent[]> {
    try {
      return Promise.resolve([this.verifyAndParseWebhook(input)]);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** {@link verifyWebhook} for the one event a provider_a delivery carries. */
  verifyAndParseWebhook(input: WebhookInput): ProviderWebhookEvent {
    const header = input.headers['stripe-signature'];
    if (!header) throw new ValidationError('missing Stripe-Signature header', { field: 'stripe-signature' });
    const secret = this.credentials.webhookSecret;
    if (!secret) throw new ValidationError('provider has no webhook secret configured');
    const signedAt = signedTimestamp(header);
    if (signedAt === undefined)
      throw new ValidationError('webhook signature verification failed: malformed Stripe-Signature header');
    if (signedAt - input.receivedAt.getTime() / 1000 > WEBHOOK_TOLERANCE_SECONDS) {
      throw new ValidationError('webhook signature verification failed: timestamp outside the tolerance window');
    }
    let verified: unknown;
    try {
      verified = this.stripe.webhooks.constructEvent(
        input.rawBody,
        header,
        secret,
        WEBHOOK_TOLERANCE_SECONDS,
        undefined,
        input.receivedAt.getTime(),
      );
    } catch (err) {
      const reason =
        isStripeError(err) && /tolerance/i.test(err.message)
          ? 'timestamp outside the tolerance window'
          : 'signature mismatch';
      throw new ValidationError(`webhook signature verification failed: ${reason}`, { cause: err });
    }
    const event = eventSchema.safeParse(verified);
    if (!event.success) throw new ValidationError('webhook payload is not a provider_a event');
    const { id, type, created, livemode, data } = event.data;
    const base = { eventId: id, eventType: type, occurredAt: new Date(created * 1000).toISOString(), live: livemode };
    const outcome = outcomeOfEvent(type);
    if (outcome !== null) {
      const intent = paymentIntentObject.safeParse(data.object);
      if (!intent.success) throw new ValidationError(`webhook ${type} does not carry a payment intent`);
      return {
        ...base,
        outcome,
        adjustment: null,
        payment: { providerPaymentId: intent.data.id, metadata: intent.data.metadata },
      };
    }
    return { ...base, outcome: null, ...adjustmentOf(type, data) };
  }

  async refund(): Promise<never> {
    throw new NotSupportedError('refunds through provider_a are not available yet');
  }

  private async call<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw mapProviderAError(err, operation);
    }
  }
}
