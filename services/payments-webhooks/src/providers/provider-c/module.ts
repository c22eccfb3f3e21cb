import { z } from 'zod';
import { credentialsSchema, environment, environmentMismatch } from '../credential-fields';
import { maskWithPrefix, type ProviderModule, type ProviderOptions } from '../module';
import { ProviderCAdapter } from './adapter';

/** provider_c (direct debit; `Webhook-Signature` keyed with `webhookSecret`). */
export const providerCCredentials = credentialsSchema({
  accessToken: z.string().min(20).max(200),
  webhookSecret: z.string().min(16).max(200),
  environment,
});
export type ProviderCCredentials = z.infer<typeof providerCCredentials>;

export const providerCModule: ProviderModule<ProviderCCredentials, ProviderOptions> = {
  type: 'provider_c',
  credentials: providerCCredentials,
  modeMismatch: environmentMismatch,
  hint: (field, value) =>
    field === 'accessToken' || field === 'webhookSecret' ? maskWithPrefix(value, /^(sandbox|live)_/) : null,
  keyField: 'accessToken',
  webhookRegistration: null,
  // Webhook endpoints are set up in the provider's dashboard, with the secret given here.
  createAdapter: (c, options) => new ProviderCAdapter(c, options),
};
