import { z } from 'zod';
import { ConflictError, ErrorCode, NotSupportedError, ValidationError } from '@paymesh/core';
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
import { alreadySettled } from '../cancellation';
import { paymentMetadata, type ProviderOptions } from '../module';
import type { ProviderDCredentials } from './module';
import { issueOf, ProviderDClient } from './client';
import {
  disputeStatusOf,
  familyOf,
  orderAwaitsBuyer,
  orderAwaitsCapture,
  outcomeOfCapture,
  outcomeOfOrder,
  toMinor,
  toMoney,
} from './mapping';

/** Settings shared by every provider_d record: the common ones and the webhook tolerance. */
export interface ProviderDOptions extends ProviderOptions {
  /** How far a transmission time may be from the receipt time (replays of old deliveries are refused). */
  webhookToleranceMs: number;
}

const moneySchema = z
  .object({ currency_code: z.string().regex(/^[A-Z]{3}$/), value: z.string().max(32) })
  .passthrough();
const link = z.object({ href: z.string(), rel: z.string() }).passthrough();
const captureSchema = z
  .object({
    id: z.string().min(1).max(64),
    status: z.string(),
    amount: moneySchema,
    custom_id: z.string().max(127).optional(),
    create_time: z.string().optional(),
    update_time: z.string().optional(),
    supplementary_data: z
      .object({ related_ids: z.object({ order_id: z.string().min(1).max(64) }).passthrough() })
      .passthrough()
      .optional(),
  })
  .passthrough();
const orderSchema = z
  .object({
    id: z.string().min(1).max(64),
    status: z.string(),
    create_time: z.string().optional(),
    update_time: z.string().optional(),
    purchase_units: z
      .array(
        z
          .object({
            custom_id: z.string().max(127).optional(),
            payments: z
              .object({ captures: z.array(captureSchema).optional() })
              .passthrough()
              .optional(),
          })
          .passthrough(),
      )
      .min(1),
    links: z.array(link).optional(),
  })
  .passthrough();
const refundSchema = z
  .object({
    id: z.string().min(1).max(64),
    status: z.string(),
    amount: moneySchema,
    seller_payable_breakdown: z.object({ total_refunded_amount: moneySchema }).passthrough().optional(),
    create_time: z.string().optional(),
    links: z.array(link),
  })
  .passthrough();
const disputeSchema = z
  .object({
    dispute_id: z.string().min(1).max(64),
    status: z.string(),
    reason: z.string().optional(),
    dispute_amount: moneySchema,
    create_time: z.string().optional(),
    update_time: z.string().optional(),
    disputed_transactions: z
      .array(z.object({ seller_transaction_id: z.string().min(1).max(64) }).passthrough())
      .nonempty(),
    dispute_outcome: z.object({ outcome_code: z.string() }).passthrough().optional(),
  })
  .passthrough();
const eventSchema = z
  .object({
    id: z.string().min(1).max(128),
    event_type: z.string().min(1).max(128),
    create_time: z.string(),
    resource_type: z.string().optional(),
    resource: z.record(z.unknown()),
  })
  .passthrough();
type Order = z.infer<typeof orderSchema>;
type Capture = z.infer<typeof captureSchema>;

/** Order ids are 17 upper-case letters and digits at the provider; anything else is not one of its. */
const ORDER_ID = /^[A-Z0-9]{10,40}$/;
const HEADERS = [
  'paypal-transmission-id',
  'paypal-transmission-time',
  'paypal-transmission-sig',
  'paypal-cert-url',
  'paypal-auth-algo',
] as const;

/** Our metadata packed into the purchase unit's `custom_id` (127 characters at most). */
function customId(input: CreatePaymentInput): string {
  const m = paymentMetadata(input);
  const value = [m.transaction_id, m.organization_id, m.site_id, m.provider_id].join(':');
  if (value.length > 127)
    throw new ProviderError('invalid', 'provider_d payment creation: identifiers too long for custom_id');
  return value;
}

/** `custom_id` -> our metadata map; empty when it is not ours. */
export function metadataOf(custom: string | undefined): Record<string, string> {
  const parts = custom?.split(':') ?? [];
  if (parts.length !== 4) return {};
  const [transaction_id, organization_id, site_id, provider_id] = parts as [string, string, string, string];
  return { transaction_id, organization_id, site_id, provider_id };
}

const iso = (t: string | undefined, fallback: string): string => {
  const d = new Date(t ?? fallback);
  return Number.isNaN(d.getTime()) ? new Date(fallback).toISOString() : d.toISOString();
};

/**
 * provider_d: wallet orders (PayPal style). An order is created with intent CAPTURE; the buyer
 * approves it on the provider's page; the platform captures it when the approval event arrives
 * (claimed first, see handle-webhook.ts). Webhooks are authenticated by the provider's
 * verification API with the record's webhook id and the transmission headers.
 */
export class ProviderDAdapter implements PaymentAdapter {
  readonly type = 'provider_d' as const;
  private readonly client: ProviderDClient;

  constructor(
    private readonly credentials: ProviderDCredentials,
    private readonly opts: ProviderDOptions,
  ) {
    this.client = new ProviderDClient({
      clientId: credentials.clientId,
      clientSecret: credentials.clientSecret,
      apiBaseUrl: credentials.apiBaseUrl ?? opts.defaultApiBaseUrl,
      timeoutMs: opts.timeoutMs,
      maxNetworkRetries: opts.maxNetworkRetries,
    });
  }

  async registerWebhookEndpoint(url: string): Promise<{ endpointId: string; secret: string }> {
    const raw = await this.client.post(
      '/v1/notifications/webhooks',
      { url, event_types: [{ name: '*' }] },
      undefined,
      'webhook registration',
    );
    const id = z
      .object({ id: z.string().min(4).max(100) })
      .passthrough()
      .safeParse(raw);
    if (!id.success)
      throw new ProviderError('invalid', 'provider_d webhook registration: the answer has no webhook id');
    // The webhook id is what deliveries are verified against; the provider has no shared secret.
    return { endpointId: id.data.id, secret: id.data.id };
  }

  async deleteWebhookEndpoint(endpointId: string): Promise<void> {
    await this.client.delete(`/v1/notifications/webhooks/${encodeURIComponent(endpointId)}`, 'webhook removal');
  }

  async createPayment(input: CreatePaymentInput): Promise<ProviderPayment> {
    const raw = await this.client.post(
      '/v2/checkout/orders',
      {
        intent: 'CAPTURE',
        purchase_units: [
          {
            reference_id: input.transactionId,
            description: (input.description ?? `Payment ${input.transactionId}`).slice(0, 127),
            custom_id: customId(input),
            amount: toMoney(input.amount, input.currency),
          },
        ],
        application_context: {
          ...(input.returnUrl ? { return_url: input.returnUrl, cancel_url: input.returnUrl } : {}),
          user_action: 'PAY_NOW',
          shipping_preference: 'NO_SHIPPING',
        },
      },
      idempotencyKey(input.transactionId, 'create'),
      'payment creation',
    );
    const o = parse(orderSchema, raw, 'payment creation', 'an order');
    const approve = o.links?.find((l) => l.rel === 'approve' || l.rel === 'payer-action')?.href ?? null;
    return { providerPaymentId: o.id, outcome: outcomeOf(o), redirectUrl: approve, clientSecret: null };
  }

  /**
   * The provider has no call that voids a CAPTURE order, and none is needed for an order the buyer
   * has not approved: money moves only through our capture after the approval. Such an order is
   * accepted as cancelled (it expires at the provider); the caller stores the payment cancelled by
   * compare-and-set, which keeps both capture paths from ever capturing it (cancel-payment.ts). An
   * approved order (our capture is due), a captured one or any other state is refused: the
   * approval webhook or the reconciler settles it.
   */
  async cancelPayment(providerPaymentId: string): Promise<void> {
    const o = await this.order(providerPaymentId);
    const outcome = outcomeOf(o);
    if (outcome === 'cancelled') return;
    if (outcome === 'succeeded') throw alreadySettled();
    if (!captureOf(o) && orderAwaitsBuyer(o.status)) return;
    throw new ConflictError(
      `provider_d order in status ${o.status} cannot be cancelled: the buyer approved it and it settles through its capture`,
      { code: ErrorCode.CANCEL_REFUSED },
    );
  }

  /** The order as the provider has it; an approved order not yet captured asks for the capture. */
  async fetchStatus(providerPaymentId: string): Promise<ProviderPaymentStatus> {
    const o = await this.order(providerPaymentId);
    const c = captureOf(o);
    return {
      providerPaymentId: o.id,
      outcome: outcomeOf(o),
      providerStatus: c?.status ?? o.status,
      metadata: metadataOf(o.purchase_units[0]?.custom_id),
      capture: !c && orderAwaitsCapture(o.status),
    };
  }

  /**
   * Captures an approved order (idempotent per order at the provider through `PayPal-Request-Id`);
   * answers the capture's outcome as an event named like the provider's capture event, so that the
   * capture webhook that follows is a duplicate of it.
   */
  async capturePayment(providerPaymentId: string): Promise<ProviderWebhookEvent[]> {
    let o: Order;
    try {
      o = parse(
        orderSchema,
        await this.client.post(
          `/v2/checkout/orders/${encodeURIComponent(providerPaymentId)}/capture`,
          {},
          idempotencyKey(providerPaymentId, 'capture'),
          'capture',
        ),
        'capture',
        'an order',
      );
    } catch (err) {
      // Captured before (by another request id): read what the capture became.
      if (issueOf(err) !== 'ORDER_ALREADY_CAPTURED') throw err;
      o = await this.order(providerPaymentId);
    }
    const c = captureOf(o);
    if (!c) return [];
    return [this.captureEvent(`capture.${c.status}`, o.id, c, new Date().toISOString())];
  }

  async verifyWebhook(input: WebhookInput): Promise<ProviderWebhookEvent[]> {
    const h = Object.fromEntries(HEADERS.map((k) => [k, input.headers[k] ?? ''])) as Record<
      (typeof HEADERS)[number],
      string
    >;
    if (HEADERS.some((k) => h[k] === '' || h[k].length > 2048))
      throw new ValidationError('provider_d webhook without its transmission headers');
    const sent = Date.parse(h['paypal-transmission-time']);
    if (Number.isNaN(sent) || Math.abs(input.receivedAt.getTime() - sent) > this.opts.webhookToleranceMs) {
      throw new ValidationError('provider_d webhook transmission time outside the tolerance');
    }
    let json: unknown;
    try {
      json = JSON.parse(input.rawBody.toString('utf8'));
    } catch {
      throw new ValidationError('provider_d webhook body is not JSON');
    }
    const parsed = eventSchema.safeParse(json);
    if (!parsed.success) throw new ValidationError('provider_d webhook body is not an event');
    const answer = await this.client.post(
      '/v1/notifications/verify-webhook-signature',
      {
        auth_algo: h['paypal-auth-algo'],
        cert_url: h['paypal-cert-url'],
        transmission_id: h['paypal-transmission-id'],
        transmission_sig: h['paypal-transmission-sig'],
        transmission_time: h['paypal-transmission-time'],
        webhook_id: this.credentials.webhookId ?? '',
        webhook_event: json,
      },
      undefined,
      'webhook verification',
    );
    const status = z.object({ verification_status: z.string() }).passthrough().safeParse(answer);
    if (!status.success) throw new ProviderError('invalid', 'provider_d webhook verification: unreadable answer');
    if (status.data.verification_status !== 'SUCCESS')
      throw new ValidationError('provider_d webhook signature not verified by the provider');
    return [await this.eventOf(parsed.data)];
  }

  async refund(): Promise<never> {
    throw new NotSupportedError('refunds through provider_d are not available yet');
  }

  private async order(id: string): Promise<Order> {
    if (!ORDER_ID.test(id)) throw new ProviderError('not_found', `provider_d order ${id} does not exist`);
    return parse(
      orderSchema,
      await this.client.get(`/v2/checkout/orders/${encodeURIComponent(id)}`, 'order retrieval'),
      'order retrieval',
      'an order',
    );
  }

  private async capture(id: string): Promise<Capture> {
    return parse(
      captureSchema,
      await this.client.get(`/v2/payments/captures/${encodeURIComponent(id)}`, 'capture retrieval'),
      'capture retrieval',
      'a capture',
    );
  }

  /**
   * A verified event, named by the state its resource reached (`<capture id>:<status>`, `<refund id>:<status>`,
   * `<dispute id>:<status>:<outcome>`, `<order id>:APPROVED`), so a resent event, and the capture
   * event after our own capture, are duplicates; other types keep the provider's event id.
   */
  private async eventOf(e: z.infer<typeof eventSchema>): Promise<ProviderWebhookEvent> {
    const live = this.credentials.environment === 'live';
    const at = iso(e.create_time, new Date().toISOString());
    const bad = (what: string) => new ValidationError(`provider_d ${e.event_type} event without ${what}`);
    switch (familyOf(e.event_type)) {
      case 'order_approved': {
        const o = orderSchema.safeParse(e.resource);
        if (!o.success) throw bad('an order');
        return {
          eventId: `${o.data.id}:APPROVED`,
          eventType: e.event_type,
          occurredAt: at,
          live,
          outcome: null,
          adjustment: null,
          capture: true,
          payment: { providerPaymentId: o.data.id, metadata: metadataOf(o.data.purchase_units[0]?.custom_id) },
        };
      }
      case 'order_completed': {
        const o = orderSchema.safeParse(e.resource);
        if (!o.success) throw bad('an order');
        const c = captureOf(o.data);
        if (c) return this.captureEvent(e.event_type, o.data.id, c, at);
        return {
          eventId: `${o.data.id}:${o.data.status}`,
          eventType: e.event_type,
          occurredAt: at,
          live,
          outcome: null,
          adjustment: null,
          payment: { providerPaymentId: o.data.id, metadata: metadataOf(o.data.purchase_units[0]?.custom_id) },
        };
      }
      case 'capture': {
        const c = captureSchema.safeParse(e.resource);
        const orderId = c.data?.supplementary_data?.related_ids.order_id;
        if (!c.success || !orderId) throw bad('a capture of an order');
        return this.captureEvent(e.event_type, orderId, c.data, at);
      }
      case 'capture_refunded': {
        const r = refundSchema.safeParse(e.resource);
        const captureId = r.data?.links
          .find((l) => l.rel === 'up')
          ?.href.split('/')
          .pop();
        if (!r.success || !captureId) throw bad('a refund of a capture');
        const c = await this.ownCapture(captureId);
        const amount = toMinor(r.data.amount);
        const total = r.data.seller_payable_breakdown
          ? toMinor(r.data.seller_payable_breakdown.total_refunded_amount)
          : amount;
        if (amount === null || amount <= 0 || total === null)
          throw new ValidationError(`provider_d refund ${r.data.id} has an unreadable amount`);
        return {
          eventId: `${r.data.id}:${r.data.status}`,
          eventType: e.event_type,
          occurredAt: iso(r.data.create_time, at),
          live,
          outcome: null,
          adjustment:
            r.data.status === 'COMPLETED'
              ? {
                  kind: 'refund',
                  refundId: r.data.id,
                  amount,
                  currency: r.data.amount.currency_code,
                  refundedTotal: total,
                }
              : null,
          payment: { providerPaymentId: orderOf(c), metadata: metadataOf(c.custom_id) },
        };
      }
      case 'dispute': {
        const d = disputeSchema.safeParse(e.resource);
        if (!d.success) throw bad('a dispute');
        const c = await this.ownCapture(d.data.disputed_transactions[0].seller_transaction_id);
        const amount = toMinor(d.data.dispute_amount);
        if (amount === null)
          throw new ValidationError(`provider_d dispute ${d.data.dispute_id} has an unreadable amount`);
        const outcomeCode = d.data.dispute_outcome?.outcome_code ?? null;
        const status = disputeStatusOf(d.data.status, outcomeCode);
        return {
          eventId: `${d.data.dispute_id}:${d.data.status}${outcomeCode ? `:${outcomeCode}` : ''}`,
          eventType: e.event_type,
          occurredAt: iso(d.data.update_time ?? d.data.create_time, at),
          live,
          outcome: null,
          adjustment: {
            kind: 'dispute',
            disputeId: d.data.dispute_id,
            status,
            amount,
            currency: d.data.dispute_amount.currency_code,
            reason: d.data.reason ?? null,
          },
          // Disputes carry none of our metadata: only the stored payment binds them.
          payment: { providerPaymentId: orderOf(c), metadata: null },
        };
      }
      case 'other':
        return {
          eventId: e.id,
          eventType: e.event_type,
          occurredAt: at,
          live,
          outcome: null,
          adjustment: null,
          payment: null,
        };
    }
  }

  /** A capture of this account (a delivery naming another account's capture is not authentic for this record). */
  private async ownCapture(id: string): Promise<Capture> {
    try {
      return await this.capture(id);
    } catch (err) {
      if (err instanceof ProviderError && err.providerKind === 'not_found')
        throw new ValidationError('provider_d event names a capture this account does not have', { cause: err });
      throw err;
    }
  }

  private captureEvent(eventType: string, orderId: string, c: Capture, at: string): ProviderWebhookEvent {
    const outcome = outcomeOfCapture(c.status);
    // A refunded capture has succeeded before; the refund itself is its own event.
    const state = outcome === 'succeeded' ? 'COMPLETED' : c.status;
    return {
      eventId: `${c.id}:${state}`,
      eventType,
      occurredAt: iso(c.update_time ?? c.create_time, at),
      live: this.credentials.environment === 'live',
      outcome: outcome === 'pending' ? null : outcome,
      adjustment: null,
      payment: { providerPaymentId: orderId, metadata: metadataOf(c.custom_id) },
    };
  }
}

function parse<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, raw: unknown, operation: string, what: string): T {
  const res = schema.safeParse(raw);
  if (!res.success) throw new ProviderError('invalid', `provider_d ${operation}: the answer is not ${what}`);
  return res.data;
}

function captureOf(o: Order): Capture | undefined {
  return o.purchase_units[0]?.payments?.captures?.[0];
}

function orderOf(c: Capture): string {
  const id = c.supplementary_data?.related_ids.order_id;
  if (!id) throw new ValidationError(`provider_d capture ${c.id} names no order`);
  return id;
}

function outcomeOf(o: Order): ProviderPaymentStatus['outcome'] {
  const c = captureOf(o);
  return c ? outcomeOfCapture(c.status) : outcomeOfOrder(o.status);
}
