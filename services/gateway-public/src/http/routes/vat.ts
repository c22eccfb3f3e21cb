import { z } from 'zod';
import { ErrorCode, UnavailableError } from '@paymesh/core';
import { text } from '@paymesh/http';
import { taxJson } from '../../clients';
import { anyone } from '../guards';
import { euCountryView, vatValidation } from '../responses';
import { publicRow, type PublicRow } from './checkouts';
import { required } from './parse';

const validateBody = z.object({ vatId: required('vatId', 100) });
const countryParams = z.object({
  code: text(20).pipe(
    z.string().regex(/^[A-Za-z]{2}$/, 'must be a two-letter country code (e.g. DE; EL and XI are accepted)'),
  ),
});

const VIES_UNAVAILABLE_MESSAGE =
  'The EU VAT number service (VIES) cannot confirm this VAT ID right now. You can continue without it: VAT is then charged as for a consumer.';

/** Public checks: no organization (VIES checks name no requester). */
const publicTenant = { organizationId: '', testMode: false };

/** Public VAT routes under /api/v1 (no organization: VIES checks name no requester). */
export const vatRows: PublicRow[] = [
  publicRow({
    tag: 'VAT',
    guard: anyone,
    method: 'POST',
    path: '/vat/validate',
    operationId: 'validateVatId',
    summary:
      'Check a buyer VAT ID: format and check digits, then VIES (answers are cached for a day); 503 VIES_UNAVAILABLE when VIES cannot answer',
    body: validateBody,
    response: vatValidation,
    errors: [400, 429, 503],
    // Each distinct VAT ID may cost a VIES call: the per-client budget of sensitive routes applies.
    config: { rateLimitBudget: 'sensitive' },
    async handler({ deps, req, body }) {
      const check = await taxJson(deps.clients).json('validateVatId', publicTenant, { body: { vatId: body.vatId } });
      if (
        (check.status !== 'valid' && check.status !== 'invalid') ||
        check.vatId === null ||
        check.checkedAt === null
      ) {
        req.log.warn(
          { vatId: check.vatId, status: check.status, viesError: check.error },
          'VIES could not confirm a VAT ID',
        );
        throw new UnavailableError(VIES_UNAVAILABLE_MESSAGE, { code: ErrorCode.VIES_UNAVAILABLE });
      }
      return {
        valid: check.status === 'valid',
        // The spec types both as strings: what VIES withholds (or an invalid ID lacks) is the empty string.
        companyName: check.companyName ?? '',
        address: check.address ?? '',
        vatId: check.vatId,
        countryCode: check.vatId.slice(0, 2),
        status: check.status,
        checkedAt: check.checkedAt,
        consultationNumber: check.consultationNumber,
      };
    },
  }),
  publicRow({
    tag: 'VAT',
    guard: anyone,
    method: 'GET',
    path: '/vat/eu-country/:code',
    operationId: 'getEuCountry',
    summary: 'Whether a country code is an EU member state, with its VIES VAT prefix',
    params: countryParams,
    response: euCountryView,
    errors: [400, 429],
    handler: ({ deps, params }) => taxJson(deps.clients).json('getEuCountry', publicTenant, { id: params.code }),
  }),
];
