import { randomUUID } from 'node:crypto';
import { ValidationError } from '@paymesh/core';
import { eventId } from './event-id';
import { assertEventSubject } from './subjects';

/**
 * What every event on the bus looks like (the JSON body of the NATS message).
 *
 * @typeParam T - shape of `data`; `unknown` unless a subscriber decodes it.
 */
export interface EventEnvelope<T = unknown> {
  /** Deterministic id (see {@link eventId}); also the `Nats-Msg-Id`, so it deduplicates. */
  id: string;
  /** The event subject, `<domain>.<entity>.<past-verb>`, e.g. `payments.transaction.status_changed`. */
  type: string;
  /** Schema version of `data` for this type, an integer from 1. */
  version: number;
  /** ISO-8601 time the fact happened (not when it was published). */
  occurredAt: string;
  /** The event payload; must be JSON-serializable. */
  data: T;
}

/** Optional fields of {@link makeEvent}. */
export interface MakeEventOptions {
  /** Event id; pass `eventId(...)` of the fact so republishing is deduplicated. Default: a random `v1:` id. */
  id?: string;
  /** Schema version of `data`; default 1. */
  version?: number;
  /** When the fact happened; default now. */
  occurredAt?: Date | string;
}

/**
 * Builds an event envelope, validating the subject and the options.
 *
 * Without `opts.id` the event gets a random id, so two calls never deduplicate; for facts that may
 * be emitted more than once (retries, outbox republish) pass `id: eventId(...)`.
 *
 * @throws ValidationError for a malformed subject, version or timestamp.
 */
export function makeEvent<T>(type: string, data: T, opts: MakeEventOptions = {}): EventEnvelope<T> {
  assertEventSubject(type);
  const version = opts.version ?? 1;
  if (!Number.isInteger(version) || version < 1) {
    throw new ValidationError(`event version must be an integer >= 1, got ${String(version)}`, { field: 'version' });
  }
  const id = opts.id ?? eventId(type, randomUUID());
  if (id.length === 0 || id.length > 256) {
    throw new ValidationError('event id must be 1 to 256 characters', { field: 'id' });
  }
  return { id, type, version, occurredAt: toIsoTime(opts.occurredAt), data };
}

function toIsoTime(value: Date | string | undefined): string {
  if (value === undefined) return new Date().toISOString();
  const date = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) {
    throw new ValidationError(`invalid occurredAt "${String(value)}"`, { field: 'occurredAt' });
  }
  return date.toISOString();
}

/** Type guard: whether `value` has the envelope's shape (the `data` field may hold anything). */
export function isEventEnvelope(value: unknown): value is EventEnvelope {
  if (typeof value !== 'object' || value === null) return false;
  if (!('id' in value && 'type' in value && 'version' in value && 'occurredAt' in value && 'data' in value)) {
    return false;
  }
  return (
    typeof value.id === 'string' &&
    value.id.length > 0 &&
    typeof value.type === 'string' &&
    typeof value.version === 'number' &&
    Number.isInteger(value.version) &&
    typeof value.occurredAt === 'string'
  );
}

/**
 * Parses a message body into an envelope.
 *
 * @throws ValidationError when the body is not JSON or not an envelope.
 */
export function decodeEnvelope(body: Uint8Array | string): EventEnvelope {
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ValidationError('event body is not valid JSON', { cause: err, code: 'EVENT_NOT_JSON' });
  }
  if (!isEventEnvelope(parsed)) {
    throw new ValidationError('event body is not an event envelope', { code: 'EVENT_NOT_ENVELOPE' });
  }
  return parsed;
}
