import { noSuch } from '../errors';
import { newId, newWebhookSecret } from '../ids';
import type { Account } from './account';
import type { Metadata, WebhookEndpoint } from './types';

export interface CreateEndpointInput {
  url: string;
  enabled_events: string[];
  description: string | null;
  metadata: Metadata;
  api_version: string | null;
}

/** Creates an endpoint; the returned object is the only one that carries `secret`. */
export function createWebhookEndpoint(
  account: Account,
  input: CreateEndpointInput,
): WebhookEndpoint & { secret: string } {
  const endpoint: WebhookEndpoint = {
    id: newId('we'),
    object: 'webhook_endpoint',
    api_version: input.api_version,
    application: null,
    created: account.now(),
    description: input.description,
    enabled_events: [...input.enabled_events],
    livemode: account.livemode,
    metadata: { ...input.metadata },
    status: 'enabled',
    url: input.url,
  };
  const secret = newWebhookSecret();
  account.webhookEndpoints.set(endpoint.id, { endpoint, secret });
  account.own(endpoint.id);
  return { ...structuredClone(endpoint), secret };
}

export function getWebhookEndpoint(account: Account, id: string): WebhookEndpoint {
  const rec = account.webhookEndpoints.get(id);
  if (!rec) throw noSuch('webhook_endpoint', id);
  return rec.endpoint;
}

export interface UpdateEndpointInput {
  url?: string;
  enabled_events?: string[];
  description?: string | null;
  metadata?: Record<string, string | null> | null;
  disabled?: boolean;
}

export function updateWebhookEndpoint(account: Account, id: string, input: UpdateEndpointInput): WebhookEndpoint {
  const endpoint = getWebhookEndpoint(account, id);
  if (input.url !== undefined) endpoint.url = input.url;
  if (input.enabled_events !== undefined) endpoint.enabled_events = [...input.enabled_events];
  if (input.description !== undefined) endpoint.description = input.description;
  if (input.disabled !== undefined) endpoint.status = input.disabled ? 'disabled' : 'enabled';
  if (input.metadata === null) endpoint.metadata = {};
  else if (input.metadata) {
    for (const [k, v] of Object.entries(input.metadata)) {
      if (v === null) delete endpoint.metadata[k];
      else endpoint.metadata[k] = v;
    }
  }
  return endpoint;
}

export function deleteWebhookEndpoint(
  account: Account,
  id: string,
): { id: string; object: 'webhook_endpoint'; deleted: true } {
  getWebhookEndpoint(account, id);
  account.webhookEndpoints.delete(id);
  return { id, object: 'webhook_endpoint', deleted: true };
}
