import { isObjectId, ValidationError, type Logger } from '@paymesh/core';
import { taxRpc } from '@paymesh/contracts';
import { envelopeServer, type EnvelopeServer } from '@paymesh/grpc';
import type { OrgKey } from '../app/deps';

/** Tenant of a request; throws a ValidationError for a malformed organization id. */
export function orgKeyOf(req: { organizationId: string; testMode: boolean }): OrgKey {
  if (!isObjectId(req.organizationId))
    throw new ValidationError('organizationId must be a 24-hex identifier', { field: 'organizationId' });
  return { organizationId: req.organizationId, mode: req.testMode ? 'test' : 'live' };
}

/** The tax service's envelope RPCs, typed by `taxRpc` of @paymesh/contracts. */
export function taxEdge(logger: Logger): EnvelopeServer<typeof taxRpc, Record<never, never>> {
  return envelopeServer(logger, 'tax', taxRpc, {});
}
