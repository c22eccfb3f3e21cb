import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { letTimePass } from '../../../test/support/kit';
import { createLogger, currentRequestId, NotFoundError, runWithContext } from '@paymesh/core';
import { recurring } from '@paymesh/proto';
import { call, checkHealth, GrpcServer, grpcStats, makeClient, unary } from '../src';

describe('gRPC helpers over a real server', () => {
  const logger = createLogger({ service: 'grpc-test', level: 'silent' });
  const seen: (string | undefined)[] = [];
  let mode: 'ok' | 'missing' | 'slow' = 'ok';
  const server = new GrpcServer(logger, 'recurring');
  let addr = '';

  beforeAll(async () => {
    const impl: Pick<recurring.RecurringServiceServer, 'describe'> = {
      describe: unary(logger, 'recurring/Describe', async () => {
        seen.push(currentRequestId());
        if (mode === 'missing') throw new NotFoundError('nothing here');
        // A handler slower than the caller's deadline: the deadline is what the test is about.
        if (mode === 'slow') await letTimePass(500, 'a handler slower than the deadline');
        return { service: 'recurring', version: '1' };
      }),
    };
    server.addService({ describe: recurring.RecurringServiceService.describe }, impl);
    const port = await server.listen('127.0.0.1:0');
    addr = `127.0.0.1:${port}`;
  });
  afterAll(() => server.shutdown(100));

  it('serves standard health and reports NOT_SERVING after shutdown starts', async () => {
    expect(await checkHealth(addr)).toBe(true);
    server.setStatus('NOT_SERVING');
    expect(await checkHealth(addr)).toBe(false);
    server.setStatus('SERVING');
    expect(await checkHealth('127.0.0.1:1', 300)).toBe(false);
  });

  it('counts calls made and served per method, failed ones too, and health checks not at all', async () => {
    const client = makeClient(recurring.RecurringServiceClient, addr);
    const path = '/recurring.v1.RecurringService/Describe';
    try {
      const before = grpcStats();
      mode = 'ok';
      await call(client, client.describe, {}, { deadlineMs: 2000, target: 'billing' });
      mode = 'missing';
      await call(client, client.describe, {}, { deadlineMs: 2000, target: 'billing' }).catch(() => undefined);
      expect(await checkHealth(addr)).toBe(true);
      const after = grpcStats();
      // Client and server share this process: each call is made once and served once.
      expect(after.callsMade - before.callsMade).toBe(2);
      expect(after.callsServed - before.callsServed).toBe(2);
      expect(after.callsInFlight).toBe(0);
      expect((after.byMethod[path]?.made ?? 0) - (before.byMethod[path]?.made ?? 0)).toBe(2);
      expect((after.byMethod[path]?.served ?? 0) - (before.byMethod[path]?.served ?? 0)).toBe(2);
      expect(Object.keys(after.byMethod).filter((p) => p.includes('Health'))).toEqual([]);

      mode = 'slow';
      const pending = call(client, client.describe, {}, { deadlineMs: 2000, target: 'billing' });
      expect(grpcStats().callsInFlight).toBe(1);
      await pending;
      expect(grpcStats().callsInFlight).toBe(0);
    } finally {
      client.close();
    }
  });

  it('propagates the request ID and maps domain errors back', async () => {
    const client = makeClient(recurring.RecurringServiceClient, addr);
    try {
      mode = 'ok';
      const res = await runWithContext({ requestId: 'grpc-req-0001' }, () =>
        call(client, client.describe, {}, { deadlineMs: 2000, target: 'billing' }),
      );
      expect(res.service).toBe('recurring');
      expect(seen.at(-1)).toBe('grpc-req-0001');
      mode = 'missing';
      await expect(call(client, client.describe, {}, { deadlineMs: 2000, target: 'billing' })).rejects.toMatchObject({
        kind: 'not_found',
        message: 'nothing here',
      });
      mode = 'slow';
      await expect(call(client, client.describe, {}, { deadlineMs: 100, target: 'billing' })).rejects.toMatchObject({
        kind: 'unavailable',
      });
    } finally {
      client.close();
    }
  });
});
