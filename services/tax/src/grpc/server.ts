import { tax } from '@paymesh/proto';
import { unary, type GrpcServer } from '@paymesh/grpc';
import type { Logger } from '@paymesh/core';

const SERVICE_VERSION = '0.1.0';

export function registerTaxService(grpc: GrpcServer, logger: Logger): void {
  const impl: tax.TaxServiceServer = {
    describe: unary(logger, 'tax/Describe', async () => ({ service: 'tax', version: SERVICE_VERSION })),
  };
  grpc.addService(tax.TaxServiceService, impl);
}
