import { z } from 'zod';
import {
  populateDefaultTaxRulesPreview,
  populateDefaultTaxRulesResult,
  replaceDefaultTaxRatesPreview,
  replaceDefaultTaxRatesResult,
  TAX_ITEM_TYPES,
  taxDeletedCount,
  taxRateRecord,
  taxRuleRecord,
} from '@paymesh/contracts';
import { page } from './common';

/** An effective-dated VAT rate of the organization (`validTo` exclusive; `managed`: one of the kept-in-sync defaults). */
export const taxRate = taxRateRecord;
export const taxRatePage = page(taxRate);

/**
 * A rule choosing the rate type for the lines it matches (most specific wins, then higher priority).
 * NOTE: `itemType` is documented as a nullable string naming its values: a nullable enum becomes an
 * OpenAPI 3.0 enum without null, which would make every `null` answer look undocumented.
 */
export const taxRule = taxRuleRecord.extend({
  itemType: z
    .string()
    .nullable()
    .describe(`${TAX_ITEM_TYPES.join(', ')}; null: any item type`),
});
export const taxRulePage = page(taxRule);
/** Answer of the destructive delete-all routes. */
export const taxDeleted = taxDeletedCount;
export const taxRatesReplaced = replaceDefaultTaxRatesResult;
export const taxRulesPopulated = populateDefaultTaxRulesResult.extend({ created: z.array(taxRule) });
export const taxRatesReplacePreview = replaceDefaultTaxRatesPreview;
/** The draft rules populate-defaults would create (itemType documented as a string, like `taxRule`). */
export const taxRulesPopulatePreview = populateDefaultTaxRulesPreview.extend({
  create: z.array(populateDefaultTaxRulesPreview.shape.create.element.extend({ itemType: taxRule.shape.itemType })),
});
