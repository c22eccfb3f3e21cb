import { describe, expect, it } from 'vitest';
import type { DocumentEmailRecord } from '@paymesh/contracts';
import { withOutcome, withSend } from './email-log';

const send: DocumentEmailRecord = {
  emailId: 'e1',
  at: '2026-06-15T10:00:00.000Z',
  to: ['buyer@example.com'],
  cc: ['books@example.com'],
  subject: 'Invoice INV-1 from Shop',
  state: 'queued',
  detail: null,
  settledAt: null,
};
const delivered = {
  emailId: 'e1',
  to: ['buyer@example.com'],
  state: 'sent' as const,
  detail: '250 OK queued',
  at: '2026-06-15T10:00:02.000Z',
};

describe('record of e-mail sends', () => {
  it('appends a queued send and settles it once', () => {
    const queued = withSend([], send);
    expect(queued).toEqual([send]);
    const settled = withOutcome(queued!, delivered);
    expect(settled).toEqual([
      { ...send, state: 'sent', detail: '250 OK queued', settledAt: '2026-06-15T10:00:02.000Z' },
    ]);
    // A redelivered outcome, or a later contrary one, changes nothing.
    expect(withOutcome(settled!, delivered)).toBeNull();
    expect(withOutcome(settled!, { ...delivered, state: 'failed', detail: 'x' })).toBeNull();
  });

  it('records a retried send once', () => {
    expect(withSend([send], send)).toBeNull();
    expect(withSend(withOutcome([send], delivered)!, send)).toBeNull();
  });

  it('keeps an outcome that arrived before its send was recorded, and completes it', () => {
    const early = withOutcome([], { ...delivered, state: 'failed', detail: '550 no such user' })!;
    expect(early).toEqual([
      {
        emailId: 'e1',
        at: delivered.at,
        to: ['buyer@example.com'],
        cc: [],
        subject: '',
        state: 'failed',
        detail: '550 no such user',
        settledAt: delivered.at,
      },
    ]);
    const completed = withSend(early, send);
    expect(completed).toEqual([{ ...send, state: 'failed', detail: '550 no such user', settledAt: delivered.at }]);
  });

  it('leaves other sends alone', () => {
    const other = { ...send, emailId: 'e0', state: 'sent' as const, detail: '250', settledAt: send.at };
    expect(withOutcome([other, send], delivered)).toEqual([
      other,
      { ...send, state: 'sent', detail: '250 OK queued', settledAt: delivered.at },
    ]);
  });
});
