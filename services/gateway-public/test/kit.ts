import type { ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import { ValidationError, type Logger } from '@paymesh/core';
import { GrpcServer, unary } from '@paymesh/grpc';
import type { DownstreamAddrs } from '@paymesh/runtime';
import { createClients, type Clients } from '../src/clients';

/** Nothing listens there: an RPC to a backend a test does not stand in for fails. */
const NOWHERE = '127.0.0.1:1';

/** The gateway's clients with 3 s deadlines: every backend at NOWHERE except those in `addrs`. */
export function testClients(addrs: Partial<DownstreamAddrs> = {}): Clients {
  return createClients({
    CHECKOUT_GRPC_ADDR: NOWHERE,
    PAYMENTS_WEBHOOKS_GRPC_ADDR: NOWHERE,
    BILLING_GRPC_ADDR: NOWHERE,
    TAX_GRPC_ADDR: NOWHERE,
    RECURRING_GRPC_ADDR: NOWHERE,
    DOCUMENTS_GRPC_ADDR: NOWHERE,
    NOTIFICATIONS_IPN_GRPC_ADDR: NOWHERE,
    ...addrs,
    GRPC_DEADLINE_MS: 3000,
    PAYMENT_CALL_DEADLINE_MS: 3000,
    TAX_CALL_DEADLINE_MS: 3000,
  });
}

/**
 * A stand-in backend on a free loopback port: the RPCs of `impl`, every other RPC of the service
 * refused with a validation error ("not used"). `addr` is where the gateway's client reaches it.
 */
export async function standIn(
  logger: Logger,
  name: string,
  service: ServiceDefinition,
  impl: UntypedServiceImplementation,
): Promise<{ grpc: GrpcServer; addr: string }> {
  const grpc = new GrpcServer(logger, name);
  const notUsed = unary(logger, 'x', async (): Promise<never> => {
    throw new ValidationError('not used');
  });
  grpc.addService<UntypedServiceImplementation>(service, {
    ...Object.fromEntries(Object.keys(service).map((rpc) => [rpc, notUsed])),
    ...impl,
  });
  return { grpc, addr: `127.0.0.1:${await grpc.listen('127.0.0.1:0')}` };
}
