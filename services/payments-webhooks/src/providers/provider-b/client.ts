import { z } from 'zod';
import { ProviderError } from '../adapter';

/** The provider's error body (`application/hal+json`). */
const errorBody = z.object({ title: z.string().optional(), detail: z.string().optional(), field: z.string().optional() }).passthrough();

export interface ProviderBClientOptions {
  apiKey: string;
  /** API origin; requests go to `<origin>/v2/…`. */
  apiBaseUrl: string;
  timeoutMs: number;
  /** Retries of retryable and indeterminate failures, always with the same idempotency key. */
  maxNetworkRetries: number;
}

/** Failures that happen before a request leaves this process (fetch refuses blocked ports outright). */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'bad port']);

function causeCode(err: unknown): string | undefined {
  const cause: unknown = err instanceof Error ? err.cause : undefined;
  if (!(cause instanceof Error)) return undefined;
  return 'code' in cause && typeof cause.code === 'string' ? cause.code : cause.message === 'bad port' ? 'bad port' : undefined;
}

/**
 * A small JSON client of the provider's v2 API. NOTE: the official SDK (`@mollie/api-client`)
 * takes a custom `apiEndpoint` but always sends through an https agent pinned to its own CA
 * bundle, so it cannot reach an http sandbox or a private CA; its types describe the bodies here.
 */
export class ProviderBClient {
  constructor(private readonly opts: ProviderBClientOptions) {}

  get(path: string, operation: string): Promise<unknown> {
    return this.request('GET', path, undefined, undefined, operation);
  }

  post(path: string, body: unknown, idempotencyKey: string, operation: string): Promise<unknown> {
    return this.request('POST', path, body, idempotencyKey, operation);
  }

  delete(path: string, idempotencyKey: string, operation: string): Promise<unknown> {
    return this.request('DELETE', path, undefined, idempotencyKey, operation);
  }

  private async request(method: string, path: string, body: unknown, key: string | undefined, operation: string): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(method, path, body, key, operation);
      } catch (err) {
        const again =
          err instanceof ProviderError && (err.providerKind === 'retryable' || err.providerKind === 'indeterminate') && attempt < this.opts.maxNetworkRetries;
        if (!again) throw err;
        await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
      }
    }
  }

  private async once(method: string, path: string, body: unknown, key: string | undefined, operation: string): Promise<unknown> {
    const unsafe = method !== 'GET';
    let res: Response;
    try {
      res = await fetch(`${this.opts.apiBaseUrl}/v2/${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.opts.apiKey}`,
          accept: 'application/hal+json',
          'user-agent': 'paymesh',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(key ? { 'idempotency-key': key } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (err) {
      const code = causeCode(err);
      // Nothing reached the provider: safe to retry. Otherwise a write may have happened.
      if (!unsafe || (code !== undefined && NOT_SENT.has(code))) {
        throw new ProviderError('retryable', `provider_b ${operation}: provider unreachable (${code ?? 'network error'})`, { cause: err });
      }
      throw new ProviderError('indeterminate', `provider_b ${operation}: no answer (${code ?? 'timeout'}); the outcome is unknown`, { cause: err });
    }
    const text = await res.text().catch(() => '');
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    // The adapter validates the parts of an answer it relies on.
    if (res.ok) return json ?? null;
    const e = errorBody.safeParse(json).data ?? {};
    const field = e.field ? ` (field ${e.field})` : '';
    const detail = `provider_b ${operation}: ${res.status} ${e.detail ?? e.title ?? 'error'}${field}`;
    if (res.status === 401 || res.status === 403) {
      throw new ProviderError('auth', `provider_b ${operation}: credentials rejected by the provider`);
    }
    if (res.status === 404 || res.status === 410) throw new ProviderError('not_found', detail);
    if (res.status === 409) throw new ProviderError('idempotency', detail);
    if (res.status === 429 || res.status === 503) throw new ProviderError('retryable', detail);
    if (res.status >= 500) throw new ProviderError(unsafe ? 'indeterminate' : 'retryable', detail);
    throw new ProviderError('invalid', detail);
  }
}
