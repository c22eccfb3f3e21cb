import { randomBytes } from 'node:crypto';
import type { Clock } from '@paymesh/core';
import { invalidState, notFound } from '../errors';

export type PaymentStatus =
  | 'pending_customer_approval'
  | 'pending_submission'
  | 'submitted'
  | 'confirmed'
  | 'paid_out'
  | 'cancelled'
  | 'customer_approval_denied'
  | 'failed'
  | 'charged_back';
export type MandateStatus = 'pending_submission' | 'submitted' | 'active' | 'failed' | 'cancelled' | 'expired';
export type BillingRequestStatus = 'pending' | 'ready_to_fulfil' | 'fulfilling' | 'fulfilled' | 'cancelled';
/** What the payer (or a test) decides on the authorisation page. */
export const PAYER_DECISIONS = ['confirmed', 'failed', 'cancelled'] as const;
export type PayerDecision = (typeof PAYER_DECISIONS)[number];
/** Chargeback state of a payment (one chargeback per payment, as in direct debit schemes). */
export type ChargebackState = 'none' | 'charged_back' | 'chargeback_cancelled' | 'chargeback_settled';

export type Metadata = Record<string, string>;

export interface Payment {
  id: string;
  owner: string;
  createdAt: string;
  chargeDate: string | null;
  amount: number;
  currency: string;
  description: string;
  metadata: Metadata;
  status: PaymentStatus;
  amountRefunded: number;
  chargeback: ChargebackState;
  billingRequestId: string;
  mandateId: string | null;
  /** What the collection will give once submitted (the payer's choice on the sandbox page). */
  collection: 'confirmed' | 'failed' | null;
}

export interface Mandate {
  id: string;
  owner: string;
  createdAt: string;
  status: MandateStatus;
  scheme: string;
  metadata: Metadata;
}

export interface BillingRequest {
  id: string;
  owner: string;
  createdAt: string;
  status: BillingRequestStatus;
  currency: string;
  scheme: string;
  metadata: Metadata;
  paymentId: string | null;
  mandateId: string | null;
}

export interface Flow {
  id: string;
  owner: string;
  createdAt: string;
  billingRequestId: string;
  redirectUri: string | null;
  exitUri: string | null;
}

export interface Refund {
  id: string;
  owner: string;
  createdAt: string;
  amount: number;
  currency: string;
  paymentId: string;
  reference: string | null;
  metadata: Metadata;
}

/** One event as the provider reports it. */
export interface ProviderEvent {
  id: string;
  created_at: string;
  resource_type: 'payments' | 'mandates' | 'billing_requests' | 'refunds';
  action: string;
  links: Record<string, string>;
  details: { origin: string; cause: string; description: string; scheme?: string; reason_code?: string };
  metadata: Metadata;
}

const ALPHANUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export function newId(prefix: string, length = 12): string {
  let out = '';
  for (const b of randomBytes(length)) out += ALPHANUM[b % ALPHANUM.length];
  return `${prefix}${out}`;
}

const SCHEME_OF: Record<string, string> = {
  EUR: 'sepa_core',
  GBP: 'bacs',
  SEK: 'autogiro',
  DKK: 'betalingsservice',
  AUD: 'becs',
  NZD: 'becs_nz',
  CAD: 'pad',
  USD: 'ach',
};
export const CURRENCIES: ReadonlySet<string> = new Set(Object.keys(SCHEME_OF));
const CANCELLABLE: ReadonlySet<PaymentStatus> = new Set(['pending_customer_approval', 'pending_submission']);
const COLLECTED: ReadonlySet<PaymentStatus> = new Set(['confirmed', 'paid_out']);

/**
 * The sandbox's state, in memory. Every change happens synchronously inside one call and reports
 * the events it caused to `onEvents` (one webhook per change, as the provider batches them).
 */
export class Sandbox {
  private readonly payments = new Map<string, Payment>();
  private readonly mandates = new Map<string, Mandate>();
  private readonly billingRequests = new Map<string, BillingRequest>();
  private readonly flows = new Map<string, Flow>();
  private readonly refunds = new Map<string, Refund>();

  private readonly timers = new Set<NodeJS.Timeout>();

  /** `collectionDelayMs`: time from the payer's authorisation to the collection's result (null: only {@link collect}). */
  constructor(
    private readonly clock: Clock,
    private readonly onEvents: (owner: string, events: ProviderEvent[]) => void,
    private readonly collectionDelayMs: number | null = null,
  ) {}

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  private event(
    resource: ProviderEvent['resource_type'],
    action: string,
    links: Record<string, string>,
    cause: string,
    description: string,
    metadata: Metadata = {},
  ): ProviderEvent {
    return {
      id: newId('EV'),
      created_at: this.now(),
      resource_type: resource,
      action,
      links,
      details: { origin: 'gocardless', cause, description },
      metadata,
    };
  }

  /**
   * A billing request with a payment request and a mandate request. NOTE: the sandbox creates the
   * payment (`pending_customer_approval`) together with the request and links it as
   * `payment_request_payment`, so the payment has its id before the payer authorises.
   */
  createBillingRequest(
    owner: string,
    input: { amount: number; currency: string; description: string; metadata: Metadata; paymentMetadata: Metadata },
  ): BillingRequest {
    const scheme = SCHEME_OF[input.currency] ?? 'sepa_core';
    const br: BillingRequest = {
      id: newId('BRQ'),
      owner,
      createdAt: this.now(),
      status: 'pending',
      currency: input.currency,
      scheme,
      metadata: input.metadata,
      paymentId: null,
      mandateId: null,
    };
    const p: Payment = {
      id: newId('PM'),
      owner,
      createdAt: br.createdAt,
      chargeDate: null,
      amount: input.amount,
      currency: input.currency,
      description: input.description,
      metadata: input.paymentMetadata,
      status: 'pending_customer_approval',
      amountRefunded: 0,
      chargeback: 'none',
      billingRequestId: br.id,
      mandateId: null,
      collection: null,
    };
    br.paymentId = p.id;
    this.billingRequests.set(br.id, br);
    this.payments.set(p.id, p);
    this.onEvents(owner, [
      this.event(
        'billing_requests',
        'created',
        { billing_request: br.id },
        'billing_request_created',
        'Billing request created via the API.',
      ),
    ]);
    return br;
  }

  createFlow(owner: string, billingRequestId: string, redirectUri: string | null, exitUri: string | null): Flow {
    const br = this.billingRequest(billingRequestId, owner);
    if (br.status === 'fulfilled' || br.status === 'cancelled')
      throw invalidState(`The billing request is ${br.status}.`, 'billing_request_not_pending');
    const f: Flow = { id: newId('BRF'), owner, createdAt: this.now(), billingRequestId: br.id, redirectUri, exitUri };
    this.flows.set(f.id, f);
    return f;
  }

  private get<T extends { owner: string }>(map: Map<string, T>, id: string, what: string, owner?: string): T {
    const x = map.get(id);
    if (!x || (owner !== undefined && x.owner !== owner)) throw notFound(`Resource not found: ${what} ${id}`);
    return x;
  }

  payment = (id: string, owner?: string) => this.get(this.payments, id, 'payment', owner);
  mandate = (id: string, owner?: string) => this.get(this.mandates, id, 'mandate', owner);
  billingRequest = (id: string, owner?: string) => this.get(this.billingRequests, id, 'billing request', owner);
  flow = (id: string, owner?: string) => this.get(this.flows, id, 'billing request flow', owner);
  refund = (id: string, owner?: string) => this.get(this.refunds, id, 'refund', owner);

  /**
   * The payer's decision on the authorisation page. `confirmed` / `failed`: the mandate is set up,
   * the payment waits for submission (`pending_submission`), and the collection later gives that
   * result ({@link collect}, after the collection delay); `cancelled`: the payer leaves, the request
   * and payment are cancelled.
   */
  decide(br: BillingRequest, decision: PayerDecision): void {
    if (br.status !== 'pending' && br.status !== 'ready_to_fulfil')
      throw invalidState(`The billing request is already ${br.status}.`, 'billing_request_not_pending');
    const p = this.payment(br.paymentId ?? '');
    if (decision === 'cancelled') {
      br.status = 'cancelled';
      p.status = 'cancelled';
      this.onEvents(br.owner, [
        this.event(
          'billing_requests',
          'cancelled',
          { billing_request: br.id },
          'billing_request_cancelled',
          'The payer left the flow.',
        ),
        this.event('payments', 'cancelled', { payment: p.id }, 'payment_cancelled', 'The payment was cancelled.'),
      ]);
      return;
    }
    const m: Mandate = {
      id: newId('MD'),
      owner: br.owner,
      createdAt: this.now(),
      status: 'active',
      scheme: br.scheme,
      metadata: {},
    };
    this.mandates.set(m.id, m);
    br.status = 'fulfilled';
    br.mandateId = m.id;
    p.mandateId = m.id;
    p.chargeDate = this.now().slice(0, 10);
    p.status = 'pending_submission';
    p.collection = decision;
    this.onEvents(br.owner, [
      this.event(
        'billing_requests',
        'fulfilled',
        { billing_request: br.id, mandate_request_mandate: m.id, payment_request_payment: p.id },
        'billing_request_fulfilled',
        'The payer authorised the request.',
      ),
      this.event('mandates', 'created', { mandate: m.id }, 'mandate_created', 'Mandate created via a billing request.'),
      this.event('mandates', 'active', { mandate: m.id }, 'mandate_activated', 'The mandate is active.'),
    ]);
    if (this.collectionDelayMs !== null) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (p.status === 'pending_submission') this.collect(p);
      }, this.collectionDelayMs);
      this.timers.add(timer);
    }
  }

  /** Submits an authorised payment to the banks; the collection is confirmed or fails as the payer chose. */
  collect(p: Payment): Payment {
    if (p.status !== 'pending_submission' || p.collection === null || p.mandateId === null)
      throw invalidState(`This payment has status ${p.status} and cannot be collected.`, 'collection_invalid_state');
    p.status = p.collection;
    const links = { payment: p.id, mandate: p.mandateId };
    this.onEvents(p.owner, [
      this.event('payments', 'submitted', links, 'payment_submitted', 'Payment submitted to the banks.'),
      p.status === 'confirmed'
        ? this.event('payments', 'confirmed', links, 'payment_confirmed', 'Payment confirmed by the banks.')
        : this.event('payments', 'failed', links, 'insufficient_funds', "The payer's bank refused the collection."),
    ]);
    return p;
  }

  cancelPayment(p: Payment): Payment {
    if (!CANCELLABLE.has(p.status))
      throw invalidState(`This payment has status ${p.status} and cannot be cancelled.`, 'cancellation_failed');
    p.status = 'cancelled';
    const br = this.billingRequests.get(p.billingRequestId);
    if (br && (br.status === 'pending' || br.status === 'ready_to_fulfil')) br.status = 'cancelled';
    this.onEvents(p.owner, [
      this.event(
        'payments',
        'cancelled',
        { payment: p.id },
        'payment_cancelled',
        'The payment was cancelled via the API.',
      ),
    ]);
    return p;
  }

  createRefund(
    p: Payment,
    amount: number,
    totalConfirmation: number | null,
    reference: string | null,
    metadata: Metadata,
  ): Refund {
    if (!COLLECTED.has(p.status))
      throw invalidState('This payment cannot be refunded: it has not been collected.', 'refund_payment_invalid_state');
    if (totalConfirmation !== null && totalConfirmation !== p.amountRefunded + amount) {
      throw invalidState(
        'total_amount_confirmation does not match the total refunded after this refund.',
        'total_amount_confirmation_invalid',
      );
    }
    if (amount < 1 || p.amountRefunded + amount > p.amount)
      throw invalidState('The refund amount exceeds what is left to refund.', 'number_of_refunds_exceeded');
    const r: Refund = {
      id: newId('RF'),
      owner: p.owner,
      createdAt: this.now(),
      amount,
      currency: p.currency,
      paymentId: p.id,
      reference,
      metadata,
    };
    this.refunds.set(r.id, r);
    p.amountRefunded += amount;
    this.onEvents(p.owner, [
      this.event(
        'refunds',
        'created',
        { refund: r.id, payment: p.id },
        'payment_refunded',
        'The refund has been created.',
        r.metadata,
      ),
    ]);
    return r;
  }

  /** The payer's bank claws a collected payment back (`charged_back`). */
  chargeBack(p: Payment): Payment {
    if (!COLLECTED.has(p.status) || p.chargeback !== 'none')
      throw invalidState(
        'Only a collected payment without a chargeback can be charged back.',
        'chargeback_invalid_state',
      );
    p.status = 'charged_back';
    p.chargeback = 'charged_back';
    this.onEvents(p.owner, [
      this.event(
        'payments',
        'charged_back',
        { payment: p.id },
        'authorisation_disputed',
        'The payer disputed the collection at their bank.',
      ),
    ]);
    return p;
  }

  /** Won: the bank cancels the chargeback (`chargeback_cancelled`); lost: it is settled (`chargeback_settled`). */
  closeChargeback(p: Payment, outcome: 'won' | 'lost'): Payment {
    if (p.chargeback !== 'charged_back')
      throw invalidState('The payment has no open chargeback.', 'chargeback_invalid_state');
    if (outcome === 'won') {
      p.chargeback = 'chargeback_cancelled';
      p.status = 'confirmed';
      this.onEvents(p.owner, [
        this.event(
          'payments',
          'chargeback_cancelled',
          { payment: p.id },
          'chargeback_cancelled',
          "The chargeback was cancelled by the payer's bank.",
        ),
      ]);
    } else {
      p.chargeback = 'chargeback_settled';
      this.onEvents(p.owner, [
        this.event(
          'payments',
          'chargeback_settled',
          { payment: p.id },
          'chargeback_settled',
          'The chargeback was deducted from a payout.',
        ),
      ]);
    }
    return p;
  }

  setMandate(m: Mandate, status: 'cancelled' | 'failed' | 'expired'): Mandate {
    if (m.status !== 'active' && m.status !== 'pending_submission' && m.status !== 'submitted')
      throw invalidState(`The mandate is already ${m.status}.`, 'mandate_invalid_state');
    m.status = status;
    this.onEvents(m.owner, [
      this.event(
        'mandates',
        status,
        { mandate: m.id },
        status === 'cancelled' ? 'bank_account_closed' : 'invalid_bank_details',
        `The mandate is ${status}.`,
      ),
    ]);
    for (const p of this.payments.values()) {
      if (p.mandateId === m.id && CANCELLABLE.has(p.status)) this.cancelPayment(p);
    }
    return m;
  }
}
