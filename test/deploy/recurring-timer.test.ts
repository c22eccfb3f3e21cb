import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recurringIntervalMs, startRecurringTimer } from '../../deploy/local/recurring-timer.mjs';
import { eventually } from '../support/mesh';

/** The local run's recurring timer against a real HTTP server standing in for gateway-admin. */
describe('local recurring processor timer', () => {
  const calls: { method: string; url: string; auth: string | undefined }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    calls.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization });
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end('{"processed":0,"completed":0,"failed":0,"skipped":0,"cancellationsFinalized":0}');
  });
  let base: string;
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('reads RECURRING_PROCESS_INTERVAL_MS (default 15 minutes, 0 = off) and refuses junk', () => {
    expect(recurringIntervalMs({})).toBe(900_000);
    expect(recurringIntervalMs({ RECURRING_PROCESS_INTERVAL_MS: '0' })).toBe(0);
    expect(recurringIntervalMs({ RECURRING_PROCESS_INTERVAL_MS: '60000' })).toBe(60_000);
    expect(() => recurringIntervalMs({ RECURRING_PROCESS_INTERVAL_MS: '-1' })).toThrow();
    expect(() => recurringIntervalMs({ RECURRING_PROCESS_INTERVAL_MS: 'soon' })).toThrow();
  });

  it('posts to the process route with the system key, repeatedly, until stopped', async () => {
    const stop = startRecurringTimer({
      adminBaseUrl: base,
      systemApiKey: 'sk_test_key',
      intervalMs: 20,
      log: () => undefined,
    });
    await eventually(() => calls.length >= 2, 5_000, 10);
    stop();
    expect(calls[0]).toEqual({ method: 'POST', url: '/api/v1/system/recurring/process', auth: 'Bearer sk_test_key' });
    const off = startRecurringTimer({ adminBaseUrl: base, systemApiKey: 'k', intervalMs: 0, log: () => undefined });
    off();
  });
});
