import { z } from 'zod';
import { ProviderError } from '../adapter';
import { ProviderJsonClient, type ErrorAnswer, type JsonClientOptions } from '../json-client';

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

export interface ProviderCClientOptions extends JsonClientOptions {
  accessToken: string;
  /** API origin; requests go to `<origin>/<resource>`. */
  apiBaseUrl: string;
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
export class ProviderCClient extends ProviderJsonClient {
  protected readonly idempotencyHeader = 'idempotency-key';

  constructor(private readonly opts: ProviderCClientOptions) {
    super('provider_c', opts);
  }

  protected url(path: string): string {
    return `${this.opts.apiBaseUrl}/${path}`;
  }

  protected leadingHeaders(): Record<string, string> {
    return {
      authorization: `Bearer ${this.opts.accessToken}`,
      accept: 'application/json',
      'gocardless-version': API_VERSION,
    };
  }

  protected errorAnswer(status: number, json: unknown, operation: string): ErrorAnswer {
    const e = errorBody.safeParse(json).data?.error;
    const first = e?.errors?.[0];
    const reason = first?.reason ?? '';
    const field = first?.field ? ` (field ${first.field})` : '';
    const detail = `provider_c ${operation}: ${status} ${reason || e?.type || 'error'}: ${e?.message ?? ''}${field}`;
    if (status === 409 && reason === 'idempotent_creation_conflict')
      return { detail, error: new IdempotentCreationConflict(detail, first?.links?.conflicting_resource_id ?? null) };
    return { detail };
  }
}
