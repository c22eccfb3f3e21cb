import type { Clock, Logger, TenantKey } from '@paymesh/core';
import type { DocumentStore } from '@paymesh/store';
import type { RateBookCache } from './rate-book-cache';
import type { VatIdChecker } from './vat-id-port';

/** What the tax use cases need; assembled in main.ts. */
export interface TaxDeps {
  store: DocumentStore;
  clock: Clock;
  logger: Logger;
  vatIds: VatIdChecker;
  /** Cache of rate books for the calculation path; absent: every load reads the store. */
  rateBooks?: RateBookCache;
  /** How long a replica reuses an OSS threshold flag (default 5 s). */
  ossFlagTtlMs?: number;
}

/** Tenant and data mode a request acts on. */
/** One organization in one data mode (the shared tenant key). */
export type OrgKey = TenantKey;
