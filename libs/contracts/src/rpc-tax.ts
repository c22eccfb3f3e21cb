import { z } from 'zod';
import { emptyBody, jsonRpc } from './rpc';
import {
  calculateTaxRequest,
  euCountry,
  populateDefaultTaxRulesPreview,
  populateDefaultTaxRulesResult,
  replaceDefaultTaxRatesPreview,
  replaceDefaultTaxRatesResult,
  taxCalculation,
  taxDeletedCount,
  taxRateCreate,
  taxRateListQuery,
  taxRatePage,
  taxRateRecord,
  taxRateUpdate,
  taxRecord,
  taxRecordDeleted,
  taxRecordListQuery,
  taxRecordPage,
  taxRecordRebuildJob,
  taxRuleCreate,
  taxRuleListQuery,
  taxRulePage,
  taxRuleRecord,
  taxRuleUpdate,
  validateVatIdRequest,
  vatIdCheck,
} from './tax';
import { ecbRates, ecbRatesQuery, taxReportRequest } from './tax-reports';

/**
 * The tax service's JSON RPCs: method -> body schema and answer schema. `id` is the record (a rate,
 * rule, ledger record or rebuild job; GetEuCountry: the country code); the organization may be
 * empty only for ValidateVatId (a public check).
 */
export const taxRpc = {
  calculateTax: jsonRpc(calculateTaxRequest, taxCalculation),
  validateVatId: jsonRpc(validateVatIdRequest, vatIdCheck),
  getEuCountry: jsonRpc(emptyBody, euCountry),

  listTaxRates: jsonRpc(taxRateListQuery, taxRatePage),
  getTaxRate: jsonRpc(emptyBody, taxRateRecord),
  createTaxRate: jsonRpc(taxRateCreate, taxRateRecord),
  updateTaxRate: jsonRpc(taxRateUpdate, taxRateRecord),
  deleteTaxRate: jsonRpc(emptyBody, taxRecordDeleted),
  deleteAllTaxRates: jsonRpc(emptyBody, taxDeletedCount),
  replaceDefaultTaxRates: jsonRpc(emptyBody, replaceDefaultTaxRatesResult),
  previewReplaceDefaultTaxRates: jsonRpc(emptyBody, replaceDefaultTaxRatesPreview),

  listTaxRules: jsonRpc(taxRuleListQuery, taxRulePage),
  createTaxRule: jsonRpc(taxRuleCreate, taxRuleRecord),
  updateTaxRule: jsonRpc(taxRuleUpdate, taxRuleRecord),
  deleteTaxRule: jsonRpc(emptyBody, taxRecordDeleted),
  deleteAllTaxRules: jsonRpc(emptyBody, taxDeletedCount),
  populateDefaultTaxRules: jsonRpc(emptyBody, populateDefaultTaxRulesResult),
  previewPopulateDefaultTaxRules: jsonRpc(emptyBody, populateDefaultTaxRulesPreview),

  listTaxRecords: jsonRpc(taxRecordListQuery, taxRecordPage),
  getTaxRecord: jsonRpc(emptyBody, taxRecord),
  startTaxRecordRebuild: jsonRpc(emptyBody, taxRecordRebuildJob),
  getTaxRecordRebuild: jsonRpc(emptyBody, taxRecordRebuildJob),

  /** The answer's shape is the report's named in the body (`byCountryReport`, ...): the caller checks it with that schema. */
  taxReport: jsonRpc(taxReportRequest, z.unknown()),
  getEcbRates: jsonRpc(ecbRatesQuery, ecbRates),
} as const;
