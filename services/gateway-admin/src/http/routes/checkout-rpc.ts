import { checkoutRpc } from '@paymesh/contracts';
import { jsonRpc, type JsonCall } from './json-rpc';

/** Calls one of the checkout service's JSON RPCs (`checkoutRpc`: customer holds, risk settings, dashboard). */
export const checkoutJson: JsonCall<typeof checkoutRpc> = jsonRpc('checkout', (c) => c.checkoutPayments, checkoutRpc);
