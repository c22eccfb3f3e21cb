import { taxDeleted, taxRule, taxRulePage, taxRulesPopulated, taxRulesPopulatePreview } from '../responses/tax';
import { resource } from '../route-table';
import { idParams, pageQuery } from './common';
import { noParameters } from './tax-rates';
import { taxRuleCreateBody, taxRuleUpdateBody } from './tax-bodies';
import { taxJson } from './tax-rpc';

/** Tax rules: scope `tax_rule:<action>`; every route, reads included, needs the Admin role. */
const rules = resource({ tag: 'Tax rules', scopePrefix: 'tax_rule', writeRole: 'Admin' });

export const taxRuleRoutes = [
  rules({
    method: 'GET',
    path: '/tax-rules',
    operationId: 'listTaxRules',
    role: 'Admin',
    response: taxRulePage,
    summary:
      'List tax rules, most specific first (country, then category, then item type), then higher priority (page, limit)',
    query: pageQuery(50),
    async handler({ deps, org, query }) {
      return taxJson(deps, org, 'listTaxRules', { body: query });
    },
  }),
  rules({
    method: 'GET',
    path: '/tax-rules/populate-defaults/preview',
    operationId: 'previewPopulateDefaultTaxRules',
    role: 'Admin',
    response: taxRulesPopulatePreview,
    summary: 'The default rules populate-defaults would create now (empty when up to date), changing nothing',
    query: noParameters,
    async handler({ deps, org }) {
      return taxJson(deps, org, 'previewPopulateDefaultTaxRules', {});
    },
  }),
  rules({
    method: 'POST',
    path: '/tax-rules',
    operationId: 'createTaxRule',
    response: taxRule,
    summary: 'Create a custom tax rule',
    body: taxRuleCreateBody,
    async handler({ deps, org, body }) {
      return taxJson(deps, org, 'createTaxRule', { body });
    },
  }),
  rules({
    method: 'PUT',
    path: '/tax-rules/:id',
    operationId: 'updateTaxRule',
    response: taxRule,
    summary:
      'Update a tax rule (partial); editing a default rule makes it a custom one that populate-defaults does not add again',
    params: idParams,
    body: taxRuleUpdateBody,
    async handler({ deps, org, params, body }) {
      return taxJson(deps, org, 'updateTaxRule', { id: params.id, body });
    },
  }),
  rules({
    method: 'DELETE',
    path: '/tax-rules/:id',
    operationId: 'deleteTaxRule',
    response: null,
    summary: 'Delete a tax rule (a default rule comes back with populate-defaults)',
    params: idParams,
    async handler({ deps, org, params }) {
      await taxJson(deps, org, 'deleteTaxRule', { id: params.id });
      return undefined;
    },
  }),
  rules({
    method: 'DELETE',
    path: '/tax-rules',
    operationId: 'deleteAllTaxRules',
    response: taxDeleted,
    summary:
      'DESTRUCTIVE: delete every tax rule of the organization, default and custom (populate-defaults restores the defaults)',
    query: noParameters,
    async handler({ deps, org }) {
      return taxJson(deps, org, 'deleteAllTaxRules', {});
    },
  }),
  rules({
    method: 'POST',
    path: '/tax-rules/populate-defaults',
    operationId: 'populateDefaultTaxRules',
    status: 200,
    response: taxRulesPopulated,
    summary: 'Create the default rules that are missing (also those deleted); an empty `created` when up to date',
    query: noParameters,
    async handler({ deps, org }) {
      return taxJson(deps, org, 'populateDefaultTaxRules', {});
    },
  }),
];
