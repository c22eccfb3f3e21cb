import { z } from 'zod';
import {
  RATE_TYPES,
  TAX_ITEM_TYPES,
  taxCategory,
  taxDate,
  taxRateCreate,
  taxRateUpdate,
  taxRuleCreate,
  taxRuleUpdate,
} from '@paymesh/contracts';

/**
 * Admin bodies of tax rates and rules: the contract schemas, with fields whose default is null made
 * optional instead (the tax service parses the body again with the contract and fills the null
 * defaults). A `null` default would end up in the API document, where it breaks the reference
 * resolution, and "absent" in an update means "unchanged", not a default.
 */
const description = z
  .string()
  .trim()
  .max(500)
  .nullable()
  .optional()
  .describe('absent: null (create) or unchanged (update)');
const nonEmpty = (b: object) => Object.keys(b).length > 0;
const NON_EMPTY = 'body must change at least one field';

export const taxRateCreateBody = taxRateCreate.extend({
  validTo: taxDate.nullable().optional().describe('first day the rate no longer applies; absent or null: open-ended'),
  description,
});

export const taxRateUpdateBody = taxRateUpdate
  .extend({
    categories: z.array(taxCategory).max(50).optional(),
    validTo: taxDate.nullable().optional().describe('null: open-ended'),
    description,
  })
  .refine(nonEmpty, NON_EMPTY);

const ruleNullables = {
  itemType: z.enum(TAX_ITEM_TYPES).nullable().optional().describe('absent or null: any item type'),
  category: taxCategory.nullable().optional().describe('absent or null: any category'),
  country: taxRateCreate.shape.country.nullable().optional().describe('absent or null: every country'),
  rateType: z.enum(RATE_TYPES),
  description,
};

export const taxRuleCreateBody = taxRuleCreate.extend(ruleNullables);

export const taxRuleUpdateBody = taxRuleUpdate
  .extend({
    ...ruleNullables,
    rateType: ruleNullables.rateType.optional(),
    priority: taxRuleCreate.shape.priority.removeDefault().optional(),
  })
  .refine(nonEmpty, NON_EMPTY);
