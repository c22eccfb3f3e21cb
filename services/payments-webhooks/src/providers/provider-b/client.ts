import { z } from 'zod';
import { ProviderError } from '../adapter';
import { ProviderJsonClient, type ErrorAnswer, type JsonClientOptions } from '../json-client';

/** The provider's error body (`application/hal+json`). */
const errorBody = z
  .object({ title: z.string().optional(), detail: z.string().optional(), field: z.string().optional() })
  .passthrough();

export interface ProviderBClientOptions extends JsonClientOptions {
  apiKey: string;
  /** API origin; requests go to `<origin>/v2/…`. */
  apiBaseUrl: string;
}

/**
 * A small JSON client of the provider's v2 API. NOTE: the official SDK (`@mollie/api-client`)
 * takes a custom `apiEndpoint` but always sends through an https agent pinned to its own CA
 * bundle, so it cannot reach an http sandbox or a private CA; its types describe the bodies here.
 */
export class ProviderBClient extends ProviderJsonClient {
  protected readonly idempotencyHeader = 'idempotency-key';

  constructor(private readonly opts: ProviderBClientOptions) {
    super('provider_b', opts);
  }

  delete(path: string, idempotencyKey: string, operation: string): Promise<unknown> {
    return this.request({ method: 'DELETE', path, key: idempotencyKey, operation });
  }

  protected url(path: string): string {
    return `${this.opts.apiBaseUrl}/v2/${path}`;
  }

  protected leadingHeaders(): Record<string, string> {
    return { authorization: `Bearer ${this.opts.apiKey}`, accept: 'application/hal+json' };
  }

  protected errorAnswer(status: number, json: unknown, operation: string): ErrorAnswer {
    const e = errorBody.safeParse(json).data ?? {};
    const field = e.field ? ` (field ${e.field})` : '';
    const detail = `provider_b ${operation}: ${status} ${e.detail ?? e.title ?? 'error'}${field}`;
    return { detail, error: status === 409 ? new ProviderError('idempotency', detail) : undefined };
  }
}
