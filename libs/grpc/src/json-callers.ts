import type { Client } from '@grpc/grpc-js';
import { jsonCaller, type AnswerDef, type JsonCaller, type JsonMethods } from './json';

/**
 * A service's {@link jsonCaller}, made once per set of clients (a gateway's connections and their
 * usual deadline) and then reused: `const billingJson = jsonCallerPerClients('billing', (c) =>
 * c.billing, billingRpc)`, then `billingJson(deps.clients).json('getInvoice', tenant, { id })`.
 * `target` names the service in failures ("billing unavailable: ...").
 */
export function jsonCallerPerClients<
  C extends { readonly deadlineMs: number },
  J extends { readonly [P in keyof J]: AnswerDef },
>(target: string, clientOf: (clients: C) => Client & JsonMethods<J>, map: J): (clients: C) => JsonCaller<J> {
  const callers = new WeakMap<C, JsonCaller<J>>();
  return (clients) => {
    const known = callers.get(clients);
    if (known) return known;
    const made = jsonCaller(clientOf(clients), map, { deadlineMs: clients.deadlineMs, target });
    callers.set(clients, made);
    return made;
  };
}
