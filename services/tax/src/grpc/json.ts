import { type Logger, type WireTenant, tenantOf } from '@paymesh/core';
import { taxRpc } from '@paymesh/contracts';
import { envelopeServer, type EnvelopeServer } from '@paymesh/grpc';
import type { OrgKey } from '../app/deps';

/** Tenant of a request; throws a ValidationError for a malformed organization id. */
export const orgKeyOf = (req: WireTenant): OrgKey => tenantOf(req);

/** The tax service's envelope RPCs, typed by `taxRpc` of @paymesh/contracts. */
export function taxEdge(logger: Logger): EnvelopeServer<typeof taxRpc, Record<never, never>> {
  return envelopeServer(logger, 'tax', taxRpc, {});
}
