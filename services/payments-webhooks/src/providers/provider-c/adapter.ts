import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
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
import type { ProviderCCredentials } from './module';
import { IdempotentCreationConflict, ProviderCClient } from './client';
import { mandateStatusOf, outcomeOfStatus, packMetadata, paymentAction, unpackMetadata } from './mapping';

/**
 * Events older than this when they arrive are refused as stale. The signature covers no timestamp,
 * so `created_at` (inside the signed body) is what bounds a replay of a captured delivery; the
 * claims make any replay within the window a duplicate.
 */
export const STALE_AFTER_MS = 7 * 24 * 3600_000;
/** The provider sends at most 250 events per webhook. */
const MAX_EVENTS = 250;

const id = (prefix: string) => z.string().regex(new RegExp(`^${prefix}[A-Za-z0-9]{1,60}$`));
const metadata = z.record(z.string()).nullish();

const paymentSchema = z
  .object({
    id: id('PM'),
    status: z.string(),
    amount: z.number().int().nonnegative(),
    amount_refunded: z.number().int().nonnegative().optional(),
    currency: z.string().regex(/^[A-Z]{3}$/),
    metadata,
  })
  .passthrough();
const billingRequestSchema = z
  .object({
    id: id('BRQ'),
    status: z.string(),
    metadata,
    links: z.object({ payment_request_payment: id('PM').optional() }).passthrough(),
  })
  .passthrough();
const flowSchema = z.object({ id: z.string(), authorisation_url: z.string().url() }).passthrough();
const refundSchema = z
  .object({
    id: id('RF'),
    amount: z.number().int().positive(),
    currency: z.string().regex(/^[A-Z]{3}$/),
    links: z.object({ payment: id('PM') }).passthrough(),
  })
  .passthrough();
type Payment = z.infer<typeof paymentSchema>;
const mandateSchema = z.object({ id: id('MD'), status: z.string() }).passthrough();

const eventSchema = z
  .object({
    id: id('EV'),
    created_at: z.string().datetime({ offset: true }),
    resource_type: z.string().min(1).max(64),
    action: z.string().min(1).max(64),
    links: z.record(z.string()).default({}),
    details: z.object({ cause: z.string().optional(), reason_code: z.string().nullish() }).passthrough().optional(),
  })
  .passthrough();
const webhookSchema = z.object({ events: z.array(eventSchema).min(1).max(MAX_EVENTS) }).passthrough();
type Event = z.infer<typeof eventSchema>;

function parse<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, raw: unknown, envelope: string, operation: string): T {
  const inner: unknown = raw !== null && typeof raw === 'object' ? Reflect.get(raw, envelope) : undefined;
  const res = schema.safeParse(inner);
  if (!res.success) throw new ProviderError('invalid', `provider_c ${operation}: the answer is not ${envelope}`);
  return res.data;
}

/** Whether `signature` (hex) is the HMAC-SHA256 of `body` keyed with `secret`, compared in constant time. */
export function signatureMatches(body: Buffer, secret: string, signature: string): boolean {
  if (!/^[0-9a-f]{64}$/i.test(signature)) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

/**
 * provider_c: direct debit (GoCardless style). A checkout creates a billing request (a one-off
 * payment request plus a mandate request) and a billing request flow; the buyer authorises the
 * mandate on the provider's page, and the collection settles days later through signed webhooks
 * (`Webhook-Signature`). Each event names resources by id only: payments and refunds are fetched
 * with the record's token, so ownership and amounts are the provider's, not the body's.
 */
export class ProviderCAdapter implements PaymentAdapter {
  readonly type = 'provider_c' as const;
  private readonly client: ProviderCClient;

  constructor(
    private readonly credentials: ProviderCCredentials,
    opts: ProviderOptions,
  ) {
    this.client = new ProviderCClient({
      accessToken: credentials.accessToken,
      apiBaseUrl: credentials.apiBaseUrl ?? opts.defaultApiBaseUrl,
      timeoutMs: opts.timeoutMs,
      maxNetworkRetries: opts.maxNetworkRetries,
    });
  }

  registerWebhookEndpoint(): Promise<never> {
    return Promise.reject(new NotSupportedError('provider_c webhook endpoints are set up in the provider dashboard'));
  }

  deleteWebhookEndpoint(): Promise<never> {
    return Promise.reject(new NotSupportedError('provider_c webhook endpoints are set up in the provider dashboard'));
  }

  async createPayment(input: CreatePaymentInput): Promise<ProviderPayment> {
    const currency = input.currency.toUpperCase();
    const br = await this.billingRequest(input, currency);
    const paymentId = br.links.payment_request_payment;
    if (!paymentId)
      throw new ProviderError('invalid', 'provider_c billing request creation: the request links no payment');
    const flowBody = {
      billing_request_flows: {
        ...(input.returnUrl ? { redirect_uri: input.returnUrl, exit_uri: input.returnUrl } : {}),
        links: { billing_request: br.id },
      },
    };
    let raw: unknown;
    try {
      raw = await this.client.post(
        'billing_request_flows',
        flowBody,
        idempotencyKey(input.transactionId, 'flow'),
        'billing request flow creation',
      );
    } catch (err) {
      if (!(err instanceof IdempotentCreationConflict)) throw err;
      // A flow moves no money and cannot be fetched: a retry gets a new one for the same request.
      raw = await this.client.post(
        'billing_request_flows',
        flowBody,
        idempotencyKey(input.transactionId, 'flow', br.id, String(Date.now())),
        'billing request flow creation',
      );
    }
    const flow = parse(flowSchema, raw, 'billing_request_flows', 'billing request flow creation');
    return {
      providerPaymentId: paymentId,
      outcome: 'pending',
      redirectUrl: flow.authorisation_url,
      clientSecret: null,
    };
  }

  /**
   * The transaction's billing request: created, or on a retry the one the key created before, when
   * it asks for the same payment (the provider answers any reuse of a key with a conflict).
   */
  private async billingRequest(input: CreatePaymentInput, currency: string) {
    const op = 'billing request creation';
    try {
      return parse(
        billingRequestSchema,
        await this.client.post(
          'billing_requests',
          {
            billing_requests: {
              payment_request: {
                amount: input.amount,
                currency,
                description: (input.description ?? `Payment ${input.transactionId}`).slice(0, 255),
                metadata: packMetadata(paymentMetadata(input)),
              },
              mandate_request: { currency },
              metadata: { transaction_id: input.transactionId },
            },
          },
          idempotencyKey(input.transactionId, 'create'),
          op,
        ),
        'billing_requests',
        op,
      );
    } catch (err) {
      if (
        !(err instanceof IdempotentCreationConflict) ||
        err.conflictingResourceId === null ||
        !/^BRQ[A-Za-z0-9]{1,60}$/.test(err.conflictingResourceId)
      )
        throw err;
      const br = parse(
        billingRequestSchema,
        await this.client.get(`billing_requests/${err.conflictingResourceId}`, op),
        'billing_requests',
        op,
      );
      const pm = br.links.payment_request_payment;
      const p = pm ? await this.payment(pm) : null;
      const same =
        br.metadata?.['transaction_id'] === input.transactionId &&
        p !== null &&
        p.amount === input.amount &&
        p.currency === currency;
      if (!same) throw err;
      return br;
    }
  }

  async cancelPayment(providerPaymentId: string, key: string): Promise<void> {
    try {
      await this.client.post(
        `payments/${encodeURIComponent(providerPaymentId)}/actions/cancel`,
        {},
        key,
        'payment cancellation',
      );
      return;
    } catch (err) {
      if (!(err instanceof ProviderError && err.providerKind === 'invalid')) throw err;
    }
    // Not cancellable in its state: settle what that state means for the caller.
    const current = await this.payment(providerPaymentId);
    settleRefusedCancellation({ status: current.status, outcome: outcomeOfStatus(current.status) }, 'collected');
  }

  async fetchStatus(providerPaymentId: string): Promise<ProviderPaymentStatus> {
    const p = await this.payment(providerPaymentId);
    return {
      providerPaymentId: p.id,
      outcome: outcomeOfStatus(p.status),
      providerStatus: p.status,
      metadata: metadataOf(p),
    };
  }

  async verifyWebhook(input: WebhookInput): Promise<ProviderWebhookEvent[]> {
    const signature = input.headers['webhook-signature'] ?? '';
    if (!signatureMatches(input.rawBody, this.credentials.webhookSecret, signature))
      throw new ValidationError('provider_c webhook signature does not match');
    let json: unknown;
    try {
      json = JSON.parse(input.rawBody.toString('utf8'));
    } catch {
      throw new ValidationError('provider_c webhook body is not JSON');
    }
    const body = webhookSchema.safeParse(json);
    if (!body.success) throw new ValidationError('provider_c webhook body is not a list of events');
    for (const e of body.data.events) {
      if (input.receivedAt.getTime() - Date.parse(e.created_at) > STALE_AFTER_MS)
        throw new ValidationError(`provider_c event ${e.id} is stale`);
    }
    const payments = new Map<string, Promise<Payment>>();
    const fetchPayment = (pm: string) => {
      let p = payments.get(pm);
      if (!p) payments.set(pm, (p = this.owned(pm, () => this.payment(pm))));
      return p;
    };
    const out: ProviderWebhookEvent[] = [];
    for (const e of body.data.events) out.push(await this.eventOf(e, fetchPayment));
    return out;
  }

  async refund(): Promise<never> {
    throw new NotSupportedError('refunds through provider_c are not available yet');
  }

  private async eventOf(e: Event, fetchPayment: (id: string) => Promise<Payment>): Promise<ProviderWebhookEvent> {
    const base = {
      eventId: e.id,
      eventType: `${e.resource_type}.${e.action}`,
      occurredAt: new Date(e.created_at).toISOString(),
      live: this.credentials.environment === 'live',
      outcome: null,
      adjustment: null,
      payment: null,
    };
    if (e.resource_type === 'payments') {
      const pm = e.links['payment'];
      if (pm === undefined) throw new ValidationError(`provider_c event ${e.id} names no payment`);
      const p = await fetchPayment(pm);
      const ref = { providerPaymentId: p.id, metadata: metadataOf(p) };
      const meaning = paymentAction(e.action);
      if (meaning === null) return { ...base, payment: ref };
      if ('outcome' in meaning) return { ...base, payment: ref, outcome: meaning.outcome };
      return {
        ...base,
        payment: ref,
        adjustment: {
          kind: 'dispute',
          disputeId: `${p.id}:chargeback`,
          status: meaning.dispute,
          amount: p.amount,
          currency: p.currency,
          reason: e.details?.reason_code ?? e.details?.cause ?? null,
        },
      };
    }
    if (e.resource_type === 'refunds' && e.action === 'created') {
      const rf = e.links['refund'];
      if (rf === undefined) throw new ValidationError(`provider_c event ${e.id} names no refund`);
      const r = await this.owned(rf, () => this.retrieve(refundSchema, 'refunds', rf));
      const p = await fetchPayment(r.links.payment);
      return {
        ...base,
        payment: { providerPaymentId: p.id, metadata: metadataOf(p) },
        adjustment: {
          kind: 'refund',
          refundId: r.id,
          amount: r.amount,
          currency: r.currency,
          refundedTotal: Math.max(p.amount_refunded ?? r.amount, r.amount),
        },
      };
    }
    const mandateStatus = e.resource_type === 'mandates' ? mandateStatusOf(e.action) : null;
    if (mandateStatus !== null) {
      const md = e.links['mandate'];
      if (md === undefined) throw new ValidationError(`provider_c event ${e.id} names no mandate`);
      const m = await this.owned(md, () => this.retrieve(mandateSchema, 'mandates', md));
      return { ...base, mandate: { providerMandateId: m.id, status: mandateStatus } };
    }
    // Billing requests and everything else: recorded, no effect.
    return base;
  }

  /** A resource an event names, fetched with this record's token; another account's is a rejection. */
  private async owned<T>(resourceId: string, fetchIt: () => Promise<T>): Promise<T> {
    try {
      return await fetchIt();
    } catch (err) {
      if (err instanceof ProviderError && err.providerKind === 'not_found') {
        throw new ValidationError(`provider_c webhook names ${resourceId}, which this account does not have`, {
          cause: err,
        });
      }
      throw err;
    }
  }

  private payment(id: string): Promise<Payment> {
    return this.retrieve(paymentSchema, 'payments', id);
  }

  /** One object of the account by id, read from its envelope (`payments`: a payment retrieval). */
  private async retrieve<T>(
    schema: z.ZodType<T, z.ZodTypeDef, unknown>,
    envelope: 'payments' | 'refunds' | 'mandates',
    id: string,
  ): Promise<T> {
    const operation = `${envelope.slice(0, -1)} retrieval`;
    return parse(
      schema,
      await this.client.get(`${envelope}/${encodeURIComponent(id)}`, operation),
      envelope,
      operation,
    );
  }
}

function metadataOf(p: Payment): Record<string, string> {
  return unpackMetadata(normaliseMetadata(p.metadata) ?? {});
}
