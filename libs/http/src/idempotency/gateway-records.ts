import { SecretBox, type Clock } from '@paymesh/core';
import { IDEMPOTENCY_KEYS, IdempotencyRecords, type IdempotencyCollection } from './records';

/** Where a gateway keeps its key records (a `DocumentStore` of @paymesh/store is one). */
export interface IdempotencyRecordStore {
  collection(name: typeof IDEMPOTENCY_KEYS): IdempotencyCollection;
}

export interface GatewayIdempotencyRecordsOptions {
  store: IdempotencyRecordStore;
  /** The gateway's SECRETS_KEYRING: kept answers are sealed with it. */
  keyring: string;
  clock?: Clock;
  /** How long a request waits for a pending claim of the same request (the records' default when absent or 0). */
  waitMs?: number;
}

/** A gateway's Idempotency-Key records: in its own store, answers sealed with its SECRETS_KEYRING. */
export function gatewayIdempotencyRecords(opts: GatewayIdempotencyRecordsOptions): IdempotencyRecords {
  return new IdempotencyRecords({
    collection: opts.store.collection(IDEMPOTENCY_KEYS),
    sealer: new SecretBox(opts.keyring),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.waitMs ? { waitMs: opts.waitMs } : {}),
  });
}
