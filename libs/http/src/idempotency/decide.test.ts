import { describe, expect, it } from 'vitest';
import { decide, isKeptStatus, pollDelayMs, type RecordView } from './decide';

const now = new Date('2026-05-01T12:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms).toISOString();
const rec = (over: Partial<RecordView> = {}): RecordView => ({
  fingerprint: 'f1',
  state: 'pending',
  leaseUntil: later(60_000),
  expiresAt: later(86_400_000),
  ...over,
});

describe('what a request does with the record it finds', () => {
  it('claims a key nobody holds: absent, expired, released, or pending past its lease', () => {
    expect(decide(null, 'f1', now)).toBe('claim');
    expect(decide(rec({ state: 'done', expiresAt: later(0) }), 'f1', now)).toBe('claim');
    expect(decide(rec({ state: 'done', expiresAt: later(-1) }), 'f2', now)).toBe('claim');
    expect(decide(rec({ state: 'released' }), 'f2', now)).toBe('claim');
    expect(decide(rec({ leaseUntil: later(-1) }), 'f1', now)).toBe('claim');
  });

  it('replays the answer of the same request and refuses another request under the key', () => {
    expect(decide(rec({ state: 'done' }), 'f1', now)).toBe('replay');
    expect(decide(rec({ state: 'done' }), 'f2', now)).toBe('reused');
    expect(decide(rec({ state: 'pending' }), 'f2', now)).toBe('reused');
  });

  it('waits for a running first request', () => {
    expect(decide(rec(), 'f1', now)).toBe('wait');
    expect(decide(rec({ leaseUntil: later(1) }), 'f1', now)).toBe('wait');
  });
});

describe('which answers are kept', () => {
  it('keeps successes and final refusals of the handler', () => {
    for (const s of [200, 201, 202, 204, 404, 409, 410, 422]) expect(isKeptStatus(s), String(s)).toBe(true);
  });

  it('keeps neither input, credential and transient refusals nor server errors', () => {
    for (const s of [400, 401, 403, 408, 429, 500, 502, 503, 504, 101]) expect(isKeptStatus(s), String(s)).toBe(false);
  });
});

describe('polling a pending claim', () => {
  it('starts short and backs off to at most 250 ms', () => {
    expect(pollDelayMs(0)).toBe(25);
    expect(pollDelayMs(1)).toBeGreaterThan(25);
    expect(pollDelayMs(20)).toBe(250);
    const delays = Array.from({ length: 10 }, (_, i) => pollDelayMs(i));
    expect([...delays].sort((a, b) => a - b)).toEqual(delays);
  });
});
