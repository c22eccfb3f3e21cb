import { LRUCache } from 'lru-cache';
import type { SealedValue } from '@paymesh/core';
import type { ProviderCredentials } from '../domain/credentials';
import type { PaymentAdapter } from './adapter';
import type { AdapterFactory } from './registry';

/** The part of a stored provider record the cache looks at. */
export interface AdapterRecord {
  id: string;
  credentials: SealedValue;
}

export interface AdapterCacheOptions {
  /** Most records whose clients are kept (least recently used go first). */
  max?: number;
  /** Idle time after which a client (and the secret it holds) is dropped. */
  ttlMs?: number;
}

interface Entry {
  fingerprint: string;
  adapter: PaymentAdapter;
}

/**
 * Provider adapters (and the SDK client each one wraps) of stored records, built once per record
 * and credentials instead of per request: building an SDK client costs more CPU than the request
 * it serves. An entry is keyed by record id and remembers which sealed credentials it was built
 * from; every seal has a fresh IV and tag, so a record whose credentials changed (here or on
 * another replica) no longer matches and is rebuilt on the very call that reads it.
 */
export class ProviderAdapters {
  private readonly entries: LRUCache<string, Entry>;

  constructor(
    private readonly factory: AdapterFactory,
    opts: AdapterCacheOptions = {},
  ) {
    this.entries = new LRUCache<string, Entry>({
      max: opts.max ?? 1000,
      ttl: opts.ttlMs ?? 30 * 60_000,
      updateAgeOnGet: true,
    });
  }

  /** An adapter for credentials not (yet) stored in a record; never cached. */
  build(credentials: ProviderCredentials): PaymentAdapter {
    return this.factory(credentials);
  }

  /**
   * The adapter of a stored record. `open` (decrypt and validate the credentials) runs only when
   * no adapter was built from exactly these sealed credentials.
   */
  forRecord(record: AdapterRecord, open: () => ProviderCredentials): PaymentAdapter {
    const fingerprint = sealFingerprint(record.credentials);
    const hit = this.entries.get(record.id);
    if (hit && hit.fingerprint === fingerprint) return hit.adapter;
    const adapter = this.factory(open());
    this.entries.set(record.id, { fingerprint, adapter });
    return adapter;
  }

  /** Drops a record's adapter (record deleted, credentials replaced). */
  forget(recordId: string): void {
    this.entries.delete(recordId);
  }

  /** Number of cached adapters. */
  get size(): number {
    return this.entries.size;
  }
}

function sealFingerprint(sealed: SealedValue): string {
  // The GCM tag authenticates the ciphertext under its IV: equal fingerprints mean equal plaintext.
  return `${sealed.kid}.${sealed.iv}.${sealed.tag}`;
}
