import { z } from 'zod';
import { NotSupportedError } from '@paymesh/core';
import { apiBaseUrl } from '../credential-fields';
import { maskWithPrefix, type ProviderModule } from '../module';

/** provider_c (direct debit; `Webhook-Signature` keyed with `webhookSecret`). */
export const providerCCredentials = z
  .object({
    accessToken: z.string().min(20).max(200),
    webhookSecret: z.string().min(16).max(200),
    environment: z.enum(['sandbox', 'live']),
    apiBaseUrl: apiBaseUrl.optional(),
  })
  .strict();
export type ProviderCCredentials = z.infer<typeof providerCCredentials>;

export const providerCModule: ProviderModule<ProviderCCredentials, void> = {
  type: 'provider_c',
  credentials: providerCCredentials,
  modeMismatch: (c, mode) => ((c.environment === 'live') !== (mode === 'live') ? 'environment' : null),
  hint: (field, value) => (field === 'accessToken' || field === 'webhookSecret' ? maskWithPrefix(value, /^$/) : null),
  keyField: 'accessToken',
  webhookRegistration: null,
  createAdapter() {
    throw new NotSupportedError('payments with provider_c are not supported yet');
  },
};
