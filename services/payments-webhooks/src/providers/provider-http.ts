import { ProviderError } from './adapter';

/**
 * What the small HTTP clients of the providers share: sending a request with a deadline, telling a
 * request that never left (safe to retry) from one whose outcome is unknown, retrying with the same
 * idempotency key, and reading a JSON answer that may be empty or malformed.
 */

/** Failures that happen before a request leaves this process (fetch refuses blocked ports outright). */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'bad port']);

function causeCode(err: unknown): string | undefined {
  const cause: unknown = err instanceof Error ? err.cause : undefined;
  if (!(cause instanceof Error)) return undefined;
  return 'code' in cause && typeof cause.code === 'string'
    ? cause.code
    : cause.message === 'bad port'
      ? 'bad port'
      : undefined;
}

/**
 * `fetch` with a deadline. A network failure is `retryable` when nothing reached the provider or
 * the request changes nothing (`unsafe` false); otherwise `indeterminate`: a write may have happened.
 */
export async function sendToProvider(
  provider: string,
  operation: string,
  url: string,
  init: RequestInit,
  unsafe: boolean,
  timeoutMs: number,
): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const code = causeCode(err);
    if (!unsafe || (code !== undefined && NOT_SENT.has(code))) {
      throw new ProviderError(
        'retryable',
        `${provider} ${operation}: provider unreachable (${code ?? 'network error'})`,
        { cause: err },
      );
    }
    throw new ProviderError(
      'indeterminate',
      `${provider} ${operation}: no answer (${code ?? 'timeout'}); the outcome is unknown`,
      { cause: err },
    );
  }
}

/** Runs `once` again after retryable and indeterminate failures (same request, same idempotency key), backing off. */
export async function withProviderRetries<T>(maxRetries: number, once: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await once();
    } catch (err) {
      const again =
        err instanceof ProviderError &&
        (err.providerKind === 'retryable' || err.providerKind === 'indeterminate') &&
        attempt < maxRetries;
      if (!again) throw err;
      await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
    }
  }
}

/** The JSON body of an answer; undefined when it is empty or not JSON (the caller validates what it uses). */
export async function readJson(res: Response): Promise<unknown> {
  const text = await res.text().catch(() => '');
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
