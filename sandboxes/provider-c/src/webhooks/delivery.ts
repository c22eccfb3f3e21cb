import { createHmac } from 'node:crypto';
import type { Logger } from '@paymesh/core';
import type { WebhookSettings } from '../config';
import { newId, type ProviderEvent } from '../domain/sandbox';

const USER_AGENT = 'paymesh-provider-c-sandbox/0.1 (webhooks)';
const MAX_RECORDED = 10_000;
/** Owner of a drop switch that applies to every account. */
export const ALL_OWNERS = '*';
/** `error` of a send the drop control swallowed. */
export const DROPPED = 'dropped by sandbox control';

/** A webhook as sent: its body is fixed once, so a resend is byte-identical (same signature). */
export interface Webhook {
  id: string;
  owner: string;
  url: string;
  body: string;
  signature: string;
  events: ProviderEvent[];
}

export interface WebhookCall {
  seq: number;
  webhook_id: string;
  url: string;
  attempt: number;
  ok: boolean;
  status_code: number | null;
  error: string | null;
  at: string;
}

/** `Webhook-Signature`: hex HMAC-SHA256 of the raw body keyed with the endpoint secret. */
export function sign(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * Sends webhooks the way the provider does: one `POST` per change to the account's endpoint with
 * `{"events":[…],"meta":{"webhook_id"}}`, signed with the endpoint secret, retried with exponential
 * backoff until a 2xx answer. Accounts without an endpoint get no webhooks (as without one configured).
 */
export class WebhookCaller {
  private readonly endpoints = new Map<string, { url: string; secret: string }>();
  private readonly webhooks = new Map<string, Webhook>();
  private readonly calls: WebhookCall[] = [];
  private seq = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly shutdown = new AbortController();
  /** Owners (access tokens, or {@link ALL_OWNERS}) whose webhooks are dropped instead of sent. */
  private readonly dropping = new Set<string>();

  constructor(
    private readonly settings: WebhookSettings,
    private readonly logger: Logger,
  ) {}

  setEndpoint(owner: string, url: string, secret: string): void {
    this.endpoints.set(owner, { url, secret });
  }

  endpoint(owner: string): { url: string; secret: string } | undefined {
    return this.endpoints.get(owner);
  }

  /**
   * Signs and sends a webhook in the background. While dropping is on for the owner, the webhook
   * is kept (so it can be resent) and its one attempt recorded as dropped; nothing is sent.
   */
  send(owner: string, events: ProviderEvent[]): void {
    const ep = this.endpoints.get(owner);
    if (!ep || events.length === 0) return;
    const id = newId('WB');
    const body = JSON.stringify({ events, meta: { webhook_id: id } });
    const w: Webhook = { id, owner, url: ep.url, body, signature: sign(body, ep.secret), events };
    this.webhooks.set(id, w);
    if (this.dropping.has(owner) || this.dropping.has(ALL_OWNERS)) {
      this.record({
        seq: ++this.seq,
        webhook_id: w.id,
        url: w.url,
        attempt: 1,
        ok: false,
        status_code: null,
        error: DROPPED,
        at: new Date().toISOString(),
      });
      this.logger.info({ webhookId: w.id, url: w.url }, 'webhook dropped by sandbox control');
      return;
    }
    this.schedule(w, 1, 0);
  }

  /** Turns dropping of new webhooks on or off for one owner or for {@link ALL_OWNERS}. */
  setDropping(owner: string, on: boolean): void {
    if (on) this.dropping.add(owner);
    else this.dropping.delete(owner);
  }

  /** Sends a webhook again unchanged, as the provider's retry (or a test) does; also while dropping (a lost webhook arriving late). */
  resend(w: Webhook): void {
    this.schedule(w, 1, 0);
  }

  webhook(id: string, owner?: string): Webhook | undefined {
    const w = this.webhooks.get(id);
    return w && (owner === undefined || w.owner === owner) ? w : undefined;
  }

  list(filter: {
    owner?: string | undefined;
    resource?: string | undefined;
  }): Array<Omit<Webhook, 'owner' | 'body' | 'signature'> & { calls: WebhookCall[] }> {
    const { owner, resource } = filter;
    return [...this.webhooks.values()]
      .filter(
        (w) =>
          (owner === undefined || w.owner === owner) &&
          (resource === undefined || w.events.some((e) => Object.values(e.links).includes(resource))),
      )
      .map(({ owner: _o, body: _b, signature: _s, ...w }) => ({
        ...w,
        calls: this.calls.filter((c) => c.webhook_id === w.id),
      }));
  }

  async close(): Promise<void> {
    this.shutdown.abort();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  private record(call: WebhookCall): void {
    this.calls.push(call);
    if (this.calls.length > MAX_RECORDED) this.calls.splice(0, this.calls.length - MAX_RECORDED);
  }

  private schedule(w: Webhook, attempt: number, delayMs: number): void {
    if (this.shutdown.signal.aborted) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const run = this.attempt(w, attempt).finally(() => this.inFlight.delete(run));
      this.inFlight.add(run);
    }, delayMs);
    this.timers.add(timer);
  }

  private async attempt(w: Webhook, attempt: number): Promise<void> {
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const res = await fetch(w.url, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'webhook-signature': w.signature,
          origin: 'https://api.gocardless.com',
        },
        body: w.body,
        signal: AbortSignal.any([this.shutdown.signal, AbortSignal.timeout(this.settings.timeoutMs)]),
      });
      statusCode = res.status;
      await res.body?.cancel().catch(() => undefined);
      if (res.status < 200 || res.status >= 300) error = `HTTP ${res.status}`;
    } catch (err) {
      error = err instanceof Error ? (err.name === 'TimeoutError' ? 'timeout' : err.message) : String(err);
    }
    if (this.shutdown.signal.aborted && statusCode === null) return;
    const ok = error === null;
    this.record({
      seq: ++this.seq,
      webhook_id: w.id,
      url: w.url,
      attempt,
      ok,
      status_code: statusCode,
      error,
      at: new Date().toISOString(),
    });
    const log = { webhookId: w.id, url: w.url, attempt, statusCode, error };
    if (ok) {
      this.logger.debug(log, 'webhook sent');
    } else if (attempt < this.settings.maxAttempts) {
      const delay = this.settings.retryBaseMs * 2 ** (attempt - 1);
      this.logger.info({ ...log, retryInMs: delay }, 'webhook failed; will retry');
      this.schedule(w, attempt + 1, delay);
    } else {
      this.logger.warn(log, 'webhook failed; giving up');
    }
  }
}
