import { paymentsWebhooks } from '@paymesh/proto';
import { unary, type GrpcServer } from '@paymesh/grpc';
import type { Logger } from '@paymesh/core';

const SERVICE_VERSION = '0.1.0';

export function registerPaymentsWebhooksService(grpc: GrpcServer, logger: Logger): void {
  const impl: paymentsWebhooks.PaymentsWebhooksServiceServer = {
    describe: unary(logger, 'payments-webhooks/Describe', async () => ({ service: 'payments-webhooks', version: SERVICE_VERSION })),
  };
  grpc.addService(paymentsWebhooks.PaymentsWebhooksServiceService, impl);
}
