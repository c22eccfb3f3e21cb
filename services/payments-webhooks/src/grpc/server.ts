import { paymentsWebhooks } from '@paymesh/proto';
import { unary, type GrpcServer } from '@paymesh/grpc';
import { NotSupportedError, type Logger } from '@paymesh/core';

const SERVICE_VERSION = '0.1.0';

// NOTE: RPCs declared in the contract but not built yet answer UNIMPLEMENTED (a typed NotSupported), never an empty success.
function notYetFactory(logger: Logger) {
  return (name: string) =>
    unary(logger, `payments-webhooks/${name}`, async (): Promise<never> => {
      throw new NotSupportedError(`${name} is not available yet`);
    });
}

export function registerPaymentsWebhooksService(grpc: GrpcServer, logger: Logger): void {
  const notYet = notYetFactory(logger);
  const impl: paymentsWebhooks.PaymentsWebhooksServiceServer = {
    describe: unary(logger, 'payments-webhooks/Describe', async () => ({ service: 'payments-webhooks', version: SERVICE_VERSION })),
    createProvider: notYet('CreateProvider'),
    getProvider: notYet('GetProvider'),
    listProviders: notYet('ListProviders'),
    deleteProvider: notYet('DeleteProvider'),
    toggleProvider: notYet('ToggleProvider'),
    createPayment: notYet('CreatePayment'),
    cancelPayment: notYet('CancelPayment'),
    handleWebhook: notYet('HandleWebhook'),
  };
  grpc.addService(paymentsWebhooks.PaymentsWebhooksServiceService, impl);
}
