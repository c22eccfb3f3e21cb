import type { FastifyInstance } from 'fastify';
import { registerRows } from '@paymesh/http';
import { checkoutRows, type PublicRouteOptions } from './checkouts';
import { transactionRows } from './transactions';
import { vatRows } from './vat';
import { portalRows } from './portal';
import type { PortalDeps } from '../../portal/deps';

/**
 * Every buyer-facing table under /api/v1, for the server and for tests that enumerate them. The
 * handler checks the input (after the Origin check of the buyer's rows), so a refused Origin wins
 * over bad input.
 */
export function publicApiRoutes(
  opts: PublicRouteOptions & { portal?: PortalDeps },
): ((app: FastifyInstance) => void)[] {
  const { portal, ...deps } = opts;
  return [
    (scope) => registerRows(scope, [...checkoutRows, ...transactionRows, ...vatRows], { deps, input: 'handler' }),
    ...(portal
      ? [(scope: FastifyInstance) => registerRows(scope, portalRows, { deps: portal, input: 'handler' })]
      : []),
  ];
}
