import type { Clock, Logger, SecretBox } from '@paymesh/core';
import type { DocumentStore } from '@paymesh/store';
import type { OutboxRelay } from '@paymesh/bus';
import type { CnameResolver } from '../dns/resolver';

/** What the checkout use cases need; assembled in main.ts. */
export interface CheckoutDeps {
  store: DocumentStore;
  relay: Pick<OutboxRelay, 'nudge'>;
  secrets: SecretBox;
  clock: Clock;
  logger: Logger;
  customDomains: {
    resolver: CnameResolver;
    /** Host name custom domains must CNAME to. */
    cnameTarget: string;
  };
}
