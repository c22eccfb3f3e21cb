import { DomainError } from '@paymesh/core';
import type { ProviderType } from '../domain/provider';
import type { CredentialValue, ProviderModule, ProviderOptions } from './module';
import type { PaymentAdapter } from './adapter';
import { providerAModule } from './provider-a/module';
import { providerBModule } from './provider-b/module';
import { providerCModule } from './provider-c/module';
import { providerDModule } from './provider-d/module';
import type { ProviderDOptions } from './provider-d/adapter';

/** Service-wide settings of each provider type that has an adapter (from config.ts). */
export interface AdapterOptions {
  provider_a: ProviderOptions;
  provider_b: ProviderOptions;
  provider_c: ProviderOptions;
  provider_d: ProviderDOptions;
}

/**
 * The provider module of every type. The one place that lists them: adding a type means adding
 * its module here (and its name to `PROVIDER_TYPES` in @paymesh/contracts).
 */
function modules(opts: AdapterOptions | null) {
  const bind = <C extends CredentialValue, O>(m: ProviderModule<C, O>, o: O | null): ProviderModule<C, null> => ({
    ...m,
    createAdapter: (c) => {
      if (o === null) throw new DomainError('internal', `no adapter options for ${m.type}`);
      return m.createAdapter(c, o);
    },
  });
  return {
    provider_a: bind(providerAModule, opts?.provider_a ?? null),
    provider_b: bind(providerBModule, opts?.provider_b ?? null),
    provider_c: bind(providerCModule, opts?.provider_c ?? null),
    provider_d: bind(providerDModule, opts?.provider_d ?? null),
  } satisfies Record<ProviderType, ProviderModule>;
}

const DESCRIPTORS = modules(null);

/** The module of a provider type (credential rules, masking, webhook registration). */
export function moduleOf(type: ProviderType): ProviderModule {
  return DESCRIPTORS[type];
}

/** Opened credentials of a record: its type and the value its module's schema produced. */
export interface ProviderCredentials {
  type: ProviderType;
  value: CredentialValue;
}

/** Builds the adapter of a provider record from its opened credentials. */
export type AdapterFactory = (credentials: ProviderCredentials) => PaymentAdapter;

/** The adapter per provider type; types without one answer NotSupported (never a silent stub). */
export function adapterFactory(opts: AdapterOptions): AdapterFactory {
  const bound: Record<ProviderType, ProviderModule> = modules(opts);
  return (credentials) => bound[credentials.type].createAdapter(credentials.value, null);
}
