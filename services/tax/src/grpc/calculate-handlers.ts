import { ValidationError } from '@paymesh/core';
import { calculateTaxRequest } from '@paymesh/contracts';
import type { tax } from '@paymesh/proto';
import type { TaxDeps } from '../app/deps';
import { runCalculateTax } from '../app/calculate-tax';
import { OssFlagCache } from '../app/oss-flag';
import { bodyOf, jsonUnary, orgKeyOf } from './json';

/** How long a threshold flag is reused: crossing the threshold shows within this time. */
const OSS_FLAG_TTL_MS = 5_000;

/** gRPC handlers of the calculate RPCs. */
export function calculateHandlers(deps: TaxDeps): Pick<tax.TaxServiceServer, 'calculateTax'> {
  const flags = new OssFlagCache(deps.clock, OSS_FLAG_TTL_MS);
  return {
    calculateTax: jsonUnary(deps.logger, 'tax/CalculateTax', async (req) => {
      const key = orgKeyOf(req);
      const body = bodyOf(req, calculateTaxRequest);
      // The body names the tenant too (it is kept as the calculation's input); both must agree.
      if (body.organizationId !== key.organizationId || body.mode !== key.mode) {
        throw new ValidationError('organizationId and mode of the body must be those of the request', { field: 'organizationId' });
      }
      return runCalculateTax(deps, flags, body);
    }),
  };
}
