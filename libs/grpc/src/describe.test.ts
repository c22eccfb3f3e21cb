import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@paymesh/core';
import { recurring } from '@paymesh/proto';
import { call, makeClient } from './client';
import { describeMethod } from './describe';
import { GrpcServer } from './server';

describe('describeMethod', () => {
  const logger = createLogger({ service: 'describe-test', level: 'silent' });
  const server = new GrpcServer(logger, 'recurring');
  let addr = '';

  beforeAll(async () => {
    const impl: Pick<recurring.RecurringServiceServer, 'describe'> = {
      describe: describeMethod(logger, 'recurring', '7.1.0'),
    };
    server.addService({ describe: recurring.RecurringServiceService.describe }, impl);
    addr = `127.0.0.1:${await server.listen('127.0.0.1:0')}`;
  });
  afterAll(() => server.shutdown(100));

  it('answers the service name and version', async () => {
    const client = makeClient(recurring.RecurringServiceClient, addr);
    try {
      expect(await call(client, client.describe, {}, { deadlineMs: 2000, target: 'recurring' })).toEqual({
        service: 'recurring',
        version: '7.1.0',
      });
    } finally {
      client.close();
    }
  });
});
