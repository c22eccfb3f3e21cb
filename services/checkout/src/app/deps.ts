import type { Clock, Logger, SecretBox } from '@paymesh/core';
import type { DocumentStore } from '@paymesh/store';
import type { Committer } from '@paymesh/bus';
import type { EventMap } from '@paymesh/contracts';
import type { DnsResolver } from '../dns/resolver';

/** What the checkout use cases need; assembled in main.ts. */
export interface CheckoutDeps {
  store: DocumentStore;
  /** Saves state with its events (outbox) and publishes them after the commit. */
  outbox: Pick<Committer<EventMap>, 'commit'>;
  secrets: SecretBox;
  clock: Clock;
  logger: Logger;
  customDomains: {
    resolver: DnsResolver;
    /** Host name custom domains must CNAME to. */
    cnameTarget: string;
  };
}
