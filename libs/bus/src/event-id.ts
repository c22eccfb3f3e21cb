import { createHash } from 'node:crypto';
import { ValidationError } from '@paymesh/core';

/** Prefix of ids produced by {@link eventId}; bump it (and the hash input) to change the scheme. */
export const EVENT_ID_VERSION = 'v1';

/** One component of an event id: a string or a finite number (numbers are used in decimal form). */
export type EventIdPart = string | number;

/**
 * Deterministic event id: `v1:` followed by the hex SHA-256 of the parts.
 *
 * The same fact always gets the same id (e.g. `eventId('payments.transaction.status_changed',
 * transactionId, version)`), which is what makes republishing harmless: JetStream drops a second
 * message with the same `Nats-Msg-Id` inside the stream's duplicate window, and consumers can use
 * the id as an idempotency key. Parts are encoded unambiguously (`['a', 'b']` and `['a.b']`
 * differ) and numbers hash like their decimal string (`7` and `'7'` are the same part).
 *
 * @throws ValidationError when no part is given or a number is not finite.
 */
export function eventId(...parts: EventIdPart[]): string {
  if (parts.length === 0) throw new ValidationError('eventId needs at least one part');
  const normalized = parts.map((part) => {
    if (typeof part === 'number' && !Number.isFinite(part)) {
      throw new ValidationError(`eventId part must be a finite number, got ${String(part)}`);
    }
    return String(part);
  });
  const hash = createHash('sha256');
  hash.update(`${EVENT_ID_VERSION}\n`);
  // JSON encoding of a string array is injective, so distinct part lists never collide by framing.
  hash.update(JSON.stringify(normalized));
  return `${EVENT_ID_VERSION}:${hash.digest('hex')}`;
}
