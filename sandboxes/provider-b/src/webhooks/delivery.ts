import type { Logger } from '@paymesh/core';
import type { WebhookSettings } from '../config';

const USER_AGENT = 'paymesh-provider-b-sandbox/0.1 (webhooks)';
const MAX_RECORDED = 10_000;
/** Owner of a drop switch that applies to every account. */
export const ALL_OWNERS = '*';
/** `error` of a call the drop control swallowed. */
export const DROPPED = 'dropped by sandbox control';

export interface WebhookCall {
  seq: number;
  payment_id: string;
  url: string;
  attempt: number;
  ok: boolean;
  status_code: number | null;
  error: string | null;
  at: string;
  /** The account the payment belongs to (not shown). */
  owner: string;
}

/**
 * Calls payment webhooks in the background the way the provider does: `POST <webhookUrl>` with a
 * form body `id=<payment id>` and nothing else (no signature: the receiver fetches the payment),
 * retried with exponential backoff until a 2xx answer.
 */
export class WebhookCaller {
  private readonly calls: WebhookCall[] = [];
  private seq = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly shutdown = new AbortController();
  /** Owners (API keys, or {@link ALL_OWNERS}) whose calls are dropped instead of sent. */
  private readonly dropping = new Set<string>();

  constructor(
    private readonly settings: WebhookSettings,
    private readonly logger: Logger,
  ) {}

  /**
   * Calls the webhook in the background. While dropping is on for the owner, the call is recorded
   * as dropped and never sent, unless `late` (the resend control), which always sends.
   */
  call(paymentId: string, url: string, owner: string, late = false): void {
    if (!late && (this.dropping.has(owner) || this.dropping.has(ALL_OWNERS))) {
      this.calls.push({
        seq: ++this.seq,
        payment_id: paymentId,
        url,
        attempt: 1,
        ok: false,
        status_code: null,
        error: DROPPED,
        at: new Date().toISOString(),
        owner,
      });
      this.logger.info({ paymentId, url }, 'webhook call dropped by sandbox control');
      return;
    }
    this.schedule(paymentId, url, owner, 1, 0);
  }

  /** Turns dropping of webhook calls on or off for one owner or for {@link ALL_OWNERS}. */
  setDropping(owner: string, on: boolean): void {
    if (on) this.dropping.add(owner);
    else this.dropping.delete(owner);
  }

  list(filter: { owner?: string | undefined; paymentId?: string | undefined } = {}): WebhookCall[] {
    return this.calls.filter(
      (c) =>
        (filter.owner === undefined || c.owner === filter.owner) &&
        (filter.paymentId === undefined || c.payment_id === filter.paymentId),
    );
  }

  async close(): Promise<void> {
    this.shutdown.abort();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  private schedule(paymentId: string, url: string, owner: string, attempt: number, delayMs: number): void {
    if (this.shutdown.signal.aborted) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const run = this.attempt(paymentId, url, owner, attempt).finally(() => this.inFlight.delete(run));
      this.inFlight.add(run);
    }, delayMs);
    this.timers.add(timer);
  }

  private async attempt(paymentId: string, url: string, owner: string, attempt: number): Promise<void> {
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const res = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': USER_AGENT },
        body: new URLSearchParams({ id: paymentId }).toString(),
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
    this.calls.push({
      seq: ++this.seq,
      payment_id: paymentId,
      url,
      attempt,
      ok,
      status_code: statusCode,
      error,
      at: new Date().toISOString(),
      owner,
    });
    if (this.calls.length > MAX_RECORDED) this.calls.splice(0, this.calls.length - MAX_RECORDED);
    const log = { paymentId, url, attempt, statusCode, error };
    if (ok) {
      this.logger.debug(log, 'webhook called');
    } else if (attempt < this.settings.maxAttempts) {
      const delay = this.settings.retryBaseMs * 2 ** (attempt - 1);
      this.logger.info({ ...log, retryInMs: delay }, 'webhook call failed; will retry');
      this.schedule(paymentId, url, owner, attempt + 1, delay);
    } else {
      this.logger.warn(log, 'webhook call failed; giving up');
    }
  }
}
