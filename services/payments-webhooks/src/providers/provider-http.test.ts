import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError, type ProviderErrorKind } from './adapter';
import { readJson, sendToProvider, withProviderRetries } from './provider-http';

describe('provider HTTP failures', () => {
  let silent: Server;
  let silentUrl: string;
  let closedUrl: string;
  beforeAll(async () => {
    // Accepts requests and never answers: the outcome of a write there is unknown.
    silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`;
    const gone = createServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    closedUrl = `http://127.0.0.1:${(gone.address() as AddressInfo).port}/`;
    await new Promise((r) => gone.close(r));
  });
  afterAll(() => {
    silent.closeAllConnections();
    silent.close();
  });

  const kindOf = (p: Promise<unknown>) =>
    p.then(
      () => 'ok',
      (e: unknown) => (e instanceof ProviderError ? e.providerKind : String(e)),
    );

  it('a request that never left is retryable, even a write', async () => {
    expect(await kindOf(sendToProvider('provider_x', 'create', closedUrl, { method: 'POST' }, true, 2_000))).toBe(
      'retryable',
    );
  });

  it('a write without an answer is indeterminate; a read without one is retryable', async () => {
    expect(await kindOf(sendToProvider('provider_x', 'create', silentUrl, { method: 'POST' }, true, 300))).toBe(
      'indeterminate',
    );
    expect(await kindOf(sendToProvider('provider_x', 'fetch', silentUrl, { method: 'GET' }, false, 300))).toBe(
      'retryable',
    );
  });

  /**
   * How often `withProviderRetries(2, …)` calls a provider that always fails with `kind` and
   * `message`, after checking that it gives up with that failure.
   */
  async function callsUntilGivenUp(kind: ProviderErrorKind, message: string): Promise<number> {
    let calls = 0;
    await expect(
      withProviderRetries(2, async () => {
        calls += 1;
        throw new ProviderError(kind, message);
      }),
    ).rejects.toThrow(message);
    return calls;
  }

  it('retries retryable and indeterminate failures only, up to the limit', async () => {
    expect(await callsUntilGivenUp('indeterminate', 'no answer')).toBe(3);
    expect(await callsUntilGivenUp('declined', 'declined')).toBe(1);
  });

  it('reads an empty or malformed body as undefined', async () => {
    expect(await readJson(new Response(''))).toBeUndefined();
    expect(await readJson(new Response('{not json'))).toBeUndefined();
    expect(await readJson(new Response('{"a":1}'))).toEqual({ a: 1 });
  });
});
