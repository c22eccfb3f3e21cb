import { NotSupportedError } from '@paymesh/core';
import type { ProviderCredentials } from '../domain/credentials';
import type { PaymentAdapter } from './adapter';
import { ProviderAAdapter, type ProviderAOptions } from './provider-a/adapter';

export interface AdapterOptions {
  providerA: ProviderAOptions;
}

/** Builds the adapter of a provider record from its opened credentials. */
export type AdapterFactory = (credentials: ProviderCredentials) => PaymentAdapter;

/** The adapter per provider type; types without one answer NotSupported (never a silent stub). */
export function adapterFactory(opts: AdapterOptions): AdapterFactory {
  return (credentials) => {
    switch (credentials.type) {
      case 'provider_a':
        return new ProviderAAdapter(credentials.value, opts.providerA);
      case 'provider_b':
      case 'provider_c':
      case 'provider_d':
        throw new NotSupportedError(`payments with ${credentials.type} are not supported yet`);
    }
  };
}
