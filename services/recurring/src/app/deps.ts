import type { Clock, Logger } from '@paymesh/core';
import type { DocumentStore } from '@paymesh/store';
import type { BillingPort } from './billing-port';

export interface RecurringDeps {
  store: DocumentStore;
  billing: BillingPort;
  /** "Now" of the business rules (due dates, cancellation times). */
  clock: Clock;
  logger: Logger;
  settings: {
    /** How long a cycle claim protects a run in progress; an older claim is resumed by the next run. */
    claimLeaseMs: number;
    /** Test hooks (`now` and `holdAfter` on the process request); never in production. */
    testHooks: boolean;
  };
}
