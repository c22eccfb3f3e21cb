import type { Clock, Logger, SecretBox } from '@paymesh/core';
import type { DocumentStore } from '@paymesh/store';

/** What the billing use cases need; assembled in main.ts. */
export interface BillingDeps {
  store: DocumentStore;
  secrets: SecretBox;
  clock: Clock;
  logger: Logger;
}

/** Tenant and data mode a request acts on. */
export interface OrgKey {
  organizationId: string;
  mode: 'live' | 'test';
}
