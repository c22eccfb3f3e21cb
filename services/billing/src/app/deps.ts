import type { Clock, Logger, SecretBox, TenantKey } from '@paymesh/core';
import type { DocumentStore } from '@paymesh/store';

/** What the billing use cases need; assembled in main.ts. */
export interface BillingDeps {
  store: DocumentStore;
  secrets: SecretBox;
  clock: Clock;
  logger: Logger;
}

/** Tenant and data mode a request acts on. */
/** One organization in one data mode (the shared tenant key). */
export type OrgKey = TenantKey;
