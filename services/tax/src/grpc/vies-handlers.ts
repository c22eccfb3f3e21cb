import { ValidationError } from '@paymesh/core';
import type { tax } from '@paymesh/proto';
import type { TaxDeps } from '../app/deps';
import { euCountry } from '../domain/eu-country';
import { parseVatId } from '../domain/vat-id';
import { orgKeyOf, taxEdge } from './json';

/** gRPC handlers of the VIES and EU country RPCs. */
export function viesHandlers(deps: TaxDeps): Pick<tax.TaxServiceServer, 'validateVatId' | 'getEuCountry'> {
  const rpc = taxEdge(deps.logger);
  return {
    /**
     * body `{vatId}`; an empty organization is a public check (no requester, so no consultation
     * number). A malformed ID is INVALID_ARGUMENT naming the member state's format; a VIES outage
     * is an answer with status `unverified`.
     */
    validateVatId: rpc.json('validateVatId', async ({ vatId }, req) => {
      const parsed = parseVatId(vatId);
      if (!parsed.ok) throw new ValidationError(`vatId: ${parsed.message}`, { field: 'vatId' });
      const requester = req.organizationId === '' ? undefined : orgKeyOf(req);
      return deps.vatIds.check(parsed.vatId, 'vies', requester);
    }),
    /** id: a country code. Unknown or not ISO 3166-1 alpha-2 (nor EL, XI): INVALID_ARGUMENT. */
    getEuCountry: rpc.json('getEuCountry', async (_body, req) => {
      const country = /^[A-Za-z]{2}$/.test(req.id) ? euCountry(req.id) : null;
      if (!country)
        throw new ValidationError(
          `code: "${req.id.slice(0, 20)}" is not an ISO 3166-1 alpha-2 country code (e.g. DE, or EL / XI)`,
          { field: 'code' },
        );
      return country;
    }),
  };
}
