import { describe, expect, it } from 'vitest';
import {
  applyEmailOutcome,
  INTERRUPTED,
  isPermanentFailure,
  newEmail,
  planEmailClaim,
  type EmailFields,
  type SmtpOutcome,
} from './email';

const timing = { maxAttempts: 3, backoffBaseMs: 1_000, timeoutMs: 500, leaseMarginMs: 100 };
const t0 = new Date('2025-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

const email = (): EmailFields =>
  newEmail(
    {
      organizationId: 'a'.repeat(24),
      mode: 'live',
      idempotencyKey: 'k1',
      fingerprint: 'f',
      source: { kind: 'invoice', id: 'b'.repeat(24) },
      message: { to: ['x@example.test'], cc: [], subject: 's', text: 't', html: null, replyTo: null, attachments: [] },
    },
    t0,
  );

const failed = (responseCode: number): SmtpOutcome => ({
  ok: false,
  smtpResponse: `${responseCode} no`,
  responseCode,
  error: `${responseCode} no`,
  durationMs: 3,
});
const ok: SmtpOutcome = { ok: true, smtpResponse: '250 OK', responseCode: 250, error: '', durationMs: 3 };

function claim(e: EmailFields, now: Date) {
  const plan = planEmailClaim(e, now, timing);
  if (plan.kind !== 'send') throw new Error(`expected send, got ${plan.kind}`);
  return plan;
}

describe('e-mail outbox state machine', () => {
  it('claims an attempt before sending and counts it as interrupted until the outcome lands', () => {
    const plan = claim(email(), t0);
    expect(plan.attempt).toBe(1);
    expect(plan.email.attempts).toEqual([
      { number: 1, at: t0.toISOString(), result: 'interrupted', smtpResponse: '', error: INTERRUPTED, durationMs: 0 },
    ]);
    expect(plan.email.inFlightAttempt).toBe(1);
    // If the process dies, the e-mail is due again after the lease plus the backoff.
    expect(plan.email.nextAttemptAt).toBe(at(600 + 1_000).toISOString());
    expect(planEmailClaim(plan.email, at(100), timing).kind).toBe('skip');
  });

  it('retries a temporary failure with doubling backoff and fails after the last attempt', () => {
    let e = email();
    const delays: number[] = [];
    let now = t0;
    for (let n = 1; n <= 3; n++) {
      const plan = claim(e, now);
      const res = applyEmailOutcome(plan.email, n, failed(451), now, timing);
      if (!res) throw new Error('outcome dropped');
      e = res.email;
      if (n < 3) {
        expect(res).toMatchObject({ final: false, email: { state: 'pending', lastError: '451 no' } });
        const next = new Date(e.nextAttemptAt ?? '');
        delays.push(next.getTime() - now.getTime());
        now = next;
      } else {
        expect(res).toMatchObject({ final: true, email: { state: 'failed', nextAttemptAt: null } });
      }
    }
    expect(delays).toEqual([1_000, 2_000]);
    expect(e.attempts.map((a) => a.result)).toEqual(['failed', 'failed', 'failed']);
  });

  it('fails at once on a permanent (5xx) refusal and succeeds on acceptance', () => {
    expect(isPermanentFailure(failed(550))).toBe(true);
    expect(isPermanentFailure(failed(421))).toBe(false);
    expect(isPermanentFailure(failed(0))).toBe(false);
    const plan = claim(email(), t0);
    expect(applyEmailOutcome(plan.email, 1, failed(550), t0, timing)).toMatchObject({
      final: true,
      email: { state: 'failed', lastError: '550 no' },
    });
    const sent = applyEmailOutcome(plan.email, 1, ok, t0, timing);
    expect(sent).toMatchObject({
      final: true,
      email: { state: 'sent', lastError: null, nextAttemptAt: null, inFlightAttempt: null },
    });
    expect(sent?.email.attempts[0]).toMatchObject({ result: 'sent', smtpResponse: '250 OK', error: '' });
  });

  it('drops a late outcome and ends an e-mail whose last attempt was interrupted', () => {
    const plan = claim(email(), t0);
    expect(applyEmailOutcome(plan.email, 2, ok, t0, timing)).toBeNull();
    // While the lease runs, a second claim waits instead of sending beside it.
    const early = { ...plan.email, nextAttemptAt: t0.toISOString() };
    expect(planEmailClaim(early, at(100), timing).kind).toBe('wait');
    let e = plan.email;
    e = claim(e, new Date(e.nextAttemptAt ?? '')).email;
    e = claim(e, new Date(e.nextAttemptAt ?? '')).email;
    const last = planEmailClaim(e, new Date(e.nextAttemptAt ?? ''), timing);
    expect(last).toMatchObject({ kind: 'exhausted', email: { state: 'failed', lastError: INTERRUPTED } });
  });
});
