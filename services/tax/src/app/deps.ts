import type { Clock, Logger } from '@paymesh/core';
import type { DocumentStore } from '@paymesh/store';

/** What the tax use cases need; assembled in main.ts. */
export interface TaxDeps {
  store: DocumentStore;
  clock: Clock;
  logger: Logger;
}

/** Tenant and data mode a request acts on. */
export interface OrgKey {
  organizationId: string;
  mode: 'live' | 'test';
}
