import { ValidationError } from '@paymesh/core';
import type { StoreLogger } from './logger';
import { MongoStore } from './mongodb';
import type { DocumentStore } from './port';
import { PostgresStore } from './postgres';

export * from './port';
export { ReadCache, type ReadCacheOptions } from './read-cache';
export { liveTenantRecords } from './tenant-records';
export type { StoreLogger } from './logger';
export { assertNumbering, insertNumberedInSteps, isVersionConflict, replaceArgs } from './documents';
export { PostgresStore, type PostgresStoreOptions } from './postgres';
export { MongoStore, type MongoStoreOptions } from './mongodb';

export interface CreateStoreOptions {
  /** `postgres://`, `postgresql://`, `mongodb://` or `mongodb+srv://` URL; the scheme picks the adapter. */
  url: string;
  /** The service's database name (a schema on PostgreSQL, a database on MongoDB). */
  database: string;
  logger?: StoreLogger;
  /** Most connections of the PostgreSQL pool (default 10). */
  maxConnections?: number;
  /** PostgreSQL: how long an outbox mark waits for a statement to ride with (default 250 ms; see `Outbox.markPublishedSoon`). */
  markDelayMs?: number;
}

/** A store that can also drop its whole database; both adapters are one. */
export type DroppableStore = DocumentStore & { dropDatabase(): Promise<void> };

function schemeOf(url: string): string {
  const match = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  return match?.[1]?.toLowerCase() ?? '';
}

/** Connects and prepares the store's own tables; fails fast when the server is unreachable. */
/** The store once its collections are set up; closed again when that fails. */
async function initialized<S extends DroppableStore & { init(): Promise<void> }>(store: S): Promise<S> {
  try {
    await store.init();
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

export async function createStore(options: CreateStoreOptions): Promise<DroppableStore> {
  const scheme = schemeOf(options.url);
  if (scheme === 'postgres' || scheme === 'postgresql') {
    return initialized(new PostgresStore(options));
  }
  if (scheme === 'mongodb' || scheme === 'mongodb+srv') {
    return initialized(await MongoStore.connect(options));
  }
  throw new ValidationError(`unsupported store URL scheme: ${scheme || '(none)'}`);
}

/** Drops a service's schema (PostgreSQL) or database (MongoDB) with everything in it. For tests. */
export async function dropStoreDatabase(options: CreateStoreOptions): Promise<void> {
  const store = await createStore(options);
  try {
    await store.dropDatabase();
  } finally {
    await store.close();
  }
}
export * from './org-settings';
export * from './org-settings-kind';
export { TEST_PG_URL } from './test-url';
