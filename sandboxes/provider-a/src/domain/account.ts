import type { Clock } from '@paymesh/core';
import { newId } from '../ids';
import type { CardScenario } from './cards';
import type {
  ApiObject,
  Charge,
  Dispute,
  EventRequest,
  PaymentIntent,
  PaymentMethod,
  ProviderEvent,
  Refund,
  WebhookEndpoint,
} from './types';

/**
 * In-memory state. Every mutation of an account happens synchronously inside one call (no awaits
 * between reading and writing), so concurrent HTTP requests are serialised by the event loop and
 * can never interleave half-way through a state transition.
 */

export interface PaymentIntentRecord {
  intent: PaymentIntent;
  /** Where the buyer goes after the pay page (create/confirm `return_url`); not part of the wire object. */
  returnUrl: string | null;
}

export interface PaymentMethodRecord {
  method: PaymentMethod;
  scenario: CardScenario;
}

export interface WebhookEndpointRecord {
  endpoint: WebhookEndpoint;
  secret: string;
}

/** What caused a state change: the API request (id + idempotency key) or nothing (pay page, sandbox controls). */
export interface OperationContext {
  request: EventRequest;
}

export const NO_REQUEST: OperationContext = { request: { id: null, idempotency_key: null } };

export type EventSink = (account: Account, event: ProviderEvent) => void;

export interface SandboxOptions {
  clock: Clock;
  apiVersion: string;
  /** Buyer-facing URL of the pay page for a payment intent. */
  payUrl: (paymentIntentId: string) => string;
  /** Called once per emitted event, after it has been stored; must not block. */
  onEvent: EventSink;
}

export class Account {
  readonly paymentIntents = new Map<string, PaymentIntentRecord>();
  readonly charges = new Map<string, Charge>();
  readonly refunds = new Map<string, Refund>();
  readonly disputes = new Map<string, Dispute>();
  readonly paymentMethods = new Map<string, PaymentMethodRecord>();
  readonly webhookEndpoints = new Map<string, WebhookEndpointRecord>();
  /** Events in creation order. */
  readonly events: ProviderEvent[] = [];
  readonly eventsById = new Map<string, ProviderEvent>();

  constructor(
    readonly apiKey: string,
    readonly livemode: boolean,
    readonly sandbox: Sandbox,
  ) {}

  /** Unix seconds. */
  now(): number {
    return Math.floor(this.sandbox.options.clock.now().getTime() / 1000);
  }

  /** Records that an object id belongs to this account (used by the pay page and sandbox controls). */
  own(id: string): void {
    this.sandbox.registerOwner(id, this);
  }

  /** Enabled endpoints subscribed to an event type (explicitly or via `*`). */
  endpointsFor(type: string): WebhookEndpointRecord[] {
    return [...this.webhookEndpoints.values()].filter(
      (r) =>
        r.endpoint.status === 'enabled' &&
        (r.endpoint.enabled_events.includes('*') || r.endpoint.enabled_events.includes(type)),
    );
  }

  /** Stores an event carrying a snapshot of `object` and hands it to the delivery sink. */
  emit(type: string, object: ApiObject, ctx: OperationContext, previous?: Record<string, unknown>): ProviderEvent {
    const event: ProviderEvent = {
      id: newId('evt'),
      object: 'event',
      api_version: this.sandbox.options.apiVersion,
      created: this.now(),
      data: {
        object: structuredClone(object),
        ...(previous ? { previous_attributes: structuredClone(previous) } : {}),
      },
      livemode: this.livemode,
      pending_webhooks: this.endpointsFor(type).length,
      request: { ...ctx.request },
      type,
    };
    this.events.push(event);
    this.eventsById.set(event.id, event);
    this.own(event.id);
    this.sandbox.options.onEvent(this, event);
    return event;
  }
}

export class Sandbox {
  private readonly accounts = new Map<string, Account>();
  private readonly owners = new Map<string, Account>();

  constructor(readonly options: SandboxOptions) {}

  /** The account behind an API key, created on first use. */
  account(apiKey: string): Account {
    let account = this.accounts.get(apiKey);
    if (!account) {
      account = new Account(apiKey, apiKey.startsWith('sk_live_'), this);
      this.accounts.set(apiKey, account);
    }
    return account;
  }

  registerOwner(id: string, account: Account): void {
    this.owners.set(id, account);
  }

  /** The account owning an object id, for routes that carry no API key (pay page, sandbox controls). */
  ownerOf(id: string): Account | undefined {
    return this.owners.get(id);
  }

  allAccounts(): Account[] {
    return [...this.accounts.values()];
  }
}
