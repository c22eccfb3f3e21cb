import { isDomainError, isObjectId, ValidationError } from '@paymesh/core';
import type { CheckoutDoc } from '../domain/checkout';
import { PROVIDER_TYPES, type ProviderInfo } from './payments-port';
import type { PaymentsDeps } from './payments-deps';

function usable(p: ProviderInfo, checkout: Pick<CheckoutDoc, 'organizationId' | 'mode'>): boolean {
  return p.enabled && p.organizationId === checkout.organizationId && p.testMode === (checkout.mode === 'test');
}

/** Enabled providers of the checkout's organization in its mode. */
export async function enabledProviders(
  deps: PaymentsDeps,
  checkout: Pick<CheckoutDoc, 'organizationId' | 'mode'>,
): Promise<ProviderInfo[]> {
  const all = await deps.payments.listProviders({
    organizationId: checkout.organizationId,
    testMode: checkout.mode === 'test',
  });
  return all.filter((p) => usable(p, checkout));
}

/**
 * The provider a buyer picked: a provider record ID, or a provider type naming the organization's
 * (first) enabled provider of that type, since the public view lists types. Unknown, disabled,
 * foreign or wrong-mode providers are invalid input (400).
 */
export async function resolveProvider(
  deps: PaymentsDeps,
  checkout: Pick<CheckoutDoc, 'organizationId' | 'mode'>,
  providerId: string,
): Promise<ProviderInfo> {
  const value = providerId.trim();
  if (isObjectId(value)) {
    let provider: ProviderInfo;
    try {
      provider = await deps.payments.getProvider({
        organizationId: checkout.organizationId,
        id: value,
        testMode: checkout.mode === 'test',
      });
    } catch (err) {
      if (isDomainError(err) && err.kind === 'not_found')
        throw new ValidationError('providerId: no such provider', { field: 'providerId' });
      throw err;
    }
    if (!usable(provider, checkout))
      throw new ValidationError('providerId: provider is not available for this checkout', { field: 'providerId' });
    return provider;
  }
  const type = PROVIDER_TYPES.find((t) => t === value);
  if (!type) throw new ValidationError('providerId must be a provider ID or a provider type', { field: 'providerId' });
  const match = (await enabledProviders(deps, checkout)).find((p) => p.type === type);
  if (!match)
    throw new ValidationError(`providerId: no enabled ${type} provider for this checkout`, { field: 'providerId' });
  return match;
}
