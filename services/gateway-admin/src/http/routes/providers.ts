import { z } from 'zod';
import type { paymentsWebhooks } from '@paymesh/proto';
import { deleted } from '../responses/common';
import { provider, providerPage, providerTypes } from '../responses/providers';
import { resource } from '../route-table';
import { idParams, orgRpc, pageQuery, recordById, recordPage } from './common';
import { createProviderBody, PROVIDER_CREDENTIAL_SCHEMAS } from './provider-credentials';

/** One strict credentials object per type; payments-webhooks applies the finer rules. */
const createBody = createProviderBody;

/** No body, or without `enabled`: flips the switch (the route table takes an absent body as {}). */
const toggleBody = z.object({ enabled: z.boolean().optional() }).strict();

/** Public shape of a provider record: credentials only as masked hints; the webhook secret only on creation when generated. */
export function providerView(p: paymentsWebhooks.Provider) {
  return {
    id: p.id,
    organizationId: p.organizationId,
    type: p.type,
    name: p.name,
    enabled: p.enabled,
    testMode: p.testMode,
    credentialHints: p.credentialHints,
    webhookUrl: p.webhookPath,
    ...(p.webhookSecret ? { webhookSecret: p.webhookSecret } : {}),
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

/** Provider records: Viewers read; every write needs the Admin role (spec). */
const providers = resource({ tag: 'Providers', scopePrefix: 'provider', writeRole: 'Admin' });

export const providerRoutes = [
  providers({
    method: 'GET',
    path: '/providers',
    operationId: 'listProviders',
    response: providerPage,
    summary: 'List payment provider records',
    query: pageQuery(20),
    handler: recordPage('paymentsWebhooks', (c) => c.listProviders, providerView),
  }),
  providers({
    method: 'GET',
    path: '/providers/types',
    operationId: 'listProviderTypes',
    response: providerTypes,
    summary:
      "The provider types and the JSON Schema of each one's credentials: exactly what POST /providers validates (forms are built from it)",
    async handler() {
      return { items: PROVIDER_CREDENTIAL_SCHEMAS };
    },
  }),
  providers({
    method: 'GET',
    path: '/providers/:id',
    operationId: 'getProvider',
    response: provider,
    summary: 'Get a payment provider record',
    params: idParams,
    handler: recordById('paymentsWebhooks', (c) => c.getProvider, providerView),
  }),
  providers({
    method: 'POST',
    path: '/providers',
    operationId: 'createProvider',
    response: provider,
    errors: [422],
    summary:
      'Create a payment provider record (provider_a without webhookSecret: the webhook endpoint is registered at the provider and its secret returned once)',
    body: createBody,
    status: 201,
    async handler({ deps, org, body }) {
      const p = await orgRpc(deps, org, 'paymentsWebhooks', (c) => c.createProvider, {
        type: body.type,
        name: body.name,
        credentialsJson: JSON.stringify(body.credentials),
      });
      return providerView(p);
    },
  }),
  providers({
    method: 'DELETE',
    path: '/providers/:id',
    operationId: 'deleteProvider',
    response: deleted,
    summary: 'Delete a payment provider record (payments already started through it still settle)',
    params: idParams,
    async handler({ deps, org, params }) {
      await orgRpc(deps, org, 'paymentsWebhooks', (c) => c.deleteProvider, { id: params.id });
      return { id: params.id, deleted: true };
    },
  }),
  providers({
    method: 'PUT',
    path: '/providers/:id/toggle',
    operationId: 'toggleProvider',
    response: provider,
    action: 'execute',
    summary: 'Enable or disable a payment provider record (body {"enabled": bool}; without it the state flips)',
    params: idParams,
    body: toggleBody,
    async handler({ deps, org, params, body }) {
      const p = await orgRpc(deps, org, 'paymentsWebhooks', (c) => c.toggleProvider, {
        id: params.id,
        enabled: body.enabled,
      });
      return providerView(p);
    },
  }),
];
