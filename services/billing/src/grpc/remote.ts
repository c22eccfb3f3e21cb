import { call, makeClient, type ClientCtor, type UnaryMethod } from '@paymesh/grpc';

/** A generated gRPC client (grpc-js's `Client`, which billing does not depend on by name). */
type Client = Parameters<typeof call>[0];

/** A client of another service as billing's ports use it: every call with the port's deadline and target. */
export interface Remote<C extends Client> {
  client: C;
  /** One unary call of `client` (context metadata, deadline, the callee's errors as DomainErrors). */
  call<Req, Res>(method: UnaryMethod<Req, Res>, request: Req): Promise<Res>;
  close(): void;
}

/** Opens a client of the service at `address`; `target` names it in errors ("documents unavailable: ..."). */
export function remote<C extends Client>(
  Ctor: ClientCtor<C>,
  address: string,
  deadlineMs: number,
  target: string,
): Remote<C> {
  const client = makeClient(Ctor, address);
  return {
    client,
    call: (method, request) => call(client, method, request, { deadlineMs, target }),
    close: () => client.close(),
  };
}
