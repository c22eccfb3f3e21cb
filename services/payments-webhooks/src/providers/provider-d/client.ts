import { z } from 'zod';
import { ProviderError } from '../adapter';
import { readJson, sendToProvider, withProviderRetries } from '../provider-http';

/** The provider's error body: `{name, message, details: [{issue, field}]}`. */
const errorBody = z
  .object({
    name: z.string().optional(),
    message: z.string().optional(),
    details: z.array(z.object({ issue: z.string().optional(), field: z.string().optional() }).passthrough()).optional(),
  })
  .passthrough();
const tokenBody = z.object({ access_token: z.string().min(1), expires_in: z.number().int().positive() }).passthrough();

export interface ProviderDClientOptions {
  clientId: string;
  clientSecret: string;
  /** API origin; requests go to `<origin>/v1/…` and `<origin>/v2/…`. */
  apiBaseUrl: string;
  timeoutMs: number;
  /** Retries of retryable and indeterminate failures, always with the same `PayPal-Request-Id`. */
  maxNetworkRetries: number;
}

/** Issues that mean "the same request id or invoice was used for other parameters". */
const IDEMPOTENCY_ISSUES = new Set(['PAYPAL_REQUEST_ID_PREVIOUSLY_USED', 'DUPLICATE_INVOICE_ID']);

/**
 * A small typed client of the provider's REST API with an OAuth client-credentials token.
 * NOTE: the official SDK (`@paypal/paypal-server-sdk`) only knows the provider's two fixed hosts
 * (no custom base URL, so it cannot reach the sandbox) and has no webhook-verification or dispute
 * calls (docs/providers.md, "provider_d").
 */
export class ProviderDClient {
  private token: { value: string; expiresAt: number } | null = null;

  constructor(private readonly opts: ProviderDClientOptions) {}

  get(path: string, operation: string): Promise<unknown> {
    return this.request('GET', path, undefined, undefined, operation);
  }

  post(path: string, body: unknown, requestId: string | undefined, operation: string): Promise<unknown> {
    return this.request('POST', path, body, requestId, operation);
  }

  delete(path: string, operation: string): Promise<unknown> {
    return this.request('DELETE', path, undefined, undefined, operation);
  }

  private request(
    method: string,
    path: string,
    body: unknown,
    requestId: string | undefined,
    operation: string,
  ): Promise<unknown> {
    return withProviderRetries(this.opts.maxNetworkRetries, () => this.once(method, path, body, requestId, operation));
  }

  private async accessToken(operation: string): Promise<string> {
    if (this.token && this.token.expiresAt > Date.now() + 60_000) return this.token.value;
    const basic = Buffer.from(`${this.opts.clientId}:${this.opts.clientSecret}`).toString('base64');
    const res = await this.send(
      `${this.opts.apiBaseUrl}/v1/oauth2/token`,
      {
        method: 'POST',
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: 'grant_type=client_credentials',
      },
      false,
      operation,
    );
    const json = await readJson(res);
    if (res.status === 400 || res.status === 401 || res.status === 403)
      throw new ProviderError('auth', `provider_d ${operation}: credentials rejected by the provider`);
    if (!res.ok)
      throw new ProviderError(
        res.status === 429 || res.status >= 500 ? 'retryable' : 'invalid',
        `provider_d ${operation}: token request answered ${res.status}`,
      );
    const t = tokenBody.safeParse(json);
    if (!t.success) throw new ProviderError('invalid', `provider_d ${operation}: the token answer is not readable`);
    this.token = { value: t.data.access_token, expiresAt: Date.now() + t.data.expires_in * 1000 };
    return t.data.access_token;
  }

  private send(url: string, init: RequestInit, unsafe: boolean, operation: string): Promise<Response> {
    return sendToProvider('provider_d', operation, url, init, unsafe, this.opts.timeoutMs);
  }

  private async once(
    method: string,
    path: string,
    body: unknown,
    requestId: string | undefined,
    operation: string,
  ): Promise<unknown> {
    const unsafe = method !== 'GET';
    const token = await this.accessToken(operation);
    const res = await this.send(
      `${this.opts.apiBaseUrl}${path}`,
      {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          'user-agent': 'paymesh',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(requestId ? { 'paypal-request-id': requestId } : {}),
          prefer: 'return=representation',
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      },
      unsafe,
      operation,
    );
    const json = await readJson(res);
    // The adapter validates the parts of an answer it relies on.
    if (res.ok) return json ?? null;
    const e = errorBody.safeParse(json).data ?? {};
    const issue = e.details?.[0]?.issue;
    const detail = `provider_d ${operation}: ${res.status} ${issue ?? e.name ?? 'error'}${e.message ? ` (${e.message})` : ''}`;
    if (res.status === 401 || res.status === 403) {
      this.token = null;
      throw new ProviderError('auth', `provider_d ${operation}: credentials rejected by the provider`);
    }
    if (res.status === 404) throw new ProviderError('not_found', detail);
    if (issue !== undefined && IDEMPOTENCY_ISSUES.has(issue)) throw new ProviderError('idempotency', detail);
    if (issue === 'INSTRUMENT_DECLINED' || issue === 'PAYER_ACTION_REQUIRED')
      throw new ProviderError('declined', detail);
    if (res.status === 429 || res.status === 503) throw new ProviderError('retryable', detail);
    if (res.status >= 500) throw new ProviderError(unsafe ? 'indeterminate' : 'retryable', detail);
    throw new ProviderError('invalid', detail);
  }
}

/** The issue code of a ProviderError's message (`… 422 ORDER_ALREADY_CAPTURED …`), if any. */
export function issueOf(err: unknown): string | undefined {
  return err instanceof ProviderError ? /\b\d{3} ([A-Z_]+)\b/.exec(err.message)?.[1] : undefined;
}
