import type { PaymentDoc, PaymentOutcome } from './payment';

/** How the reconciler looks at payments the provider has not reported on. */
export interface ReconcileOptions {
  /** A payment is first asked about this long after it was started (webhooks usually come first). */
  minPendingAgeMs: number;
  /** Pause between two looks at the same payment, doubled after each look up to 16 times. */
  intervalMs: number;
  /** After this age a payment is no longer asked about (the provider will not change it any more). */
  maxAgeMs: number;
}

/** Stored statuses that may still change at the provider without us having heard. */
const UNSETTLED: ReadonlySet<PaymentOutcome> = new Set(['pending', 'failed']);

export const UNSETTLED_STATUSES: readonly PaymentOutcome[] = [...UNSETTLED];

/** When a payment started at `createdAt` is first due for a look. */
export function firstReconcileAt(createdAt: Date, opts: ReconcileOptions): string {
  return new Date(createdAt.getTime() + opts.minPendingAgeMs).toISOString();
}

/**
 * When to look at a payment again after a look at `now`: the interval doubles with each look
 * already made (`looks`, counting this one), capped at 16 intervals; null once the payment is
 * older than `maxAgeMs` (it is then left to webhooks alone).
 */
export function nextReconcileAt(createdAt: Date, now: Date, looks: number, opts: ReconcileOptions): string | null {
  const factor = 2 ** Math.min(Math.max(looks - 1, 0), 4);
  const next = now.getTime() + opts.intervalMs * factor;
  if (next - createdAt.getTime() > opts.maxAgeMs) return null;
  return new Date(next).toISOString();
}

/** Whether a stored payment is due for a look at `now`. */
export function isReconcileDue(p: Pick<PaymentDoc, 'status' | 'reconcileAt'>, now: Date): boolean {
  return UNSETTLED.has(p.status) && typeof p.reconcileAt === 'string' && p.reconcileAt <= now.toISOString();
}

/**
 * The outcome a look at the provider settles, or null when it tells nothing new: the provider
 * still has it pending (never guessed: the webhook or a later look settles it), it says what we
 * already stored, or our record is already final.
 */
export function reconciledOutcome(stored: PaymentOutcome, fetched: PaymentOutcome): PaymentOutcome | null {
  if (!UNSETTLED.has(stored)) return null;
  if (fetched === 'pending' || fetched === stored) return null;
  return fetched;
}

/**
 * Claim key of "this payment reached this outcome" per provider record, written beside every
 * provider event claim that reports a final outcome (succeeded, cancelled) and by the reconciler
 * for any outcome it applies: a webhook arriving after the reconciler applied the same outcome
 * (or the other way round) collides with it and is a duplicate.
 */
export function outcomeClaimId(providerPaymentId: string, outcome: PaymentOutcome): string {
  return `outcome:${providerPaymentId}:${outcome}`;
}

/** Outcomes that happen at most once per payment, so every report of them takes the outcome claim. */
export function claimsOutcome(outcome: PaymentOutcome): boolean {
  return outcome === 'succeeded' || outcome === 'cancelled';
}
