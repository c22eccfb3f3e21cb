// The relay reads the store's outbox; the types are the store port's.
export type { Outbox, OutboxEvent } from '@paymesh/store';
