import type { PaymentsPort } from './payments-port';

/** A per-process cache that payments-webhooks' provider events drop (`EventCache` of @paymesh/bus). */
export interface AnswerCache {
  read<R>(key: string, load: () => Promise<R>): Promise<R>;
}

/**
 * The payments port with the organization's provider records (read by every buyer read and
 * transaction create) served from `cache`; everything else goes to payments-webhooks. A provider
 * disabled or deleted there is refused by payments-webhooks at once, and is gone from this cache
 * as soon as its event arrives.
 */
export function withCachedProviders<P extends PaymentsPort>(port: P, cache: AnswerCache): P {
  const cached: Pick<PaymentsPort, 'getProvider' | 'listProviders'> = {
    getProvider: (ref) =>
      cache.read(`get ${ref.organizationId} ${ref.id} ${String(ref.testMode)}`, () => port.getProvider(ref)),
    listProviders: (query) =>
      cache.read(`list ${query.organizationId} ${String(query.testMode)}`, () => port.listProviders(query)),
  };
  return Object.assign(Object.create(port) as P, cached);
}
