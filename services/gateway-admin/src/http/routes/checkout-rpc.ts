import { checkoutRpc } from '@paymesh/contracts';
import { forwarders, jsonRpc, type Forwarders, type JsonCall } from './json-rpc';

/** Calls one of the checkout service's JSON RPCs (`checkoutRpc`: customer holds, risk settings, dashboard). */
export const checkoutJson: JsonCall<typeof checkoutRpc> = jsonRpc('checkout', (c) => c.checkoutPayments, checkoutRpc);

/** Handlers of rows that hand their input to one of the checkout service's JSON RPCs as it is. */
export const toCheckout: Forwarders<typeof checkoutRpc> = forwarders(checkoutJson);
