import { newObjectId, ValidationError } from '@paymesh/core';
import {
  credentialHints,
  credentialsFromJson,
  parseCredentials,
  type ProviderCredentials,
} from '../domain/credentials';
import {
  isProviderType,
  PROVIDER_TYPES,
  validateProviderName,
  webhookPath,
  type Mode,
  type ProviderDoc,
} from '../domain/provider';
import { ProviderError } from '../providers/adapter';
import { moduleOf } from '../providers/registry';
import { PROVIDERS } from '../store/collections';
import type { PaymentsDeps } from './deps';
import { emitProviderChanged } from './manage-providers';

export interface CreateProviderInput {
  organizationId: string;
  mode: Mode;
  type: string;
  name: string;
  credentialsJson: string;
}

export interface CreatedProvider {
  provider: ProviderDoc;
  /** The webhook signing secret, only when the platform registered the endpoint itself (shown once). */
  webhookSecret: string | null;
}

/**
 * Creates a provider record with sealed credentials. When the type's module says these credentials
 * need it (e.g. no webhook secret given), the webhook endpoint is registered at the provider and the
 * returned secret is stored.
 */
export async function createProvider(deps: PaymentsDeps, input: CreateProviderInput): Promise<CreatedProvider> {
  if (!isProviderType(input.type)) {
    throw new ValidationError(`type must be one of ${PROVIDER_TYPES.join(', ')}`, { field: 'type' });
  }
  const type = input.type;
  const name = validateProviderName(input.name);
  let credentials = parseCredentials(type, credentialsFromJson(input.credentialsJson), {
    mode: input.mode,
    requireHttps: deps.requireHttps,
    allowedApiOrigins: deps.allowedApiOrigins,
  });
  const id = newObjectId();
  let registered: { endpointId: string; secret: string } | null = null;
  const registration = moduleOf(type).webhookRegistration;
  if (registration?.needed(credentials.value)) {
    registered = await registerEndpoint(deps, credentials, `${deps.publicRootUrl}${webhookPath(type, id)}`);
    credentials = { type, value: registration.withSecret(credentials.value, registered.secret) };
  }
  const now = deps.clock.now().toISOString();
  const doc: Omit<ProviderDoc, 'version'> = {
    id,
    organizationId: input.organizationId,
    mode: input.mode,
    type,
    name,
    enabled: true,
    credentials: deps.secrets.seal(JSON.stringify(credentials.value), id),
    credentialHints: credentialHints(credentials),
    webhookEndpointId: registered?.endpointId ?? null,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  let provider: ProviderDoc;
  try {
    provider = await deps.outbox.commit(async (tx) => {
      const stored = await tx.collection<ProviderDoc>(PROVIDERS).insert(doc);
      emitProviderChanged(tx, stored);
      return stored;
    });
  } catch (err) {
    if (registered) await removeEndpoint(deps, credentials, registered.endpointId);
    throw err;
  }
  deps.logger.info(
    { providerId: id, organizationId: input.organizationId, type, webhookRegistered: registered !== null },
    'provider created',
  );
  return { provider, webhookSecret: registered?.secret ?? null };
}

async function registerEndpoint(deps: PaymentsDeps, credentials: ProviderCredentials, url: string) {
  try {
    return await deps.adapters.build(credentials).registerWebhookEndpoint(url);
  } catch (err) {
    if (err instanceof ProviderError && err.providerKind === 'auth') {
      const field = `credentials.${moduleOf(credentials.type).keyField}`;
      throw new ValidationError(`${field} was rejected by ${credentials.type}`, { field, cause: err });
    }
    throw err;
  }
}

async function removeEndpoint(deps: PaymentsDeps, credentials: ProviderCredentials, endpointId: string): Promise<void> {
  try {
    await deps.adapters.build(credentials).deleteWebhookEndpoint(endpointId);
  } catch (err) {
    deps.logger.warn(
      { err, endpointId },
      'could not remove the webhook endpoint of a provider record that was not stored',
    );
  }
}
