import { z } from 'zod';
import type { Chargeback, Payment as SdkPayment, Refund } from '@mollie/api-client';
import { NotSupportedError, ValidationError } from '@paymesh/core';
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
import { normaliseMetadata, paymentMetadata, type ProviderOptions } from '../module';
import type { ProviderBCredentials } from './module';
import { ProviderBClient } from './client';
import { chargebackStatusOf, outcomeOfStatus, refundCompleted, toAmount, toMinor } from './mapping';

const amount = z.object({ currency: z.string().regex(/^[A-Z]{3}$/), value: z.string() });
const when = z.string().nullish();

/** The part of a payment we rely on, checked against the SDK's `PaymentData`. */
const refundSchema = z
  .object({ id: z.string().min(1).max(64), status: z.string(), amount, createdAt: z.string() })
  .passthrough();
const chargebackSchema = z
  .object({
    id: z.string().min(1).max(64),
    amount,
    createdAt: z.string(),
    reversedAt: when,
    settlementId: z.string().nullish(),
    reason: z.object({ code: z.string() }).passthrough().nullish(),
  })
  .passthrough();
const paymentSchema = z
  .object({
    resource: z.literal('payment'),
    id: z.string().min(1).max(64),
    mode: z.enum(['test', 'live']),
    status: z.string(),
    createdAt: z.string(),
    paidAt: when,
    canceledAt: when,
    expiredAt: when,
    failedAt: when,
    metadata: z.unknown(),
    _links: z.object({ checkout: z.object({ href: z.string().url() }).nullish() }).passthrough(),
    _embedded: z
      .object({ refunds: z.array(refundSchema).optional(), chargebacks: z.array(chargebackSchema).optional() })
      .passthrough()
      .optional(),
  })
  .passthrough();
type Payment = z.infer<typeof paymentSchema>;

// Compile-time check that the fields read here exist with these names in the SDK's types.
type Keys<T> = keyof T & string;
const _sdkFields: {
  payment: Array<Keys<SdkPayment>>;
  refund: Array<Keys<Refund>>;
  chargeback: Array<Keys<Chargeback>>;
} = {
  payment: [
    'resource',
    'id',
    'mode',
    'status',
    'createdAt',
    'paidAt',
    'canceledAt',
    'expiredAt',
    'failedAt',
    'metadata',
    '_links',
    '_embedded',
  ],
  refund: ['id', 'status', 'amount', 'createdAt'],
  chargeback: ['id', 'amount', 'createdAt', 'reversedAt', 'settlementId', 'reason'],
};
void _sdkFields;

/** Ids the provider gives payments (`tr_…`); a callback naming anything else is not one of its. */
const PAYMENT_ID = /^tr_[A-Za-z0-9]{4,60}$/;

function parsePayment(raw: unknown, operation: string): Payment {
  const res = paymentSchema.safeParse(raw);
  if (!res.success) throw new ProviderError('invalid', `provider_b ${operation}: the answer is not a payment`);
  return res.data;
}

/** The time the status was reached, else the creation time. */
function statusTime(p: Payment): string {
  const at = { paid: p.paidAt, canceled: p.canceledAt, expired: p.expiredAt, failed: p.failedAt }[p.status] ?? null;
  return new Date(at ?? p.createdAt).toISOString();
}

/**
 * provider_b: redirect payments (Mollie style). The buyer pays on the provider's checkout page; the
 * provider then calls the payment's webhook URL with only `id=tr_…`, which is an untrusted hint:
 * the payment is fetched with the record's key, and the events are read from what it shows.
 */
export class ProviderBAdapter implements PaymentAdapter {
  readonly type = 'provider_b' as const;
  private readonly client: ProviderBClient;

  constructor(credentials: ProviderBCredentials, opts: ProviderOptions) {
    this.client = new ProviderBClient({
      apiKey: credentials.apiKey,
      apiBaseUrl: credentials.apiBaseUrl ?? opts.defaultApiBaseUrl,
      timeoutMs: opts.timeoutMs,
      maxNetworkRetries: opts.maxNetworkRetries,
    });
  }

  registerWebhookEndpoint(): Promise<never> {
    return Promise.reject(
      new NotSupportedError('provider_b takes the webhook URL per payment; there is no endpoint to register'),
    );
  }

  deleteWebhookEndpoint(): Promise<never> {
    return Promise.reject(new NotSupportedError('provider_b has no webhook endpoints'));
  }

  async createPayment(input: CreatePaymentInput): Promise<ProviderPayment> {
    const raw = await this.client.post(
      'payments',
      {
        amount: toAmount(input.amount, input.currency),
        description: (input.description ?? `Payment ${input.transactionId}`).slice(0, 255),
        ...(input.returnUrl ? { redirectUrl: input.returnUrl } : {}),
        webhookUrl: input.webhookUrl,
        metadata: paymentMetadata(input),
      },
      idempotencyKey(input.transactionId, 'create'),
      'payment creation',
    );
    const p = parsePayment(raw, 'payment creation');
    return {
      providerPaymentId: p.id,
      outcome: outcomeOfStatus(p.status),
      redirectUrl: p._links.checkout?.href ?? null,
      clientSecret: null,
    };
  }

  async cancelPayment(providerPaymentId: string, key: string): Promise<void> {
    try {
      await this.client.delete(`payments/${encodeURIComponent(providerPaymentId)}`, key, 'payment cancellation');
      return;
    } catch (err) {
      if (!(err instanceof ProviderError && err.providerKind === 'invalid')) throw err;
    }
    // Not cancellable in its state: settle what that state means for the caller.
    const current = await this.payment(providerPaymentId);
    settleRefusedCancellation({ status: current.status, outcome: outcomeOfStatus(current.status) });
  }

  async fetchStatus(providerPaymentId: string): Promise<ProviderPaymentStatus> {
    const p = await this.payment(providerPaymentId);
    return {
      providerPaymentId: p.id,
      outcome: outcomeOfStatus(p.status),
      providerStatus: p.status,
      metadata: normaliseMetadata(p.metadata) ?? {},
    };
  }

  async verifyWebhook(input: WebhookInput): Promise<ProviderWebhookEvent[]> {
    const type = (input.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') throw new ValidationError('provider_b callbacks are form posts');
    const form = new URLSearchParams(input.rawBody.toString('utf8'));
    const ids = form.getAll('id');
    const id = ids[0];
    if (ids.length !== 1 || id === undefined || !PAYMENT_ID.test(id))
      throw new ValidationError('provider_b callback does not name one payment');
    let p: Payment;
    try {
      p = await this.payment(id, 'refunds,chargebacks');
    } catch (err) {
      if (err instanceof ProviderError && err.providerKind === 'not_found') {
        throw new ValidationError('provider_b callback names a payment this account does not have', { cause: err });
      }
      throw err;
    }
    return eventsOf(p);
  }

  async refund(): Promise<never> {
    throw new NotSupportedError('refunds through provider_b are not available yet');
  }

  private async payment(id: string, embed?: string): Promise<Payment> {
    const query = embed ? `?embed=${embed}` : '';
    return parsePayment(
      await this.client.get(`payments/${encodeURIComponent(id)}${query}`, 'payment retrieval'),
      'payment retrieval',
    );
  }
}

/**
 * The events a fetched payment shows, each named by the state it reached (the callback carries no
 * event id): `tr_…:<status>`, `re_…:refunded`, `chb_…:<open|won|lost>`. The same state read again
 * gives the same ids, so a repeated callback is a duplicate; a new state is a new event.
 */
export function eventsOf(p: Payment): ProviderWebhookEvent[] {
  const metadata = normaliseMetadata(p.metadata) ?? {};
  const base = { live: p.mode === 'live', payment: { providerPaymentId: p.id, metadata } };
  const outcome = outcomeOfStatus(p.status);
  const events: ProviderWebhookEvent[] = [
    {
      ...base,
      eventId: `${p.id}:${p.status}`,
      eventType: `payment.${p.status}`,
      occurredAt: statusTime(p),
      outcome: outcome === 'pending' ? null : outcome,
      adjustment: null,
    },
  ];
  const refunds = [...(p._embedded?.refunds ?? [])]
    .filter((r) => refundCompleted(r.status))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  let refundedTotal = 0;
  for (const r of refunds) {
    const minor = toMinor(r.amount);
    if (minor === null || minor <= 0) throw new ValidationError(`provider_b refund ${r.id} has an unreadable amount`);
    refundedTotal += minor;
    events.push({
      ...base,
      eventId: `${r.id}:${r.status}`,
      eventType: `refund.${r.status}`,
      occurredAt: new Date(r.createdAt).toISOString(),
      outcome: null,
      adjustment: { kind: 'refund', refundId: r.id, amount: minor, currency: r.amount.currency, refundedTotal },
    });
  }
  for (const c of p._embedded?.chargebacks ?? []) {
    const minor = toMinor(c.amount);
    if (minor === null) throw new ValidationError(`provider_b chargeback ${c.id} has an unreadable amount`);
    const status = chargebackStatusOf(c);
    events.push({
      ...base,
      eventId: `${c.id}:${status}`,
      eventType: `chargeback.${status === 'won' ? 'reversed' : status === 'lost' ? 'settled' : 'received'}`,
      occurredAt: new Date(c.reversedAt ?? c.createdAt).toISOString(),
      outcome: null,
      adjustment: {
        kind: 'dispute',
        disputeId: c.id,
        status,
        amount: Math.abs(minor),
        currency: c.amount.currency,
        reason: c.reason?.code ?? null,
      },
    });
  }
  return events;
}
