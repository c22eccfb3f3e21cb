import { taxRpc } from '@paymesh/contracts';
import { jsonRpc, type JsonCall } from './json-rpc';

/** Calls one of the tax service's JSON RPCs (`taxRpc`). */
export const taxJson: JsonCall<typeof taxRpc> = jsonRpc('tax', (c) => c.tax, taxRpc);
