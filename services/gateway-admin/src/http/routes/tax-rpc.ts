import { taxRpc } from '@paymesh/contracts';
import { forwarders, jsonRpc, type Forwarders, type JsonCall } from './json-rpc';

/** Calls one of the tax service's JSON RPCs (`taxRpc`). */
export const taxJson: JsonCall<typeof taxRpc> = jsonRpc('tax', (c) => c.tax, taxRpc);

/** Handlers of rows that hand their input to one of the tax service's JSON RPCs as it is. */
export const toTax: Forwarders<typeof taxRpc> = forwarders(taxJson);
