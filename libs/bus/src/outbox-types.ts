/**
 * The two outbox types the relay needs, declared structurally to match `Outbox` and `OutboxEvent`
 * in `@paymesh/store` (libs/store/src/port.ts) field for field. Structural typing makes the store's
 * outbox assignable here without this library depending on the store's build.
 */

/** Event waiting in the outbox, written in the same transaction as the state it describes. */
export interface OutboxEvent {
  /** Deterministic event id; used as `Nats-Msg-Id` so republishing is harmless. */
  id: string;
  subject: string;
  /** JSON-serializable envelope published as the message body. */
  payload: unknown;
  /** Headers to publish with (request ID, traceparent). */
  headers: Record<string, string>;
  createdAt: string;
}

/** Read side of the transactional outbox, as used by {@link OutboxRelay}. */
export interface Outbox {
  /** Oldest unpublished events first. */
  pending(limit: number): Promise<OutboxEvent[]>;
  /** Marks events as published (removes them from the pending set). */
  markPublished(ids: string[]): Promise<void>;
}
