import { createSign, createVerify, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { Logger } from '@paymesh/core';
import type { WebhookSettings } from './config';
import { newTransmissionId, type WebhookEndpoint, type WebhookEvent } from './sandbox';

const USER_AGENT = 'PayPal/AUHD-214.0-paymesh-sandbox';
const MAX_RECORDED = 10_000;
export const AUTH_ALGO = 'SHA256withRSA';
/** Owner of a drop switch that applies to every app. */
export const ALL_OWNERS = '*';
/** `error` of a transmission the drop control swallowed. */
export const DROPPED = 'dropped by sandbox control';

export interface Transmission {
  seq: number;
  transmission_id: string;
  event_id: string;
  event_type: string;
  webhook_id: string;
  url: string;
  attempt: number;
  ok: boolean;
  status_code: number | null;
  error: string | null;
  at: string;
  /** What was sent, so tests can replay or tamper with a real delivery. */
  headers: Record<string, string>;
  body: string;
  /** The app the endpoint belongs to (not shown). */
  owner: string;
}

/**
 * Signs and delivers webhook events the way the provider does: `POST <url>` with the event as JSON
 * and the `PAYPAL-TRANSMISSION-*` headers; the signature is RSA-SHA256 over
 * `<transmission id>|<transmission time>|<webhook id>|<CRC32 of the body, decimal>`. Each attempt
 * is a new transmission; failed ones are retried with exponential backoff.
 */
export class WebhookSender {
  private readonly calls: Transmission[] = [];
  private seq = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly shutdown = new AbortController();
  private readonly keys: { privateKey: KeyObject; publicKey: KeyObject };
  /** Owners (apps, or {@link ALL_OWNERS}) whose events are dropped instead of delivered. */
  private readonly dropping = new Set<string>();

  constructor(
    private readonly settings: WebhookSettings,
    private readonly logger: Logger,
    private readonly certUrl: () => string,
  ) {
    this.keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  }

  /** The public key the signatures verify with (served at the cert URL). */
  publicKeyPem(): string {
    return this.keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  }

  static signedString(transmissionId: string, time: string, webhookId: string, body: string): string {
    return `${transmissionId}|${time}|${webhookId}|${crc32(Buffer.from(body, 'utf8'))}`;
  }

  /** Whether `sig` is this sandbox's signature of that transmission. */
  verify(transmissionId: string, time: string, webhookId: string, body: string, sig: string): boolean {
    const v = createVerify('RSA-SHA256');
    v.update(WebhookSender.signedString(transmissionId, time, webhookId, body));
    try {
      return v.verify(this.keys.publicKey, sig, 'base64');
    } catch {
      return false;
    }
  }

  /**
   * Delivers to each endpoint; `transmissionTime` backdates the transmissions (a stale delivery).
   * While dropping is on for the event's app, a new event's transmission to each endpoint is
   * recorded as dropped and never sent; `resend` (the resend control) always delivers, so a
   * dropped event can arrive late.
   */
  send(event: WebhookEvent, endpoints: WebhookEndpoint[], transmissionTime?: string, resend = false): void {
    const drop = !resend && (this.dropping.has(event.owner) || this.dropping.has(ALL_OWNERS));
    for (const e of endpoints) {
      if (drop) this.recordDropped(event, e, transmissionTime);
      else this.schedule(event, e, 1, 0, transmissionTime);
    }
  }

  /** Turns dropping of new events' deliveries on or off for one app or for {@link ALL_OWNERS}. */
  setDropping(owner: string, on: boolean): void {
    if (on) this.dropping.add(owner);
    else this.dropping.delete(owner);
  }

  list(filter: { owner?: string | undefined; eventId?: string | undefined } = {}): Transmission[] {
    return this.calls.filter(
      (c) =>
        (filter.owner === undefined || c.owner === filter.owner) &&
        (filter.eventId === undefined || c.event_id === filter.eventId),
    );
  }

  async close(): Promise<void> {
    this.shutdown.abort();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  private schedule(
    event: WebhookEvent,
    endpoint: WebhookEndpoint,
    attempt: number,
    delayMs: number,
    transmissionTime?: string,
  ): void {
    if (this.shutdown.signal.aborted) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const run = this.attempt(event, endpoint, attempt, transmissionTime).finally(() => this.inFlight.delete(run));
      this.inFlight.add(run);
    }, delayMs);
    this.timers.add(timer);
  }

  /** A signed transmission of `event` to `endpoint`: what goes on the wire. */
  private transmission(
    event: WebhookEvent,
    endpoint: WebhookEndpoint,
    transmissionTime?: string,
  ): { transmissionId: string; headers: Record<string, string>; body: string } {
    const { owner: _owner, ...wire } = event;
    const body = JSON.stringify(wire);
    const transmissionId = newTransmissionId();
    const time = transmissionTime ?? new Date().toISOString();
    const signer = createSign('RSA-SHA256');
    signer.update(WebhookSender.signedString(transmissionId, time, endpoint.id, body));
    const sig = signer.sign(this.keys.privateKey, 'base64');
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'paypal-transmission-id': transmissionId,
      'paypal-transmission-time': time,
      'paypal-transmission-sig': sig,
      'paypal-cert-url': this.certUrl(),
      'paypal-auth-algo': AUTH_ALGO,
    };
    return { transmissionId, headers, body };
  }

  private record(
    event: WebhookEvent,
    endpoint: WebhookEndpoint,
    t: { transmissionId: string; headers: Record<string, string>; body: string },
    attempt: number,
    statusCode: number | null,
    error: string | null,
  ): void {
    this.calls.push({
      seq: ++this.seq,
      transmission_id: t.transmissionId,
      event_id: event.id,
      event_type: event.event_type,
      webhook_id: endpoint.id,
      url: endpoint.url,
      attempt,
      ok: error === null,
      status_code: statusCode,
      error,
      at: new Date().toISOString(),
      headers: t.headers,
      body: t.body,
      owner: event.owner,
    });
    if (this.calls.length > MAX_RECORDED) this.calls.splice(0, this.calls.length - MAX_RECORDED);
  }

  private recordDropped(event: WebhookEvent, endpoint: WebhookEndpoint, transmissionTime?: string): void {
    this.record(event, endpoint, this.transmission(event, endpoint, transmissionTime), 1, null, DROPPED);
    this.logger.info(
      { eventId: event.id, eventType: event.event_type, url: endpoint.url },
      'webhook delivery dropped by sandbox control',
    );
  }

  private async attempt(
    event: WebhookEvent,
    endpoint: WebhookEndpoint,
    attempt: number,
    transmissionTime?: string,
  ): Promise<void> {
    const t = this.transmission(event, endpoint, transmissionTime);
    const { headers, body } = t;
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const res = await fetch(endpoint.url, {
        method: 'POST',
        redirect: 'manual',
        headers,
        body,
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
    this.record(event, endpoint, t, attempt, statusCode, error);
    const log = { eventId: event.id, url: endpoint.url, attempt, statusCode, error };
    if (ok) {
      this.logger.debug(log, 'webhook delivered');
    } else if (attempt < this.settings.maxAttempts) {
      const delay = this.settings.retryBaseMs * 2 ** (attempt - 1);
      this.logger.info({ ...log, retryInMs: delay }, 'webhook delivery failed; will retry');
      this.schedule(event, endpoint, attempt + 1, delay, transmissionTime);
    } else {
      this.logger.warn(log, 'webhook delivery failed; giving up');
    }
  }
}
