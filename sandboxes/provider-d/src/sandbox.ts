import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '@paymesh/core';
import { notFound, unprocessable } from './errors';

export interface Money {
  currency_code: string;
  value: string;
}

const ZERO_DECIMAL: ReadonlySet<string> = new Set(['HUF', 'JPY', 'TWD']);
export const CURRENCIES: ReadonlySet<string> = new Set([
  'AUD',
  'BRL',
  'CAD',
  'CHF',
  'CZK',
  'DKK',
  'EUR',
  'GBP',
  'HKD',
  'HUF',
  'ILS',
  'JPY',
  'MXN',
  'MYR',
  'NOK',
  'NZD',
  'PHP',
  'PLN',
  'SEK',
  'SGD',
  'THB',
  'TWD',
  'USD',
]);

/** Minor units of `{currency_code, value}`; null when malformed. */
export function minorOf(m: Money): number | null {
  const zero = ZERO_DECIMAL.has(m.currency_code);
  const r = (zero ? /^(\d{1,10})$/ : /^(\d{1,10})\.(\d{2})$/).exec(m.value);
  if (!r) return null;
  return zero ? Number(r[1]) : Number(r[1]) * 100 + Number(r[2]);
}

export function money(minor: number, currency: string): Money {
  if (ZERO_DECIMAL.has(currency)) return { currency_code: currency, value: String(minor) };
  return { currency_code: currency, value: `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}` };
}

export type OrderStatus = 'CREATED' | 'APPROVED' | 'COMPLETED';
export type CaptureStatus = 'COMPLETED' | 'DECLINED' | 'PARTIALLY_REFUNDED' | 'REFUNDED';

export interface PurchaseUnit {
  reference_id: string;
  description?: string | undefined;
  custom_id?: string | undefined;
  invoice_id?: string | undefined;
  amount: Money;
}

export interface Order {
  id: string;
  /** The client id of the app that created it: only that app sees it. */
  owner: string;
  status: OrderStatus;
  create_time: string;
  update_time: string;
  unit: PurchaseUnit;
  returnUrl: string | null;
  cancelUrl: string | null;
  /** How the buyer approved: with funding that captures, or with funding the capture declines. */
  funding: 'ok' | 'declined' | null;
  payerId: string | null;
  captureId: string | null;
}

export interface Capture {
  id: string;
  orderId: string;
  status: CaptureStatus;
  amount: Money;
  create_time: string;
  update_time: string;
  refundIds: string[];
}

export interface Refund {
  id: string;
  captureId: string;
  amount: Money;
  totalRefunded: Money;
  create_time: string;
}

export type DisputeStatus = 'OPEN' | 'UNDER_REVIEW' | 'RESOLVED';
export interface Dispute {
  dispute_id: string;
  captureId: string;
  status: DisputeStatus;
  reason: string;
  amount: Money;
  create_time: string;
  update_time: string;
  outcome: 'RESOLVED_BUYER_FAVOUR' | 'RESOLVED_SELLER_FAVOUR' | null;
}

export interface WebhookEndpoint {
  id: string;
  owner: string;
  url: string;
  eventTypes: string[];
}

/** A webhook event as the provider sends it. */
export interface WebhookEvent {
  id: string;
  event_version: '1.0';
  create_time: string;
  resource_type: string;
  resource_version: '2.0';
  event_type: string;
  summary: string;
  resource: unknown;
  /** The app whose webhooks receive it (not sent). */
  owner: string;
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
function token(length: number): string {
  let out = '';
  for (const b of randomBytes(length)) out += UPPER[b % UPPER.length];
  return out;
}

/**
 * The sandbox's state, in memory. Each change that the provider announces produces a webhook event
 * handed to `onEvent`, which delivers it to every webhook endpoint of the owning app.
 */
export class Sandbox {
  private readonly apps = new Map<string, string>();
  private readonly tokens = new Map<string, { owner: string; expiresAt: number }>();
  private readonly orders = new Map<string, Order>();
  private readonly captures = new Map<string, Capture>();
  private readonly refunds = new Map<string, Refund>();
  private readonly disputes = new Map<string, Dispute>();
  private readonly endpoints = new Map<string, WebhookEndpoint>();
  private readonly events = new Map<string, WebhookEvent>();

  constructor(
    private readonly clock: Clock,
    private readonly publicUrl: () => string,
    private readonly onEvent: (
      event: WebhookEvent,
      endpoints: WebhookEndpoint[],
      transmissionTime?: string,
      resend?: boolean,
    ) => void,
  ) {}

  private now(): string {
    return this.clock.now().toISOString();
  }

  /**
   * Client credentials -> access token. Any client id of 8+ characters with a secret of 16+ is an
   * app; its first token request fixes the secret, a later one with another secret is refused.
   */
  issueToken(clientId: string, secret: string): { token: string; expiresIn: number } | null {
    if (clientId.length < 8 || secret.length < 16) return null;
    const known = this.apps.get(clientId);
    if (known !== undefined && known !== secret) return null;
    this.apps.set(clientId, secret);
    const t = `A21AA${token(40)}`;
    const expiresIn = 32_400;
    this.tokens.set(t, { owner: clientId, expiresAt: this.clock.now().getTime() + expiresIn * 1000 });
    return { token: t, expiresIn };
  }

  ownerOfToken(t: string): string | null {
    const hit = this.tokens.get(t);
    return hit && hit.expiresAt > this.clock.now().getTime() ? hit.owner : null;
  }

  createOrder(owner: string, unit: PurchaseUnit, returnUrl: string | null, cancelUrl: string | null): Order {
    const at = this.now();
    const o: Order = {
      id: token(17),
      owner,
      status: 'CREATED',
      create_time: at,
      update_time: at,
      unit,
      returnUrl,
      cancelUrl,
      funding: null,
      payerId: null,
      captureId: null,
    };
    this.orders.set(o.id, o);
    return o;
  }

  /** An order; with `owner`, only when that app created it (others get the provider's 404). */
  order(id: string, owner?: string): Order {
    const o = this.orders.get(id);
    if (!o || (owner !== undefined && o.owner !== owner))
      throw notFound(`The specified resource does not exist (order ${id}).`);
    return o;
  }

  capture(id: string, owner?: string): Capture {
    const c = this.captures.get(id);
    if (!c || (owner !== undefined && this.order(c.orderId).owner !== owner))
      throw notFound(`The specified resource does not exist (capture ${id}).`);
    return c;
  }

  refund(id: string, owner?: string): Refund {
    const r = this.refunds.get(id);
    if (!r || (owner !== undefined && this.order(this.capture(r.captureId).orderId).owner !== owner))
      throw notFound(`The specified resource does not exist (refund ${id}).`);
    return r;
  }

  dispute(id: string, owner?: string): Dispute {
    const d = this.disputes.get(id);
    if (!d || (owner !== undefined && this.order(this.capture(d.captureId).orderId).owner !== owner))
      throw notFound(`The specified resource does not exist (dispute ${id}).`);
    return d;
  }

  /** The buyer approves on the pay page; `declined` funding makes the later capture decline. */
  approve(o: Order, funding: 'ok' | 'declined'): Order {
    if (o.status !== 'CREATED') throw unprocessable('ORDER_ALREADY_APPROVED', `The order is already ${o.status}.`);
    o.status = 'APPROVED';
    o.funding = funding;
    o.payerId = token(13);
    o.update_time = this.now();
    this.emit(o.owner, 'CHECKOUT.ORDER.APPROVED', 'checkout-order', `An order has been approved by buyer`, () =>
      this.views.order(o),
    );
    return o;
  }

  /** The merchant captures an approved order; the capture declines when the buyer's funding does. */
  captureOrder(o: Order): Order {
    if (o.status === 'COMPLETED')
      throw unprocessable(
        'ORDER_ALREADY_CAPTURED',
        'Order already captured. If intent is CAPTURE only one capture per order is allowed.',
      );
    if (o.status !== 'APPROVED')
      throw unprocessable('ORDER_NOT_APPROVED', 'Payer has not yet approved the Order for payment.');
    const at = this.now();
    const status: CaptureStatus = o.funding === 'declined' ? 'DECLINED' : 'COMPLETED';
    const c: Capture = {
      id: token(17),
      orderId: o.id,
      status,
      amount: o.unit.amount,
      create_time: at,
      update_time: at,
      refundIds: [],
    };
    this.captures.set(c.id, c);
    o.captureId = c.id;
    o.status = 'COMPLETED';
    o.update_time = at;
    const word = status === 'COMPLETED' ? 'completed' : 'declined';
    this.emit(
      o.owner,
      `PAYMENT.CAPTURE.${status}`,
      'capture',
      `Payment ${word} for ${c.amount.value} ${c.amount.currency_code}`,
      () => this.views.capture(c),
    );
    return o;
  }

  refundCapture(c: Capture, minor: number | null): Refund {
    if (c.status !== 'COMPLETED' && c.status !== 'PARTIALLY_REFUNDED')
      throw unprocessable('CAPTURE_FULLY_REFUNDED', `The capture cannot be refunded in status ${c.status}.`);
    const total = minorOf(c.amount) ?? 0;
    const done = c.refundIds.reduce((s, id) => s + (minorOf(this.refund(id).amount) ?? 0), 0);
    const amount = minor ?? total - done;
    if (amount < 1 || amount > total - done)
      throw unprocessable(
        'REFUND_AMOUNT_EXCEEDED',
        'The refund amount must be less than or equal to the capture amount that has not yet been refunded.',
        'amount',
      );
    const at = this.now();
    const currency = c.amount.currency_code;
    const r: Refund = {
      id: token(17),
      captureId: c.id,
      amount: money(amount, currency),
      totalRefunded: money(done + amount, currency),
      create_time: at,
    };
    this.refunds.set(r.id, r);
    c.refundIds.push(r.id);
    c.status = done + amount === total ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
    c.update_time = at;
    this.emit(
      this.order(c.orderId).owner,
      'PAYMENT.CAPTURE.REFUNDED',
      'refund',
      `A ${r.amount.value} ${currency} capture payment was refunded`,
      () => this.views.refund(r),
    );
    return r;
  }

  openDispute(c: Capture, reason: string): Dispute {
    if (c.status === 'DECLINED')
      throw unprocessable('CAPTURE_NOT_COMPLETED', 'Only completed captures can be disputed.');
    const at = this.now();
    const d: Dispute = {
      dispute_id: `PP-D-${token(8)}`,
      captureId: c.id,
      status: 'OPEN',
      reason,
      amount: c.amount,
      create_time: at,
      update_time: at,
      outcome: null,
    };
    this.disputes.set(d.dispute_id, d);
    this.emit(
      this.order(c.orderId).owner,
      'CUSTOMER.DISPUTE.CREATED',
      'dispute',
      `A new dispute opened with Case # ${d.dispute_id}`,
      () => this.views.dispute(d),
    );
    return d;
  }

  reviewDispute(d: Dispute): Dispute {
    if (d.status !== 'OPEN') throw unprocessable('INVALID_DISPUTE_STATUS', `The dispute is ${d.status}.`);
    d.status = 'UNDER_REVIEW';
    d.update_time = this.now();
    this.emit(
      this.order(this.capture(d.captureId).orderId).owner,
      'CUSTOMER.DISPUTE.UPDATED',
      'dispute',
      `A dispute was updated with Case # ${d.dispute_id}`,
      () => this.views.dispute(d),
    );
    return d;
  }

  /** The sandbox's adjudication: BUYER_FAVOR loses the dispute for the merchant, SELLER_FAVOR wins it. */
  resolveDispute(d: Dispute, outcome: 'BUYER_FAVOR' | 'SELLER_FAVOR'): Dispute {
    if (d.status === 'RESOLVED') throw unprocessable('INVALID_DISPUTE_STATUS', 'The dispute is already resolved.');
    d.status = 'RESOLVED';
    d.outcome = outcome === 'BUYER_FAVOR' ? 'RESOLVED_BUYER_FAVOUR' : 'RESOLVED_SELLER_FAVOUR';
    d.update_time = this.now();
    this.emit(
      this.order(this.capture(d.captureId).orderId).owner,
      'CUSTOMER.DISPUTE.RESOLVED',
      'dispute',
      `A dispute was resolved with Case # ${d.dispute_id}`,
      () => this.views.dispute(d),
    );
    return d;
  }

  addEndpoint(owner: string, url: string, eventTypes: string[]): WebhookEndpoint {
    const e: WebhookEndpoint = { id: token(17), owner, url, eventTypes };
    this.endpoints.set(e.id, e);
    return e;
  }

  endpoint(id: string, owner?: string): WebhookEndpoint {
    const e = this.endpoints.get(id);
    if (!e || (owner !== undefined && e.owner !== owner)) throw notFound(`Webhook ${id} does not exist.`);
    return e;
  }

  deleteEndpoint(e: WebhookEndpoint): void {
    this.endpoints.delete(e.id);
  }

  event(id: string, owner?: string): WebhookEvent {
    const e = this.events.get(id);
    if (!e || (owner !== undefined && e.owner !== owner)) throw notFound(`Webhook event ${id} does not exist.`);
    return e;
  }

  listEvents(owner: string | undefined): WebhookEvent[] {
    return [...this.events.values()].filter((e) => owner === undefined || e.owner === owner);
  }

  /** Delivers an event again to the endpoints of its app (the provider's resend), `times` times. */
  resend(e: WebhookEvent, times: number, transmissionTime?: string): void {
    for (let i = 0; i < times; i++) this.onEvent(e, this.endpointsOf(e.owner, e.event_type), transmissionTime, true);
  }

  /** Sends an event of any type (one the platform may not know) with the given resource. */
  custom(owner: string, type: string, resource: unknown): WebhookEvent {
    return this.emit(owner, type, 'custom', `Sandbox ${type} event`, () => resource);
  }

  private endpointsOf(owner: string, type: string): WebhookEndpoint[] {
    return [...this.endpoints.values()].filter(
      (e) => e.owner === owner && (e.eventTypes.includes('*') || e.eventTypes.includes(type)),
    );
  }

  private emit(
    owner: string,
    type: string,
    resourceType: string,
    summary: string,
    resource: () => unknown,
  ): WebhookEvent {
    const e: WebhookEvent = {
      id: `WH-${token(8)}-${token(17)}`,
      event_version: '1.0',
      create_time: this.now(),
      resource_type: resourceType,
      resource_version: '2.0',
      event_type: type,
      summary,
      resource: resource(),
      owner,
    };
    this.events.set(e.id, e);
    this.onEvent(e, this.endpointsOf(owner, type));
    return e;
  }

  /** The provider's JSON views of each resource. */
  readonly views = {
    order: (o: Order, base = this.publicUrl()) => {
      const captures = o.captureId ? [this.views.capture(this.capture(o.captureId), base)] : [];
      const refunds = o.captureId
        ? this.capture(o.captureId).refundIds.map((id) => this.views.refund(this.refund(id), base))
        : [];
      return {
        id: o.id,
        intent: 'CAPTURE',
        status: o.status,
        create_time: o.create_time,
        update_time: o.update_time,
        purchase_units: [{ ...o.unit, ...(captures.length ? { payments: { captures, refunds } } : {}) }],
        ...(o.payerId
          ? { payer: { payer_id: o.payerId, email_address: `buyer-${o.payerId.toLowerCase()}@example.com` } }
          : {}),
        links: [
          { href: `${base}/v2/checkout/orders/${o.id}`, rel: 'self', method: 'GET' },
          ...(o.status === 'CREATED'
            ? [{ href: `${base}/checkoutnow?token=${o.id}`, rel: 'approve', method: 'GET' }]
            : []),
          ...(o.status === 'APPROVED'
            ? [{ href: `${base}/v2/checkout/orders/${o.id}/capture`, rel: 'capture', method: 'POST' }]
            : []),
        ],
      };
    },
    capture: (c: Capture, base = this.publicUrl()) => {
      const o = this.order(c.orderId);
      return {
        id: c.id,
        status: c.status,
        amount: c.amount,
        final_capture: true,
        ...(o.unit.custom_id !== undefined ? { custom_id: o.unit.custom_id } : {}),
        ...(o.unit.invoice_id !== undefined ? { invoice_id: o.unit.invoice_id } : {}),
        create_time: c.create_time,
        update_time: c.update_time,
        supplementary_data: { related_ids: { order_id: c.orderId } },
        links: [
          { href: `${base}/v2/payments/captures/${c.id}`, rel: 'self', method: 'GET' },
          { href: `${base}/v2/payments/captures/${c.id}/refund`, rel: 'refund', method: 'POST' },
          { href: `${base}/v2/checkout/orders/${c.orderId}`, rel: 'up', method: 'GET' },
        ],
      };
    },
    refund: (r: Refund, base = this.publicUrl()) => ({
      id: r.id,
      status: 'COMPLETED',
      amount: r.amount,
      seller_payable_breakdown: { total_refunded_amount: r.totalRefunded },
      create_time: r.create_time,
      update_time: r.create_time,
      links: [
        { href: `${base}/v2/payments/refunds/${r.id}`, rel: 'self', method: 'GET' },
        { href: `${base}/v2/payments/captures/${r.captureId}`, rel: 'up', method: 'GET' },
      ],
    }),
    dispute: (d: Dispute) => ({
      dispute_id: d.dispute_id,
      create_time: d.create_time,
      update_time: d.update_time,
      disputed_transactions: [{ seller_transaction_id: d.captureId }],
      reason: d.reason,
      status: d.status,
      dispute_amount: d.amount,
      dispute_life_cycle_stage: 'CHARGEBACK',
      dispute_channel: 'EXTERNAL',
      ...(d.outcome ? { dispute_outcome: { outcome_code: d.outcome } } : {}),
    }),
  };
}

export const newTransmissionId = (): string => randomUUID();
