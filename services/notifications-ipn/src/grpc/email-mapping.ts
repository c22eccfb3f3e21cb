import type { notificationsIpn } from '@paymesh/proto';
import { INTERRUPTED } from '../domain/email';
import type { EmailDoc } from '../store/collections';

/** An outbox e-mail as the RPCs return it (no bytes: attachments by name, type and size). */
export function emailToProto(e: EmailDoc, now: Date): notificationsIpn.Email {
  const inFlight = e.inFlightAttempt !== null && e.leaseUntil !== null && e.leaseUntil > now.toISOString();
  return {
    id: e.id,
    sourceKind: e.source.kind,
    sourceId: e.source.id,
    to: e.message.to,
    cc: e.message.cc,
    subject: e.message.subject,
    state: e.state,
    attempts: e.attempts.map((a) => ({
      number: a.number,
      at: a.at,
      // The claimed attempt reads "interrupted" until its outcome lands; while its lease runs it is in progress.
      result: a.result,
      smtpResponse: a.smtpResponse,
      error: inFlight && a.number === e.inFlightAttempt && a.error === INTERRUPTED ? 'in progress' : a.error,
      durationMs: a.durationMs,
    })),
    attachments: e.message.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, size: a.size })),
    nextAttemptAt: e.nextAttemptAt ?? undefined,
    lastError: e.lastError ?? undefined,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
    testMode: e.mode === 'test',
  };
}
