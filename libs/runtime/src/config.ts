import { z } from 'zod';
import { baseConfigSchema, envInt } from '@paymesh/core';
import { BACKEND_SERVICES, grpcAddrEnvName, type BackendService } from './services';

/** Config schema of a backend service: the shared keys plus its gRPC listen address. */
export function backendConfigSchema(service: BackendService) {
  return baseConfigSchema.extend({
    GRPC_HOST: z.string().default('127.0.0.1'),
    GRPC_PORT: envInt(BACKEND_SERVICES[service].grpcPort),
  });
}

const addr = (s: BackendService) => z.string().default(`127.0.0.1:${BACKEND_SERVICES[s].grpcPort}`);

/** gRPC addresses of every backend service (`<SERVICE>_GRPC_ADDR`), for services that call others. */
export const downstreamAddrsSchema = z.object({
  CHECKOUT_GRPC_ADDR: addr('checkout'),
  PAYMENTS_WEBHOOKS_GRPC_ADDR: addr('payments-webhooks'),
  BILLING_GRPC_ADDR: addr('billing'),
  TAX_GRPC_ADDR: addr('tax'),
  RECURRING_GRPC_ADDR: addr('recurring'),
  DOCUMENTS_GRPC_ADDR: addr('documents'),
  NOTIFICATIONS_IPN_GRPC_ADDR: addr('notifications-ipn'),
});
export type DownstreamAddrs = z.infer<typeof downstreamAddrsSchema>;

/** Reads a downstream address from a parsed config that includes {@link downstreamAddrsSchema}. */
export function downstreamAddr(config: DownstreamAddrs, service: BackendService): string {
  const key = grpcAddrEnvName(service) as keyof DownstreamAddrs;
  return config[key];
}
