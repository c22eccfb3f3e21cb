import { z } from 'zod';
import { ProviderError } from '../adapter';
import { ProviderJsonClient, type ErrorAnswer, type JsonClientOptions } from '../json-client';
import { readJson } from '../provider-http';

/** The provider's error body: `{name, message, details: [{issue, field}]}`. */
const errorBody = z
  .object({
    name: z.string().optional(),
    message: z.string().optional(),
    details: z.array(z.object({ issue: z.string().optional(), field: z.string().optional() }).passthrough()).optional(),
  })
  .passthrough();
const tokenBody = z.object({ access_token: z.string().min(1), expires_in: z.number().int().positive() }).passthrough();

/** `maxNetworkRetries` retries always with the same `PayPal-Request-Id`. */
export interface ProviderDClientOptions extends JsonClientOptions {
  clientId: string;
  clientSecret: string;
  /** API origin; requests go to `<origin>/v1/…` and `<origin>/v2/…`. */
  apiBaseUrl: string;
}

/** Issues that mean "the same request id or invoice was used for other parameters". */
const IDEMPOTENCY_ISSUES = new Set(['PAYPAL_REQUEST_ID_PREVIOUSLY_USED', 'DUPLICATE_INVOICE_ID']);

/**
 * A small typed client of the provider's REST API with an OAuth client-credentials token.
 * NOTE: the official SDK (`@paypal/paypal-server-sdk`) only knows the provider's two fixed hosts
 * (no custom base URL, so it cannot reach the sandbox) and has no webhook-verification or dispute
 * calls (docs/providers.md, "provider_d").
 */
export class ProviderDClient extends ProviderJsonClient {
  protected readonly idempotencyHeader = 'paypal-request-id';
  protected override readonly notFound: readonly number[] = [404];
  protected override readonly trailingHeaders = { prefer: 'return=representation' };
  private token: { value: string; expiresAt: number } | null = null;

  constructor(private readonly opts: ProviderDClientOptions) {
    super('provider_d', opts);
  }

  delete(path: string, operation: string): Promise<unknown> {
    return this.request({ method: 'DELETE', path, operation });
  }

  protected url(path: string): string {
    return `${this.opts.apiBaseUrl}${path}`;
  }

  protected async leadingHeaders(operation: string): Promise<Record<string, string>> {
    return { authorization: `Bearer ${await this.accessToken(operation)}`, accept: 'application/json' };
  }

  protected errorAnswer(status: number, json: unknown, operation: string): ErrorAnswer {
    const e = errorBody.safeParse(json).data ?? {};
    const issue = e.details?.[0]?.issue;
    const detail = `provider_d ${operation}: ${status} ${issue ?? e.name ?? 'error'}${e.message ? ` (${e.message})` : ''}`;
    if (status === 401 || status === 403) this.token = null;
    if (issue !== undefined && IDEMPOTENCY_ISSUES.has(issue))
      return { detail, error: new ProviderError('idempotency', detail) };
    if (issue === 'INSTRUMENT_DECLINED' || issue === 'PAYER_ACTION_REQUIRED')
      return { detail, error: new ProviderError('declined', detail) };
    return { detail };
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
}

/** The issue code of a ProviderError's message (`… 422 ORDER_ALREADY_CAPTURED …`), if any. */
export function issueOf(err: unknown): string | undefined {
  return err instanceof ProviderError ? /\b\d{3} ([A-Z_]+)\b/.exec(err.message)?.[1] : undefined;
}
