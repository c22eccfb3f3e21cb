import { z } from 'zod';
import { RATE_TYPES, taxDate, taxRateCode } from '@paymesh/contracts';
import { countryCode } from '@paymesh/http';
import { taxDeleted, taxRate, taxRatePage, taxRatesReplaced, taxRatesReplacePreview } from '../responses/tax';
import { pageQuery } from './common';
import { taxBook } from './tax-book';
import { taxRateCreateBody, taxRateUpdateBody } from './tax-bodies';
import { taxJson } from './tax-rpc';

const listQuery = z.object({
  ...pageQuery(50).shape,
  country: countryCode.optional(),
  rateType: z.enum(RATE_TYPES).optional(),
  managed: z.enum(['true', 'false']).optional().describe('true: managed defaults only; false: custom rates only'),
  validOn: taxDate.optional().describe('only rates valid that day'),
  code: taxRateCode.optional(),
});

/** Tax rates: scope `tax_rate:<action>`; every route, reads included, needs the Admin role. */
const rates = taxBook({ tag: 'Tax rates', scopePrefix: 'tax_rate', writeRole: 'Admin' });

export const taxRateRoutes = [
  rates.row({
    method: 'GET',
    path: '/tax-rates',
    operationId: 'listTaxRates',
    role: 'Admin',
    response: taxRatePage,
    summary:
      'List tax rates (country, rateType, managed, validOn, code, page, limit; sorted by country, code, validFrom)',
    query: listQuery,
    async handler({ deps, org, query }) {
      const { managed, ...rest } = query;
      return taxJson(deps, org, 'listTaxRates', {
        body: { ...rest, ...(managed ? { managed: managed === 'true' } : {}) },
      });
    },
  }),
  rates.wholeBook({
    method: 'GET',
    path: '/tax-rates/replace-defaults/preview',
    operationId: 'previewReplaceDefaultTaxRates',
    role: 'Admin',
    response: taxRatesReplacePreview,
    summary:
      'What replace-defaults would do now, changing nothing: the rates it would create, the managed rates it would update (with their new figures) or retire, and the defaults it would leave alone',
  }),
  rates.get({
    path: '/tax-rates/:id',
    operationId: 'getTaxRate',
    role: 'Admin',
    response: taxRate,
    summary: 'Get a tax rate',
  }),
  rates.create({
    path: '/tax-rates',
    operationId: 'createTaxRate',
    response: taxRate,
    errors: [409],
    summary:
      'Create a custom tax rate (409 when its code and validFrom exist, or its period overlaps another rate of the code)',
    body: taxRateCreateBody,
  }),
  rates.update({
    path: '/tax-rates/:id',
    operationId: 'updateTaxRate',
    response: taxRate,
    errors: [409],
    summary:
      'Update a tax rate (partial); editing a managed default makes it a custom rate that replace-defaults leaves alone',
    body: taxRateUpdateBody,
  }),
  rates.remove({
    path: '/tax-rates/:id',
    operationId: 'deleteTaxRate',
    response: null,
    summary: 'Delete a tax rate (a managed default comes back with replace-defaults)',
  }),
  rates.wholeBook({
    method: 'DELETE',
    path: '/tax-rates',
    operationId: 'deleteAllTaxRates',
    response: taxDeleted,
    summary:
      'DESTRUCTIVE: delete every tax rate of the organization, managed and custom; calculations find no rate until replace-defaults or new rates',
  }),
  rates.wholeBook({
    method: 'POST',
    path: '/tax-rates/replace-defaults',
    operationId: 'replaceDefaultTaxRates',
    action: 'execute',
    response: taxRatesReplaced,
    errors: [409],
    summary:
      'Sync the managed default rates: create missing, update changed, retire withdrawn; custom and edited rates are never touched',
  }),
];
