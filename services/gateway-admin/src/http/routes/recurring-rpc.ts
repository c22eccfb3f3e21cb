import { recurringRpc } from '@paymesh/contracts';
import { forwarders, jsonRpc, type Forwarders, type JsonCall } from './json-rpc';

/** Calls one of the recurring service's JSON RPCs (`recurringRpc`: schedules, the due processor, portal counts). */
export const recurringJson: JsonCall<typeof recurringRpc> = jsonRpc('recurring', (c) => c.recurring, recurringRpc);

/** Handlers of rows that hand their input to one of the recurring service's JSON RPCs as it is. */
export const toRecurring: Forwarders<typeof recurringRpc> = forwarders(recurringJson);
