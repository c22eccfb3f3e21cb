import { taxDeleted, taxRule, taxRulePage, taxRulesPopulated, taxRulesPopulatePreview } from '../responses/tax';
import { pageQuery } from './common';
import { taxBook } from './tax-book';
import { taxRuleCreateBody, taxRuleUpdateBody } from './tax-bodies';
import { toTax } from './tax-rpc';

/** Tax rules: scope `tax_rule:<action>`; every route, reads included, needs the Admin role. */
const rules = taxBook({ tag: 'Tax rules', scopePrefix: 'tax_rule', writeRole: 'Admin' });

export const taxRuleRoutes = [
  rules.row({
    method: 'GET',
    path: '/tax-rules',
    operationId: 'listTaxRules',
    role: 'Admin',
    response: taxRulePage,
    summary:
      'List tax rules, most specific first (country, then category, then item type), then higher priority (page, limit)',
    query: pageQuery(50),
    handler: toTax.query('listTaxRules'),
  }),
  rules.wholeBook({
    method: 'GET',
    path: '/tax-rules/populate-defaults/preview',
    operationId: 'previewPopulateDefaultTaxRules',
    role: 'Admin',
    response: taxRulesPopulatePreview,
    summary: 'The default rules populate-defaults would create now (empty when up to date), changing nothing',
  }),
  rules.create({
    path: '/tax-rules',
    operationId: 'createTaxRule',
    response: taxRule,
    summary: 'Create a custom tax rule',
    body: taxRuleCreateBody,
  }),
  rules.update({
    path: '/tax-rules/:id',
    operationId: 'updateTaxRule',
    response: taxRule,
    summary:
      'Update a tax rule (partial); editing a default rule makes it a custom one that populate-defaults does not add again',
    body: taxRuleUpdateBody,
  }),
  rules.remove({
    path: '/tax-rules/:id',
    operationId: 'deleteTaxRule',
    response: null,
    summary: 'Delete a tax rule (a default rule comes back with populate-defaults)',
  }),
  rules.wholeBook({
    method: 'DELETE',
    path: '/tax-rules',
    operationId: 'deleteAllTaxRules',
    response: taxDeleted,
    summary:
      'DESTRUCTIVE: delete every tax rule of the organization, default and custom (populate-defaults restores the defaults)',
  }),
  rules.wholeBook({
    method: 'POST',
    path: '/tax-rules/populate-defaults',
    operationId: 'populateDefaultTaxRules',
    status: 200,
    response: taxRulesPopulated,
    summary: 'Create the default rules that are missing (also those deleted); an empty `created` when up to date',
  }),
];
