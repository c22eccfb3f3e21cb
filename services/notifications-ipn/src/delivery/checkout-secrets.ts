import { checkout } from '@paymesh/proto';
import { call, makeClient } from '@paymesh/grpc';
import type { SigningSecrets } from '../app/deps';

/** Reads a site's signing secret from checkout (`GetSiteSigningSecret`) at delivery time. */
export class CheckoutSigningSecrets implements SigningSecrets {
  private readonly client: checkout.CheckoutServiceClient;
  private readonly deadlineMs: number;

  constructor(address: string, deadlineMs: number) {
    this.client = makeClient(checkout.CheckoutServiceClient, address);
    this.deadlineMs = deadlineMs;
  }

  async get(organizationId: string, siteId: string): Promise<string> {
    const res = await call(
      this.client,
      this.client.getSiteSigningSecret,
      { organizationId, siteId },
      { deadlineMs: this.deadlineMs, target: 'checkout' },
    );
    return res.secret;
  }

  close(): void {
    this.client.close();
  }
}
