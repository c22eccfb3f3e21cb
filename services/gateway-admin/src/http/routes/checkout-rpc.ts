import { checkoutRpc } from '@paymesh/contracts';
import type { z } from 'zod';
import type { AdminDeps } from '../../app/deps';
import type { OrgScope } from '../route-table';
import { callJson, type EnvelopeArgs } from './json-rpc';

type CheckoutRpc = typeof checkoutRpc;

/** Calls one of the checkout service's JSON RPCs (`checkoutRpc`: customer holds, risk settings, dashboard). */
export function checkoutJson<K extends keyof CheckoutRpc & string>(
  deps: AdminDeps,
  org: OrgScope,
  method: K,
  args: EnvelopeArgs<CheckoutRpc[K]>,
): Promise<z.output<CheckoutRpc[K]['answer']>> {
  return callJson(deps, 'checkout', deps.clients.checkoutPayments, checkoutRpc, org, method, args);
}
