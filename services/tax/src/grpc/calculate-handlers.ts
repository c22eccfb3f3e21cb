import { ValidationError } from '@paymesh/core';
import type { tax } from '@paymesh/proto';
import type { TaxDeps } from '../app/deps';
import { runCalculateTax } from '../app/calculate-tax';
import { ossFlagCacheOf } from '../app/oss-flag';
import { orgKeyOf, taxEdge } from './json';

/** gRPC handlers of the calculate RPCs. */
export function calculateHandlers(deps: TaxDeps): Pick<tax.TaxServiceServer, 'calculateTax'> {
  const flags = ossFlagCacheOf(deps);
  return {
    calculateTax: taxEdge(deps.logger).json('calculateTax', async (body, req) => {
      const key = orgKeyOf(req);
      // The body names the tenant too (it is kept as the calculation's input); both must agree.
      if (body.organizationId !== key.organizationId || body.mode !== key.mode) {
        throw new ValidationError('organizationId and mode of the body must be those of the request', {
          field: 'organizationId',
        });
      }
      return runCalculateTax(deps, flags, body);
    }),
  };
}
