import { billing } from '@paymesh/proto';
import { unary, type GrpcServer } from '@paymesh/grpc';
import type { Logger } from '@paymesh/core';

const SERVICE_VERSION = '0.1.0';

export function registerBillingService(grpc: GrpcServer, logger: Logger): void {
  const impl: billing.BillingServiceServer = {
    describe: unary(logger, 'billing/Describe', async () => ({ service: 'billing', version: SERVICE_VERSION })),
  };
  grpc.addService(billing.BillingServiceService, impl);
}
