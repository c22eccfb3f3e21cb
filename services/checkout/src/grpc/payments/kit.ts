import type { UnaryHandler } from '@paymesh/grpc';
import { envelopeServer, unary, type EnvelopeServer } from '@paymesh/grpc';
import { checkoutRpc } from '@paymesh/contracts';
import type { Logger } from '@paymesh/core';

/** What every handler file of the checkout payments service registers its RPCs with. */
export interface PaymentsRpcKit {
  /** A proto-typed unary handler, logged and mapped to gRPC status codes as `checkout/<name>`. */
  rpc<Req, Res>(name: string, fn: UnaryHandler<Req, Res>): ReturnType<typeof unary<Req, Res>>;
  /** A handler of the JSON envelope, typed and decoded by the checkout RPC map. */
  json: EnvelopeServer<typeof checkoutRpc, Record<never, never>>['json'];
}

export function paymentsRpcKit(logger: Logger): PaymentsRpcKit {
  return {
    rpc: (name, fn) => unary(logger, `checkout/${name}`, fn),
    json: envelopeServer(logger, 'checkout', checkoutRpc, {}).json,
  };
}

/**
 * A string field as the use cases take it: absent (an `optional` field not sent, or an empty
 * string, which is how a field without presence says "not given") is undefined.
 */
export const opt = (v: string | undefined): string | undefined => v || undefined;
