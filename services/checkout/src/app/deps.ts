import type { Clock, Logger, SecretBox } from '@paymesh/core';
import type { DocumentStore } from '@paymesh/store';
import type { OutboxRelay } from '@paymesh/bus';

/** What the checkout use cases need; assembled in main.ts. */
export interface CheckoutDeps {
  store: DocumentStore;
  relay: OutboxRelay;
  secrets: SecretBox;
  clock: Clock;
  logger: Logger;
}
