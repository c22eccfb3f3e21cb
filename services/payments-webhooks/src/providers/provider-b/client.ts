import { z } from 'zod';
import { ProviderError } from '../adapter';
import { readJson, sendToProvider, withProviderRetries } from '../provider-http';

/** The provider's error body (`application/hal+json`). */
const errorBody = z
  .object({ title: z.string().optional(), detail: z.string().optional(), field: z.string().optional() })
  .passthrough();

export interface ProviderBClientOptions {
  apiKey: string;
  /** API origin; requests go to `<origin>/v2/…`. */
  apiBaseUrl: string;
  timeoutMs: number;
  /** Retries of retryable and indeterminate failures, always with the same idempotency key. */
  maxNetworkRetries: number;
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

  private request(
    method: string,
    path: string,
    body: unknown,
    key: string | undefined,
    operation: string,
  ): Promise<unknown> {
    return withProviderRetries(this.opts.maxNetworkRetries, () => this.once(method, path, body, key, operation));
  }

  private async once(
    method: string,
    path: string,
    body: unknown,
    key: string | undefined,
    operation: string,
  ): Promise<unknown> {
    const unsafe = method !== 'GET';
    const res = await sendToProvider(
      'provider_b',
      operation,
      `${this.opts.apiBaseUrl}/v2/${path}`,
      {
        method,
        headers: {
          authorization: `Bearer ${this.opts.apiKey}`,
          accept: 'application/hal+json',
          'user-agent': 'paymesh',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(key ? { 'idempotency-key': key } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      },
      unsafe,
      this.opts.timeoutMs,
    );
    const json = await readJson(res);
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
