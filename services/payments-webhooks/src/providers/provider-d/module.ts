import { z } from 'zod';
import { NotSupportedError } from '@paymesh/core';
import { apiBaseUrl } from '../credential-fields';
import { maskWithPrefix, type ProviderModule } from '../module';

/** provider_d (wallet orders; webhooks verified through the provider's API against `webhookId`). */
export const providerDCredentials = z
  .object({
    clientId: z.string().min(8).max(200),
    clientSecret: z.string().min(8).max(200),
    webhookId: z.string().min(4).max(100),
    environment: z.enum(['sandbox', 'live']),
    apiBaseUrl: apiBaseUrl.optional(),
  })
  .strict();
export type ProviderDCredentials = z.infer<typeof providerDCredentials>;

export const providerDModule: ProviderModule<ProviderDCredentials, void> = {
  type: 'provider_d',
  credentials: providerDCredentials,
  modeMismatch: (c, mode) => ((c.environment === 'live') !== (mode === 'live') ? 'environment' : null),
  hint: (field, value) => (field === 'clientSecret' ? maskWithPrefix(value, /^$/) : null),
  keyField: 'clientSecret',
  webhookRegistration: null,
  createAdapter() {
    throw new NotSupportedError('payments with provider_d are not supported yet');
  },
};
