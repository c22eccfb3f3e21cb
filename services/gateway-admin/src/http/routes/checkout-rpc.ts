import type { checkoutPayments } from '@paymesh/proto';
import type { ZodType, ZodTypeDef } from 'zod';
import type { AdminDeps } from '../../app/deps';
import type { OrgScope } from '../route-table';
import { callJsonRpc, type JsonCall } from './json-rpc';

type CheckoutJsonMethod = keyof {
  [
    K in keyof checkoutPayments.CheckoutPaymentsServiceClient as checkoutPayments.CheckoutPaymentsServiceClient[K] extends (
      req: checkoutPayments.CheckoutJsonRequest,
      ...rest: never[]
    ) => unknown
      ? K
      : never
  ]: true;
};

/** Calls one of the checkout service's JSON-carrying RPCs (customer holds, risk settings; see callJsonRpc). */
export function checkoutJson<T>(
  deps: AdminDeps,
  org: OrgScope,
  method: CheckoutJsonMethod,
  answer: ZodType<T, ZodTypeDef, unknown>,
  request: JsonCall = {},
): Promise<T> {
  const client = deps.clients.checkoutPayments;
  return callJsonRpc(deps, 'checkout', client, client[method], org, answer, request);
}
