import { z } from 'zod';
import { credentialsSchema } from '../credential-fields';
import { maskWithPrefix, type ProviderModule, type ProviderOptions } from '../module';
import { ProviderAAdapter } from './adapter';

/** provider_a (Stripe-style cards). Without `webhookSecret` the platform registers the webhook endpoint itself. */
export const providerACredentials = credentialsSchema({
  secretKey: z.string().regex(/^sk_(test|live)_[A-Za-z0-9_]{8,240}$/, 'must look like sk_test_… or sk_live_…'),
  webhookSecret: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=_-]{16,200}$/, 'must look like whsec_…')
    .optional(),
});
export type ProviderACredentials = z.infer<typeof providerACredentials>;

export const providerAModule: ProviderModule<ProviderACredentials, ProviderOptions> = {
  type: 'provider_a',
  credentials: providerACredentials,
  modeMismatch: (c, mode) => (c.secretKey.startsWith(`sk_${mode}_`) ? null : 'secretKey'),
  hint: (field, value) =>
    field === 'secretKey' || field === 'webhookSecret' ? maskWithPrefix(value, /^(sk_(test|live)_|whsec_)/) : null,
  keyField: 'secretKey',
  webhookRegistration: {
    needed: (c) => !c.webhookSecret,
    withSecret: (c, secret) => ({ ...c, webhookSecret: secret }),
  },
  createAdapter: (c, options) => new ProviderAAdapter(c, options),
};
