import type { Clock, Logger } from '@paymesh/core';
import type { WebhookSettings } from '../config';
import type { ProviderEvent } from '../domain/types';
import { signatureHeader } from './signature';

export const SIGNATURE_HEADER = 'Stripe-Signature';
const USER_AGENT = 'paymesh-provider-a-sandbox/0.1 (webhooks)';
const MAX_RECORDED_ATTEMPTS = 10_000;
/** Scope of a drop switch that applies to every account. */
export const ALL_SCOPES = '*';
/** `error` of an attempt the drop control swallowed. */
export const DROPPED = 'dropped by sandbox control';

/** Where an event goes; looked up again before every attempt so deleted/disabled endpoints stop receiving. */
export interface DeliveryTarget {
  endpointId: string;
  resolve(): { url: string; secret: string; enabled: boolean } | undefined;
}

export interface DeliveryAttempt {
  seq: number;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  endpoint_url: string;
  /** 1 for the first try of a delivery, 2 for its first retry, ... */
  attempt: number;
  /** True when the delivery was started by the resend control rather than by the event itself. */
  resend: boolean;
  ok: boolean;
  status_code: number | null;
  error: string | null;
  /** ISO time the attempt finished. */
  at: string;
  duration_ms: number;
  /** Set when another attempt is scheduled. */
  next_retry_in_ms: number | null;
  /** Internal: owner of the event, for per-account filtering. Not serialised. */
  scope: string;
}

export interface AttemptFilter {
  scope?: string;
  eventId?: string;
  endpointId?: string;
}

/** Delay before retry number `failedAttempts` (1 = first retry): base * 2^(n-1), capped. */
export function retryDelayMs(
  settings: Pick<WebhookSettings, 'retryBaseMs' | 'retryMaxMs'>,
  failedAttempts: number,
): number {
  return Math.min(settings.retryBaseMs * 2 ** Math.max(0, failedAttempts - 1), settings.retryMaxMs);
}

/**
 * Delivers events to webhook endpoints in the background: each (event, endpoint) pair is POSTed,
 * signed, and retried with exponential backoff on a non-2xx answer or a network error. Nothing
 * here is awaited by API requests.
 */
export class WebhookDispatcher {
  private readonly attempts: DeliveryAttempt[] = [];
  private seq = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly shutdown = new AbortController();
  /** Scopes (account API keys, or {@link ALL_SCOPES}) whose events are dropped instead of delivered. */
  private readonly dropping = new Set<string>();
  /** Trace headers of the request that caused an event, sent with each of its deliveries. */
  private readonly traceHeaders = new WeakMap<ProviderEvent, Record<string, string>>();

  constructor(
    private readonly settings: WebhookSettings,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  /**
   * Schedules delivery of `event` to every target. Returns immediately. While dropping is on for
   * the scope, an event's own delivery is recorded as a dropped attempt and never sent (the event
   * stays pending); resends are always sent, so a test can deliver a dropped event late.
   * `traceHeaders` (see trace-context.ts) go out with every attempt of this event.
   */
  deliver(
    event: ProviderEvent,
    targets: DeliveryTarget[],
    scope: string,
    resend = false,
    traceHeaders?: Record<string, string>,
  ): void {
    if (traceHeaders) this.traceHeaders.set(event, traceHeaders);
    const drop = !resend && (this.dropping.has(scope) || this.dropping.has(ALL_SCOPES));
    for (const target of targets) {
      if (drop) this.recordDropped(event, target, scope);
      else this.schedule(event, target, scope, resend, 1, 0);
    }
  }

  /** Turns dropping of new events' deliveries on or off for one scope or for {@link ALL_SCOPES}. */
  setDropping(scope: string, on: boolean): void {
    if (on) this.dropping.add(scope);
    else this.dropping.delete(scope);
  }

  isDropping(scope: string): boolean {
    return this.dropping.has(scope) || this.dropping.has(ALL_SCOPES);
  }

  list(filter: AttemptFilter = {}): DeliveryAttempt[] {
    return this.attempts.filter(
      (a) =>
        (filter.scope === undefined || a.scope === filter.scope) &&
        (filter.eventId === undefined || a.event_id === filter.eventId) &&
        (filter.endpointId === undefined || a.endpoint_id === filter.endpointId),
    );
  }

  /** Cancels pending retries, aborts requests in flight and waits for them to settle. */
  async close(): Promise<void> {
    this.shutdown.abort();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  private schedule(
    event: ProviderEvent,
    target: DeliveryTarget,
    scope: string,
    resend: boolean,
    attempt: number,
    delayMs: number,
  ): void {
    if (this.shutdown.signal.aborted) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const run = this.attempt(event, target, scope, resend, attempt).finally(() => this.inFlight.delete(run));
      this.inFlight.add(run);
    }, delayMs);
    this.timers.add(timer);
  }

  private async attempt(
    event: ProviderEvent,
    target: DeliveryTarget,
    scope: string,
    resend: boolean,
    attempt: number,
  ): Promise<void> {
    const endpoint = target.resolve();
    if (!endpoint || !endpoint.enabled) {
      this.logger.debug(
        { eventId: event.id, endpointId: target.endpointId },
        'endpoint gone or disabled; delivery dropped',
      );
      return;
    }
    const payload = JSON.stringify(event, null, 2);
    const timestamp = Math.floor(this.clock.now().getTime() / 1000);
    const started = Date.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const res = await fetch(endpoint.url, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          ...this.traceHeaders.get(event),
          'content-type': 'application/json; charset=utf-8',
          'user-agent': USER_AGENT,
          [SIGNATURE_HEADER]: signatureHeader(payload, endpoint.secret, timestamp),
        },
        body: payload,
        signal: AbortSignal.any([this.shutdown.signal, AbortSignal.timeout(this.settings.timeoutMs)]),
      });
      statusCode = res.status;
      await res.body?.cancel().catch(() => undefined);
      if (res.status < 200 || res.status >= 300) error = `HTTP ${res.status}`;
    } catch (err) {
      error = describe(err);
    }
    if (this.shutdown.signal.aborted && statusCode === null) return;

    const ok = error === null;
    const retry = !ok && attempt < this.settings.maxAttempts;
    const nextDelay = retry ? retryDelayMs(this.settings, attempt) : null;
    this.record({
      seq: ++this.seq,
      event_id: event.id,
      event_type: event.type,
      endpoint_id: target.endpointId,
      endpoint_url: endpoint.url,
      attempt,
      resend,
      ok,
      status_code: statusCode,
      error,
      at: new Date().toISOString(),
      duration_ms: Date.now() - started,
      next_retry_in_ms: nextDelay,
      scope,
    });
    const log = { eventId: event.id, type: event.type, url: endpoint.url, attempt, statusCode, error };
    if (ok) {
      event.pending_webhooks = Math.max(0, event.pending_webhooks - 1);
      this.logger.debug(log, 'webhook delivered');
    } else if (nextDelay !== null) {
      this.logger.info({ ...log, retryInMs: nextDelay }, 'webhook delivery failed; will retry');
      this.schedule(event, target, scope, resend, attempt + 1, nextDelay);
    } else {
      this.logger.warn(log, 'webhook delivery failed; giving up');
    }
  }

  private recordDropped(event: ProviderEvent, target: DeliveryTarget, scope: string): void {
    const endpoint = target.resolve();
    if (!endpoint || !endpoint.enabled) return;
    this.record({
      seq: ++this.seq,
      event_id: event.id,
      event_type: event.type,
      endpoint_id: target.endpointId,
      endpoint_url: endpoint.url,
      attempt: 1,
      resend: false,
      ok: false,
      status_code: null,
      error: DROPPED,
      at: new Date().toISOString(),
      duration_ms: 0,
      next_retry_in_ms: null,
      scope,
    });
    this.logger.info(
      { eventId: event.id, type: event.type, url: endpoint.url },
      'webhook delivery dropped by sandbox control',
    );
  }

  private record(a: DeliveryAttempt): void {
    this.attempts.push(a);
    if (this.attempts.length > MAX_RECORDED_ATTEMPTS)
      this.attempts.splice(0, this.attempts.length - MAX_RECORDED_ATTEMPTS);
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: unknown }).cause;
    if (err.name === 'TimeoutError') return 'timeout';
    if (cause instanceof Error) return `${err.message}: ${(cause as Error & { code?: string }).code ?? cause.message}`;
    return err.message;
  }
  return String(err);
}
