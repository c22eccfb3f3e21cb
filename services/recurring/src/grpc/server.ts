import { recurring } from '@paymesh/proto';
import { unary, type GrpcServer } from '@paymesh/grpc';
import type { Logger } from '@paymesh/core';

const SERVICE_VERSION = '0.1.0';

export function registerRecurringService(grpc: GrpcServer, logger: Logger): void {
  const impl: recurring.RecurringServiceServer = {
    describe: unary(logger, 'recurring/Describe', async () => ({ service: 'recurring', version: SERVICE_VERSION })),
  };
  grpc.addService(recurring.RecurringServiceService, impl);
}
