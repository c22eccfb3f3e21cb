import { z } from 'zod';
import { credentialsSchema } from '../credential-fields';
import { maskWithPrefix, type ProviderModule, type ProviderOptions } from '../module';
import { ProviderBAdapter } from './adapter';

/** provider_b (redirect payments; no webhook secret, callbacks are hints to fetch the payment). */
export const providerBCredentials = credentialsSchema({
  apiKey: z.string().regex(/^(test|live)_[A-Za-z0-9]{20,100}$/, 'must look like test_… or live_…'),
});
export type ProviderBCredentials = z.infer<typeof providerBCredentials>;

export const providerBModule: ProviderModule<ProviderBCredentials, ProviderOptions> = {
  type: 'provider_b',
  credentials: providerBCredentials,
  modeMismatch: (c, mode) => (c.apiKey.startsWith(`${mode}_`) ? null : 'apiKey'),
  hint: (field, value) => (field === 'apiKey' ? maskWithPrefix(value, /^(test|live)_/) : null),
  keyField: 'apiKey',
  // The webhook URL travels with each payment; nothing to register.
  webhookRegistration: null,
  createAdapter: (c, options) => new ProviderBAdapter(c, options),
};
