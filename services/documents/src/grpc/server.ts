import { documents } from '@paymesh/proto';
import { unary, type GrpcServer } from '@paymesh/grpc';
import type { Logger } from '@paymesh/core';

const SERVICE_VERSION = '0.1.0';

export function registerDocumentsService(grpc: GrpcServer, logger: Logger): void {
  const impl: documents.DocumentsServiceServer = {
    describe: unary(logger, 'documents/Describe', async () => ({ service: 'documents', version: SERVICE_VERSION })),
  };
  grpc.addService(documents.DocumentsServiceService, impl);
}
