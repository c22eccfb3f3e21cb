import { ProviderError } from './adapter';
import { readJson, sendToProvider, withProviderRetries } from './provider-http';

/** The transport settings every provider client takes from its record and the service configuration. */
export interface JsonClientOptions {
  timeoutMs: number;
  /** Retries of retryable and indeterminate failures, always with the same idempotency key. */
  maxNetworkRetries: number;
}

/**
 * An error answer as the provider words it: the detail for the error message, and the provider's
 * own classification where its body says more than the status (checked after 401/403 and not-found).
 */
export interface ErrorAnswer {
  detail: string;
  error?: ProviderError | undefined;
}

/** One request: `body` is sent as JSON, `key` is the idempotency key (the same on every retry). */
export interface ProviderCall {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  key?: string | undefined;
  operation: string;
}

/**
 * The small JSON clients of the providers' APIs: a provider names where a path goes, the headers
 * that come first (credentials, accept, API version), the header that carries the idempotency key
 * and how to read its error bodies; the request itself, the retries with the same key and what an
 * answer's status means are the same for all.
 */
export abstract class ProviderJsonClient {
  protected abstract readonly idempotencyHeader: string;
  /** Answers that mean the resource is not there. */
  protected readonly notFound: readonly number[] = [404, 410];
  /** Headers sent after the others on every request. */
  protected readonly trailingHeaders: Readonly<Record<string, string>> = {};

  protected constructor(
    protected readonly provider: string,
    private readonly transport: JsonClientOptions,
  ) {}

  get(path: string, operation: string): Promise<unknown> {
    return this.request({ method: 'GET', path, operation });
  }

  post(path: string, body: unknown, key: string | undefined, operation: string): Promise<unknown> {
    return this.request({ method: 'POST', path, body, key, operation });
  }

  protected abstract url(path: string): string;
  protected abstract leadingHeaders(operation: string): Promise<Record<string, string>> | Record<string, string>;
  protected abstract errorAnswer(status: number, json: unknown, operation: string): ErrorAnswer;

  protected request(call: ProviderCall): Promise<unknown> {
    return withProviderRetries(this.transport.maxNetworkRetries, () => this.once(call));
  }

  protected send(url: string, init: RequestInit, unsafe: boolean, operation: string): Promise<Response> {
    return sendToProvider(this.provider, operation, url, init, unsafe, this.transport.timeoutMs);
  }

  private async once({ method, path, body, key, operation }: ProviderCall): Promise<unknown> {
    const unsafe = method !== 'GET';
    const leading = await this.leadingHeaders(operation);
    const res = await this.send(
      this.url(path),
      {
        method,
        headers: {
          ...leading,
          'user-agent': 'paymesh',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(key ? { [this.idempotencyHeader]: key } : {}),
          ...this.trailingHeaders,
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      },
      unsafe,
      operation,
    );
    const json = await readJson(res);
    // The adapter validates the parts of an answer it relies on.
    if (res.ok) return json ?? null;
    const answer = this.errorAnswer(res.status, json, operation);
    if (res.status === 401 || res.status === 403)
      throw new ProviderError('auth', `${this.provider} ${operation}: credentials rejected by the provider`);
    if (this.notFound.includes(res.status)) throw new ProviderError('not_found', answer.detail);
    if (answer.error) throw answer.error;
    if (res.status === 429 || res.status === 503) throw new ProviderError('retryable', answer.detail);
    if (res.status >= 500) throw new ProviderError(unsafe ? 'indeterminate' : 'retryable', answer.detail);
    throw new ProviderError('invalid', answer.detail);
  }
}
