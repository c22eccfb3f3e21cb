import { z } from 'zod';
import { credentialsSchema, environment, environmentMismatch } from '../credential-fields';
import { maskWithPrefix, type ProviderModule } from '../module';
import { ProviderDAdapter, type ProviderDOptions } from './adapter';

/** provider_d (wallet orders; webhooks verified through the provider's API against `webhookId`). */
export const providerDCredentials = credentialsSchema({
  clientId: z.string().min(8).max(200),
  clientSecret: z.string().min(8).max(200),
  /** The provider's id of the webhook that delivers to this record; registered by the platform when absent. */
  webhookId: z.string().min(4).max(100).optional(),
  environment,
});
export type ProviderDCredentials = z.infer<typeof providerDCredentials>;

export const providerDModule: ProviderModule<ProviderDCredentials, ProviderDOptions> = {
  type: 'provider_d',
  credentials: providerDCredentials,
  modeMismatch: environmentMismatch,
  hint: (field, value) => (field === 'clientSecret' ? maskWithPrefix(value, /^$/) : null),
  keyField: 'clientSecret',
  // Deliveries are verified against the webhook id; the platform registers its endpoint when none is given.
  webhookRegistration: {
    needed: (c) => !c.webhookId,
    withSecret: (c, webhookId) => ({ ...c, webhookId }),
  },
  createAdapter: (c, options) => new ProviderDAdapter(c, options),
};
