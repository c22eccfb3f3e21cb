import { checkout } from '@paymesh/proto';
import { call, makeClient } from '@paymesh/grpc';
import type { EventCache } from '@paymesh/bus';
import type { SigningSecrets } from '../app/deps';

/**
 * Reads a site's signing secret from checkout (`GetSiteSigningSecret`) at delivery time, through
 * `cache` when given: a per-process cache that checkout's site events (secret rotated, site
 * deleted) drop in every replica as they are published.
 */
export class CheckoutSigningSecrets implements SigningSecrets {
  private readonly client: checkout.CheckoutServiceClient;
  private readonly deadlineMs: number;

  constructor(
    address: string,
    deadlineMs: number,
    private readonly cache?: EventCache,
  ) {
    this.client = makeClient(checkout.CheckoutServiceClient, address);
    this.deadlineMs = deadlineMs;
  }

  get(organizationId: string, siteId: string): Promise<string> {
    const load = async () => {
      const res = await call(
        this.client,
        this.client.getSiteSigningSecret,
        { organizationId, siteId },
        { deadlineMs: this.deadlineMs, target: 'checkout' },
      );
      return res.secret;
    };
    return this.cache ? this.cache.read(`${organizationId} ${siteId}`, load) : load();
  }

  close(): void {
    this.cache?.close();
    this.client.close();
  }
}
