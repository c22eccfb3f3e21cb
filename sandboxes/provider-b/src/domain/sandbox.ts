import { randomBytes } from 'node:crypto';
import type { Clock } from '@paymesh/core';
import { notFound, unprocessable } from '../errors';

export type PaymentStatus = 'open' | 'pending' | 'authorized' | 'paid' | 'canceled' | 'expired' | 'failed';
export type RefundStatus = 'queued' | 'pending' | 'processing' | 'refunded' | 'failed' | 'canceled';
/** What the buyer (or a test) can make an open payment become. */
export const FINAL_STATUSES = ['paid', 'failed', 'canceled', 'expired'] as const;
export type FinalStatus = (typeof FINAL_STATUSES)[number];
const AWAITING: ReadonlySet<PaymentStatus> = new Set(['open', 'pending', 'authorized']);

export interface Refund {
  id: string;
  paymentId: string;
  amount: number;
  description: string;
  metadata: unknown;
  status: RefundStatus;
  createdAt: string;
}

export interface Chargeback {
  id: string;
  paymentId: string;
  amount: number;
  reason: { code: string; description: string };
  createdAt: string;
  reversedAt: string | null;
  settlementId: string | null;
}

export interface Payment {
  id: string;
  /** The API key that created it: only that account sees it. */
  owner: string;
  mode: 'test' | 'live';
  createdAt: string;
  amount: number;
  currency: string;
  description: string;
  redirectUrl: string | null;
  webhookUrl: string | null;
  metadata: unknown;
  status: PaymentStatus;
  paidAt?: string;
  canceledAt?: string;
  expiredAt?: string;
  failedAt?: string;
  refunds: Refund[];
  chargebacks: Chargeback[];
}

export interface NewPayment {
  amount: number;
  currency: string;
  description: string;
  redirectUrl: string | null;
  webhookUrl: string | null;
  metadata: unknown;
}

const ALPHANUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export function newId(prefix: string, length = 10): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += ALPHANUM[b % ALPHANUM.length];
  return `${prefix}_${out}`;
}

export const refunded = (p: Payment) =>
  p.refunds.filter((r) => r.status !== 'failed' && r.status !== 'canceled').reduce((s, r) => s + r.amount, 0);
export const chargedBack = (p: Payment) => p.chargebacks.filter((c) => !c.reversedAt).reduce((s, c) => s + c.amount, 0);
export const isCancelable = (p: Payment) => p.status === 'open';

/**
 * The sandbox's state, in memory. Every change happens synchronously inside one call, then
 * `onChange` is told so the payment's webhook is called, as the provider does for status changes,
 * refunds and chargebacks.
 */
export class Sandbox {
  private readonly payments = new Map<string, Payment>();
  private readonly refunds = new Map<string, Refund>();
  private readonly chargebacks = new Map<string, Chargeback>();

  constructor(
    private readonly clock: Clock,
    private readonly onChange: (payment: Payment) => void,
  ) {}

  private now(): string {
    return this.clock.now().toISOString();
  }

  createPayment(owner: string, input: NewPayment): Payment {
    const p: Payment = {
      id: newId('tr'),
      owner,
      mode: owner.startsWith('live_') ? 'live' : 'test',
      createdAt: this.now(),
      ...input,
      status: 'open',
      refunds: [],
      chargebacks: [],
    };
    this.payments.set(p.id, p);
    return p;
  }

  /** A payment; with `owner`, only when that account created it (others get the provider's 404). */
  payment(id: string, owner?: string): Payment {
    const p = this.payments.get(id);
    if (!p || (owner !== undefined && p.owner !== owner)) throw notFound(`No payment exists with token ${id}.`);
    return p;
  }

  refund(id: string, owner?: string): Refund {
    const r = this.refunds.get(id);
    if (!r || (owner !== undefined && this.payment(r.paymentId).owner !== owner))
      throw notFound(`No refund exists with token ${id}.`);
    return r;
  }

  chargeback(id: string): Chargeback {
    const c = this.chargebacks.get(id);
    if (!c) throw notFound(`No chargeback exists with token ${id}.`);
    return c;
  }

  /** The buyer's (or a test's) decision on an open payment. */
  complete(p: Payment, status: FinalStatus): Payment {
    if (!AWAITING.has(p.status)) throw unprocessable(`The payment is already ${p.status}.`);
    p.status = status;
    const at = this.now();
    if (status === 'paid') p.paidAt = at;
    if (status === 'failed') p.failedAt = at;
    if (status === 'canceled') p.canceledAt = at;
    if (status === 'expired') p.expiredAt = at;
    this.onChange(p);
    return p;
  }

  cancel(p: Payment): Payment {
    if (!isCancelable(p)) throw unprocessable('The payment cannot be canceled.');
    return this.complete(p, 'canceled');
  }

  /** A refund starts `pending`; {@link settleRefund} makes it `refunded` (the sandbox does it right away). */
  createRefund(p: Payment, amount: number, description: string, metadata: unknown): Refund {
    if (p.status !== 'paid') throw unprocessable('The payment cannot be refunded, because it is not paid.');
    const left = p.amount - refunded(p) - chargedBack(p);
    if (amount > left)
      throw unprocessable(
        `The amount is higher than the amount that can be refunded (${left} minor units left).`,
        'amount',
      );
    const r: Refund = {
      id: newId('re'),
      paymentId: p.id,
      amount,
      description,
      metadata,
      status: 'pending',
      createdAt: this.now(),
    };
    p.refunds.push(r);
    this.refunds.set(r.id, r);
    return r;
  }

  settleRefund(r: Refund, status: 'refunded' | 'failed' = 'refunded'): Refund {
    if (r.status !== 'pending' && r.status !== 'queued' && r.status !== 'processing')
      throw unprocessable(`The refund is already ${r.status}.`);
    r.status = status;
    this.onChange(this.payment(r.paymentId));
    return r;
  }

  openChargeback(p: Payment, reasonCode: string, amount?: number): Chargeback {
    if (p.status !== 'paid') throw unprocessable('Only paid payments can be charged back.');
    const c: Chargeback = {
      id: newId('chb'),
      paymentId: p.id,
      amount: amount ?? p.amount,
      reason: { code: reasonCode, description: `Sandbox chargeback (${reasonCode})` },
      createdAt: this.now(),
      reversedAt: null,
      settlementId: null,
    };
    if (c.amount < 1 || c.amount > p.amount)
      throw unprocessable('The chargeback amount must be between 1 and the payment amount.', 'amount');
    p.chargebacks.push(c);
    this.chargebacks.set(c.id, c);
    this.onChange(p);
    return c;
  }

  /** Won: the chargeback is reversed. Lost: it is settled (deducted for good) without a reversal. */
  closeChargeback(c: Chargeback, outcome: 'won' | 'lost'): Chargeback {
    if (c.reversedAt || c.settlementId) throw unprocessable('The chargeback is already closed.');
    if (outcome === 'won') c.reversedAt = this.now();
    else c.settlementId = newId('stl');
    this.onChange(this.payment(c.paymentId));
    return c;
  }

  /** Calls the payment's webhook again, as the provider does when it retries. */
  resend(p: Payment): void {
    this.onChange(p);
  }
}
