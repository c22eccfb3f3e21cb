import {
  taxRateCreate,
  taxRateListQuery,
  taxRateUpdate,
  taxRuleCreate,
  taxRuleListQuery,
  taxRuleUpdate,
} from '@paymesh/contracts';
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
import { populateDefaultTaxRules } from '../app/populate-default-tax-rules';
import { replaceDefaultTaxRates } from '../app/replace-default-tax-rates';
import { updateTaxRate } from '../app/update-tax-rate';
import { updateTaxRule } from '../app/update-tax-rule';
import { bodyOf, jsonUnary, orgKeyOf } from './json';

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
  | 'listTaxRules'
  | 'createTaxRule'
  | 'updateTaxRule'
  | 'deleteTaxRule'
  | 'deleteAllTaxRules'
  | 'populateDefaultTaxRules'
> {
  const { logger } = deps;
  return {
    listTaxRates: jsonUnary(logger, 'tax/ListTaxRates', (req) =>
      listTaxRates(deps, orgKeyOf(req), bodyOf(req, taxRateListQuery)),
    ),
    getTaxRate: jsonUnary(logger, 'tax/GetTaxRate', (req) => getTaxRate(deps, orgKeyOf(req), req.id)),
    createTaxRate: jsonUnary(logger, 'tax/CreateTaxRate', (req) =>
      createTaxRate(deps, orgKeyOf(req), bodyOf(req, taxRateCreate)),
    ),
    updateTaxRate: jsonUnary(logger, 'tax/UpdateTaxRate', (req) =>
      updateTaxRate(deps, orgKeyOf(req), req.id, bodyOf(req, taxRateUpdate)),
    ),
    deleteTaxRate: jsonUnary(logger, 'tax/DeleteTaxRate', (req) => deleteTaxRate(deps, orgKeyOf(req), req.id)),
    deleteAllTaxRates: jsonUnary(logger, 'tax/DeleteAllTaxRates', (req) => deleteAllTaxRates(deps, orgKeyOf(req))),
    replaceDefaultTaxRates: jsonUnary(logger, 'tax/ReplaceDefaultTaxRates', (req) =>
      replaceDefaultTaxRates(deps, orgKeyOf(req)),
    ),
    listTaxRules: jsonUnary(logger, 'tax/ListTaxRules', (req) =>
      listTaxRules(deps, orgKeyOf(req), bodyOf(req, taxRuleListQuery)),
    ),
    createTaxRule: jsonUnary(logger, 'tax/CreateTaxRule', (req) =>
      createTaxRule(deps, orgKeyOf(req), bodyOf(req, taxRuleCreate)),
    ),
    updateTaxRule: jsonUnary(logger, 'tax/UpdateTaxRule', (req) =>
      updateTaxRule(deps, orgKeyOf(req), req.id, bodyOf(req, taxRuleUpdate)),
    ),
    deleteTaxRule: jsonUnary(logger, 'tax/DeleteTaxRule', (req) => deleteTaxRule(deps, orgKeyOf(req), req.id)),
    deleteAllTaxRules: jsonUnary(logger, 'tax/DeleteAllTaxRules', (req) => deleteAllTaxRules(deps, orgKeyOf(req))),
    populateDefaultTaxRules: jsonUnary(logger, 'tax/PopulateDefaultTaxRules', (req) =>
      populateDefaultTaxRules(deps, orgKeyOf(req)),
    ),
  };
}
