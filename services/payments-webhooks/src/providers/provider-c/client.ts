import { z } from 'zod';
import { ProviderError } from '../adapter';
import { readJson, sendToProvider, withProviderRetries } from '../provider-http';

/** The provider's error body: `{error: {message, type, code, errors: [{reason, message, field?, links?}]}}`. */
const errorBody = z
  .object({
    error: z
      .object({
        message: z.string().optional(),
        type: z.string().optional(),
        errors: z
          .array(
            z
              .object({
                reason: z.string().optional(),
                field: z.string().optional(),
                links: z.object({ conflicting_resource_id: z.string().optional() }).passthrough().optional(),
              })
              .passthrough(),
          )
          .optional(),
      })
      .passthrough(),
  })
  .passthrough();

export interface ProviderCClientOptions {
  accessToken: string;
  /** API origin; requests go to `<origin>/<resource>`. */
  apiBaseUrl: string;
  timeoutMs: number;
  /** Retries of retryable and indeterminate failures, always with the same idempotency key. */
  maxNetworkRetries: number;
}

/**
 * An idempotency key the provider has seen before (409 `idempotent_creation_conflict`), naming the
 * resource it created. The provider answers this to any reuse, also of the same request.
 */
export class IdempotentCreationConflict extends ProviderError {
  constructor(
    message: string,
    readonly conflictingResourceId: string | null,
  ) {
    super('idempotency', message);
  }
}

/** The API version the bodies here follow (sent on every request, as the provider requires). */
export const API_VERSION = '2015-07-06';

/**
 * A small JSON client of the provider's API. NOTE: the official SDK (`gocardless-nodejs`) hard-codes
 * its two API hosts (live and sandbox) and takes no base URL, so it cannot reach the local sandbox
 * or a private endpoint (docs/providers.md, "provider_c").
 */
export class ProviderCClient {
  constructor(private readonly opts: ProviderCClientOptions) {}

  get(path: string, operation: string): Promise<unknown> {
    return this.request('GET', path, undefined, undefined, operation);
  }

  post(path: string, body: unknown, idempotencyKey: string, operation: string): Promise<unknown> {
    return this.request('POST', path, body, idempotencyKey, operation);
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
      'provider_c',
      operation,
      `${this.opts.apiBaseUrl}/${path}`,
      {
        method,
        headers: {
          authorization: `Bearer ${this.opts.accessToken}`,
          accept: 'application/json',
          'gocardless-version': API_VERSION,
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
    const e = errorBody.safeParse(json).data?.error;
    const first = e?.errors?.[0];
    const reason = first?.reason ?? '';
    const field = first?.field ? ` (field ${first.field})` : '';
    const detail = `provider_c ${operation}: ${res.status} ${reason || e?.type || 'error'}: ${e?.message ?? ''}${field}`;
    if (res.status === 401 || res.status === 403)
      throw new ProviderError('auth', `provider_c ${operation}: credentials rejected by the provider`);
    if (res.status === 404 || res.status === 410) throw new ProviderError('not_found', detail);
    if (res.status === 409 && reason === 'idempotent_creation_conflict')
      throw new IdempotentCreationConflict(detail, first?.links?.conflicting_resource_id ?? null);
    if (res.status === 429 || res.status === 503) throw new ProviderError('retryable', detail);
    if (res.status >= 500) throw new ProviderError(unsafe ? 'indeterminate' : 'retryable', detail);
    throw new ProviderError('invalid', detail);
  }
}
