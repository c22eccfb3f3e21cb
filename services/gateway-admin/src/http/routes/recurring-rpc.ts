import { recurringRpc } from '@paymesh/contracts';
import { jsonRpc, type JsonCall } from './json-rpc';

/** Calls one of the recurring service's JSON RPCs (`recurringRpc`: schedules, the due processor, portal counts). */
export const recurringJson: JsonCall<typeof recurringRpc> = jsonRpc('recurring', (c) => c.recurring, recurringRpc);
