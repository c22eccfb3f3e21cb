import type { tax } from '@paymesh/proto';
import type { TaxDeps } from '../app/deps';
import { createTaxRate } from '../app/create-tax-rate';
import { createTaxRule } from '../app/create-tax-rule';
import { deleteAllTaxRates } from '../app/delete-all-tax-rates';
import { deleteAllTaxRules } from '../app/delete-all-tax-rules';
import { deleteTaxRate } from '../app/delete-tax-rate';
import { deleteTaxRule } from '../app/delete-tax-rule';
import { getTaxRate } from '../app/get-tax-rate';
import { listTaxRates } from '../app/list-tax-rates';
import { listTaxRules } from '../app/list-tax-rules';
import { populateDefaultTaxRules, previewPopulateDefaultTaxRules } from '../app/populate-default-tax-rules';
import { previewReplaceDefaultTaxRates, replaceDefaultTaxRates } from '../app/replace-default-tax-rates';
import { updateTaxRate } from '../app/update-tax-rate';
import { updateTaxRule } from '../app/update-tax-rule';
import { orgKeyOf, taxEdge } from './json';

/** gRPC handlers of the rates and rules RPCs (bodies and answers: schemas in @paymesh/contracts `tax.ts`). */
export function ratesHandlers(
  deps: TaxDeps,
): Pick<
  tax.TaxServiceServer,
  | 'listTaxRates'
  | 'getTaxRate'
  | 'createTaxRate'
  | 'updateTaxRate'
  | 'deleteTaxRate'
  | 'deleteAllTaxRates'
  | 'replaceDefaultTaxRates'
  | 'previewReplaceDefaultTaxRates'
  | 'listTaxRules'
  | 'createTaxRule'
  | 'updateTaxRule'
  | 'deleteTaxRule'
  | 'deleteAllTaxRules'
  | 'populateDefaultTaxRules'
  | 'previewPopulateDefaultTaxRules'
> {
  const rpc = taxEdge(deps.logger);
  return {
    listTaxRates: rpc.json('listTaxRates', async (body, req) => listTaxRates(deps, orgKeyOf(req), body)),
    getTaxRate: rpc.json('getTaxRate', async (_body, req) => getTaxRate(deps, orgKeyOf(req), req.id)),
    createTaxRate: rpc.json('createTaxRate', async (body, req) => createTaxRate(deps, orgKeyOf(req), body)),
    updateTaxRate: rpc.json('updateTaxRate', async (body, req) => updateTaxRate(deps, orgKeyOf(req), req.id, body)),
    deleteTaxRate: rpc.json('deleteTaxRate', async (_body, req) => deleteTaxRate(deps, orgKeyOf(req), req.id)),
    deleteAllTaxRates: rpc.json('deleteAllTaxRates', async (_body, req) => deleteAllTaxRates(deps, orgKeyOf(req))),
    replaceDefaultTaxRates: rpc.json('replaceDefaultTaxRates', async (_body, req) =>
      replaceDefaultTaxRates(deps, orgKeyOf(req)),
    ),
    previewReplaceDefaultTaxRates: rpc.json('previewReplaceDefaultTaxRates', async (_body, req) =>
      previewReplaceDefaultTaxRates(deps, orgKeyOf(req)),
    ),
    listTaxRules: rpc.json('listTaxRules', async (body, req) => listTaxRules(deps, orgKeyOf(req), body)),
    createTaxRule: rpc.json('createTaxRule', async (body, req) => createTaxRule(deps, orgKeyOf(req), body)),
    updateTaxRule: rpc.json('updateTaxRule', async (body, req) => updateTaxRule(deps, orgKeyOf(req), req.id, body)),
    deleteTaxRule: rpc.json('deleteTaxRule', async (_body, req) => deleteTaxRule(deps, orgKeyOf(req), req.id)),
    deleteAllTaxRules: rpc.json('deleteAllTaxRules', async (_body, req) => deleteAllTaxRules(deps, orgKeyOf(req))),
    populateDefaultTaxRules: rpc.json('populateDefaultTaxRules', async (_body, req) =>
      populateDefaultTaxRules(deps, orgKeyOf(req)),
    ),
    previewPopulateDefaultTaxRules: rpc.json('previewPopulateDefaultTaxRules', async (_body, req) =>
      previewPopulateDefaultTaxRules(deps, orgKeyOf(req)),
    ),
  };
}
