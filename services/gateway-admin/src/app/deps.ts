import type { Clock, Logger } from '@paymesh/core';
import type { OutboxRelay } from '@paymesh/bus';
import type { DocumentStore } from '@paymesh/store';
import type { Clients } from '../clients';

/** What the gateway's use cases need; assembled in main.ts. */
export interface AdminDeps {
  store: DocumentStore;
  relay: OutboxRelay;
  clock: Clock;
  logger: Logger;
  clients: Clients;
}
