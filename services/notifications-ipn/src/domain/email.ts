/**
 * The e-mail outbox state machine (pure; no I/O).
 *
 * One document per message, keyed by the caller's idempotency key. Like an IPN delivery, each
 * SMTP attempt is *claimed* before it is made: the attempt is appended as "interrupted" and the
 * retry pre-scheduled, then the outcome overwrites it. A crash mid-send therefore still counts the
 * attempt, so no message is handed to the SMTP server more than `maxAttempts` times.
 * An answer with a 5xx SMTP code is permanent (the server will never take it): failed at once.
 */
import { backoffDelayMs, exhausted } from './delivery';

export const INTERRUPTED = 'interrupted';

export type EmailState = 'pending' | 'sent' | 'failed';
export type EmailSourceKind = 'invoice' | 'credit_note' | 'portal_otp';

export interface EmailAttempt {
  number: number;
  /** ISO time the attempt was claimed (just before the SMTP conversation). */
  at: string;
  result: 'sent' | 'failed' | 'interrupted';
  /** The SMTP server's final answer on success (e.g. "250 OK: queued as ..."). */
  smtpResponse: string;
  /** Why the attempt failed; empty on success. */
  error: string;
  durationMs: number;
}

/** Attachment as listed on the message; the bytes are in their own collection. */
export interface AttachmentRef {
  attachmentId: string;
  filename: string;
  contentType: string;
  size: number;
}

export interface EmailMessage {
  to: string[];
  cc: string[];
  subject: string;
  text: string;
  html: string | null;
  replyTo: string | null;
  /** From display name (absent on e-mails queued before it existed: MAIL_FROM's own). */
  fromName?: string | null;
  /**
   * From address: a verified merchant sender (absent or null: MAIL_FROM's). The envelope sender
   * (MAIL FROM, where bounces go) stays MAIL_FROM's either way.
   */
  fromAddress?: string | null;
  attachments: AttachmentRef[];
}

export interface EmailFields {
  organizationId: string;
  mode: 'live' | 'test';
  idempotencyKey: string;
  /** Fingerprint of the enqueued message: a reused key with another message is refused. */
  fingerprint: string;
  source: { kind: EmailSourceKind; id: string };
  message: EmailMessage;
  state: EmailState;
  attempts: EmailAttempt[];
  nextAttemptAt: string | null;
  leaseUntil: string | null;
  inFlightAttempt: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface EmailTiming {
  maxAttempts: number;
  /** Delay before attempt 2; each later one doubles it. */
  backoffBaseMs: number;
  /** Longest one SMTP conversation may take. */
  timeoutMs: number;
  leaseMarginMs: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function newEmail(
  input: Pick<EmailFields, 'organizationId' | 'mode' | 'idempotencyKey' | 'fingerprint' | 'source' | 'message'>,
  now: Date,
): EmailFields {
  const at = now.toISOString();
  return {
    ...input,
    state: 'pending',
    attempts: [],
    nextAttemptAt: at,
    leaseUntil: null,
    inFlightAttempt: null,
    lastError: null,
    createdAt: at,
    updatedAt: at,
  };
}

export function isEmailDue(e: Pick<EmailFields, 'state' | 'nextAttemptAt'>, now: Date): boolean {
  return e.state === 'pending' && e.nextAttemptAt !== null && e.nextAttemptAt <= now.toISOString();
}

export type EmailClaim =
  | { kind: 'skip' }
  /** Its own earlier attempt is still running somewhere: look again when its lease ends. */
  | { kind: 'wait'; email: EmailFields }
  /** Every attempt was used (the last one was interrupted): failed. Final. */
  | { kind: 'exhausted'; email: EmailFields }
  | { kind: 'send'; attempt: number; email: EmailFields };

/** Decides what to do with a due e-mail. */
export function planEmailClaim(e: EmailFields, now: Date, timing: EmailTiming): EmailClaim {
  if (!isEmailDue(e, now)) return { kind: 'skip' };
  const at = now.toISOString();
  if (e.inFlightAttempt !== null && e.leaseUntil !== null && e.leaseUntil > at) {
    return { kind: 'wait', email: { ...e, nextAttemptAt: e.leaseUntil, updatedAt: at } };
  }
  if (e.attempts.length >= timing.maxAttempts) {
    return { kind: 'exhausted', email: exhausted(e, at) };
  }
  const attempt = e.attempts.length + 1;
  const leaseEnd = now.getTime() + timing.timeoutMs + timing.leaseMarginMs;
  const retryAt = attempt < timing.maxAttempts ? leaseEnd + backoffDelayMs(attempt, timing.backoffBaseMs) : leaseEnd;
  return {
    kind: 'send',
    attempt,
    email: {
      ...e,
      attempts: [
        ...e.attempts,
        { number: attempt, at, result: 'interrupted', smtpResponse: '', error: INTERRUPTED, durationMs: 0 },
      ],
      nextAttemptAt: iso(retryAt),
      leaseUntil: iso(leaseEnd),
      inFlightAttempt: attempt,
      updatedAt: at,
    },
  };
}

/** What one SMTP conversation ended with. */
export interface SmtpOutcome {
  ok: boolean;
  /** The server's answer line (success or refusal); empty when there was none. */
  smtpResponse: string;
  /** SMTP reply code of a refusal (0 when there was none: network error, timeout). */
  responseCode: number;
  error: string;
  durationMs: number;
}

/** 5xx: the server will never accept this message; anything else may pass on a later try. */
export function isPermanentFailure(o: Pick<SmtpOutcome, 'ok' | 'responseCode'>): boolean {
  return !o.ok && o.responseCode >= 500 && o.responseCode <= 599;
}

/**
 * Records the outcome of attempt `attempt`; null when that attempt is no longer the one in flight
 * (a late outcome after its lease ran out and the e-mail moved on).
 */
export function applyEmailOutcome(
  e: EmailFields,
  attempt: number,
  outcome: SmtpOutcome,
  now: Date,
  timing: Pick<EmailTiming, 'maxAttempts' | 'backoffBaseMs'>,
): { email: EmailFields; final: boolean } | null {
  if (e.state !== 'pending' || e.inFlightAttempt !== attempt) return null;
  const at = now.toISOString();
  const attempts = e.attempts.map((a): EmailAttempt =>
    a.number === attempt
      ? {
          ...a,
          result: outcome.ok ? 'sent' : 'failed',
          smtpResponse: outcome.smtpResponse,
          error: outcome.ok ? '' : outcome.error,
          durationMs: outcome.durationMs,
        }
      : a,
  );
  const base = { ...e, attempts, leaseUntil: null, inFlightAttempt: null, updatedAt: at };
  if (outcome.ok) return { email: { ...base, state: 'sent', nextAttemptAt: null, lastError: null }, final: true };
  if (isPermanentFailure(outcome) || attempt >= timing.maxAttempts) {
    return { email: { ...base, state: 'failed', nextAttemptAt: null, lastError: outcome.error }, final: true };
  }
  const next = now.getTime() + backoffDelayMs(attempt, timing.backoffBaseMs);
  return { email: { ...base, state: 'pending', nextAttemptAt: iso(next), lastError: outcome.error }, final: false };
}
