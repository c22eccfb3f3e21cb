import { checkoutPayments } from '@paymesh/proto';
import { call, makeClient } from '@paymesh/grpc';
import type { Client } from '@grpc/grpc-js';
import { downstreamAddr, type DownstreamAddrs } from '@paymesh/runtime';

/** gRPC clients of the backend services the Main Backend routes to. */
export interface PublicClients {
  checkoutPayments: checkoutPayments.CheckoutPaymentsServiceClient;
  /** Default deadline, and the longer one of calls that reach a payment provider. */
  deadlineMs: number;
  paymentDeadlineMs: number;
  close(): void;
}

export function createPublicClients(config: DownstreamAddrs & { GRPC_DEADLINE_MS: number; PAYMENT_CALL_DEADLINE_MS: number }): PublicClients {
  const checkout = makeClient(checkoutPayments.CheckoutPaymentsServiceClient, downstreamAddr(config, 'checkout'));
  return {
    checkoutPayments: checkout,
    deadlineMs: config.GRPC_DEADLINE_MS,
    paymentDeadlineMs: config.PAYMENT_CALL_DEADLINE_MS,
    close() {
      checkout.close();
    },
  };
}

/** Calls a backend RPC with the request's context and a deadline. */
export function rpc<Req, Res>(client: Client, method: Parameters<typeof call<Req, Res>>[1], req: Req, deadlineMs: number, target = 'checkout'): Promise<Res> {
  return call(client, method, req, { deadlineMs, target });
}
