/**
 * The pure rules of Idempotency-Key: what a request does with the record it finds, and which
 * answers are kept for replay. The store-backed part (records.ts) only carries them out.
 */

export type RecordState = 'pending' | 'done' | 'released';

/** The parts of a stored key record the decision looks at. */
export interface RecordView {
  fingerprint: string;
  state: RecordState;
  /** ISO time until which a pending claim's holder is presumed alive. */
  leaseUntil: string;
  /** ISO time after which the record counts as absent. */
  expiresAt: string;
}

/**
 * - `claim`: run the request under this key (insert a claim, or take the record over by
 *   compare-and-set when it expired, was released or its holder's lease ran out);
 * - `replay`: answer what the first request answered;
 * - `reused`: the key belongs to another request (other body or route): 409 IDEMPOTENCY_KEY_REUSED;
 * - `wait`: the first request is still running: look again shortly.
 */
export type Decision = 'claim' | 'replay' | 'reused' | 'wait';

export function decide(found: RecordView | null, fingerprint: string, now: Date): Decision {
  if (!found) return 'claim';
  const t = now.toISOString();
  if (found.expiresAt <= t || found.state === 'released') return 'claim';
  if (found.fingerprint !== fingerprint) return 'reused';
  if (found.state === 'done') return 'replay';
  return found.leaseUntil <= t ? 'claim' : 'wait';
}

/**
 * 4xx answers that are not kept: they say nothing final about the request. 400 is the caller's
 * input (it is corrected and retried with the same key, wherever it was checked); 401 and 403 are
 * the caller's credentials or account state (a key, a role, a licence that may change); 408 and
 * 429 are transient.
 */
const NOT_KEPT_4XX: ReadonlySet<number> = new Set([400, 401, 403, 408, 429]);

/**
 * Whether an answer is stored and replayed: successes and the handler's final refusals (404, 409,
 * 422, ...). A 5xx is never kept: the work may not have happened, so the claim is released and a
 * retry with the same key runs again.
 */
export function isKeptStatus(status: number): boolean {
  if (status < 200 || status >= 500) return false;
  return !NOT_KEPT_4XX.has(status);
}

/** Pause before the n-th look (0-based) at a pending claim: 25 ms, growing by half, at most 250 ms. */
export function pollDelayMs(attempt: number): number {
  return Math.min(250, Math.round(25 * 1.5 ** attempt));
}
