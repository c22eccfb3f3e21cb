import type { FastifyInstance } from 'fastify';
import { registerCheckoutRoutes, type PublicRouteOptions } from './checkouts';
import { registerTransactionRoutes } from './transactions';
import { registerVatRoutes } from './vat';
import { registerPortalRoutes } from './portal';
import type { PortalDeps } from '../../portal/deps';

/** Every buyer-facing route family under /api/v1, for the server and for tests that enumerate them. */
export function publicApiRoutes(
  opts: PublicRouteOptions & { portal?: PortalDeps },
): ((app: FastifyInstance) => void)[] {
  const { portal } = opts;
  return [
    (scope) => registerCheckoutRoutes(scope, opts),
    (scope) => registerTransactionRoutes(scope, opts),
    (scope) => registerVatRoutes(scope, opts),
    ...(portal ? [(scope: FastifyInstance) => registerPortalRoutes(scope, portal)] : []),
  ];
}
