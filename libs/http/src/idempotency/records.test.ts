import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock, SecretBox, type DomainError } from '@paymesh/core';
import { MemoryIdempotencyCollection } from './memory';
import { IdempotencyRecords, type Begun, type Claim, type IdempotencyRecordsOptions } from './records';

const answer = {
  status: 201,
  contentType: 'application/json; charset=utf-8',
  body: '{"id":"c1","secret":"whsec_abc"}',
};

function setup(over: Partial<IdempotencyRecordsOptions> = {}) {
  const clock = new ManualClock('2026-05-01T12:00:00.000Z');
  const collection = new MemoryIdempotencyCollection();
  const sleeps: number[] = [];
  const records = new IdempotencyRecords({
    collection,
    sealer: new SecretBox(`k1:${randomBytes(32).toString('base64')}`),
    clock,
    // Waiting moves the manual clock, so a bounded wait ends without real time passing.
    sleep: async (ms) => {
      sleeps.push(ms);
      clock.advance(ms);
    },
    ...over,
  });
  return { clock, collection, records, sleeps };
}

const claimOf = (b: Begun): Claim => {
  if (b.kind !== 'claimed') throw new Error(`expected a claim, got ${b.kind}`);
  return b.claim;
};

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return (err as DomainError).code;
  }
}

describe('Idempotency-Key records', () => {
  it('claim, keep, replay: the kept answer comes back as it was, sealed at rest', async () => {
    const { records, collection } = setup();
    const claim = claimOf(await records.begin('key:a', 'k1', 'f1'));
    expect(await records.complete(claim, answer)).toBe(true);
    expect(await records.begin('key:a', 'k1', 'f1')).toEqual({ kind: 'replay', answer });
    const stored = JSON.stringify([...collection.docs.values()]);
    expect(stored).not.toContain('whsec_abc');
    expect(stored).toContain('"state":"done"');
  });

  it('keeps a binary answer byte for byte', async () => {
    const { records } = setup();
    const bytes = Buffer.from([0, 1, 2, 255]);
    await records.complete(claimOf(await records.begin('key:a', 'bin', 'f1')), {
      status: 200,
      contentType: 'application/octet-stream',
      body: bytes,
    });
    const again = await records.begin('key:a', 'bin', 'f1');
    expect(again.kind === 'replay' && Buffer.isBuffer(again.answer.body) && again.answer.body.equals(bytes)).toBe(true);
  });

  it('refuses the key for another request, pending or done; another scope is another key', async () => {
    const { records } = setup();
    const claim = claimOf(await records.begin('key:a', 'k1', 'f1'));
    expect(await codeOf(records.begin('key:a', 'k1', 'f2'))).toBe('IDEMPOTENCY_KEY_REUSED');
    await records.complete(claim, answer);
    expect(await codeOf(records.begin('key:a', 'k1', 'f2'))).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await records.begin('key:b', 'k1', 'f2')).kind).toBe('claimed');
  });

  it('lets exactly one of many concurrent requests claim a key; the others get its answer', async () => {
    // The records' own wait between looks at a pending claim (part of the code under test), shortened.
    const { records } = setup({ sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 5))) });
    const results = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const b = await records.begin('key:a', 'race', 'f1');
        if (b.kind === 'claimed') {
          await records.complete(b.claim, answer);
          return 'ran';
        }
        return b.answer.body;
      }),
    );
    expect(results.filter((r) => r === 'ran')).toHaveLength(1);
    expect(results.filter((r) => r === answer.body)).toHaveLength(4);
  });

  it('waits for a running first request with growing pauses, then answers 409 IDEMPOTENCY_KEY_IN_PROGRESS', async () => {
    const { records, sleeps } = setup({ waitMs: 2_000 });
    claimOf(await records.begin('key:a', 'slow', 'f1'));
    expect(await codeOf(records.begin('key:a', 'slow', 'f1'))).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
    expect(sleeps[0]).toBe(25);
    expect(sleeps.reduce((a, b) => a + b, 0)).toBe(2_000);
  });

  it('replays to a waiting request once the first one completes', async () => {
    const held: { records?: IdempotencyRecords; claim?: Claim } = {};
    let looks = 0;
    const { records } = setup({
      sleep: async () => {
        if (++looks === 3) await held.records!.complete(held.claim!, answer);
      },
    });
    held.records = records;
    held.claim = claimOf(await records.begin('key:a', 'k1', 'f1'));
    expect(await records.begin('key:a', 'k1', 'f1')).toEqual({ kind: 'replay', answer });
    expect(looks).toBe(3);
  });

  it('a released claim (a 5xx) runs again, with any body', async () => {
    const { records } = setup();
    expect(await records.release(claimOf(await records.begin('key:a', 'k1', 'f1')))).toBe(true);
    expect((await records.begin('key:a', 'k1', 'f2')).kind).toBe('claimed');
  });

  it('takes over a claim whose holder died (lease over); the late holder keeps nothing', async () => {
    const { records, clock } = setup({ leaseMs: 60_000, waitMs: 0 });
    const dead = claimOf(await records.begin('key:a', 'k1', 'f1'));
    clock.advance(59_999);
    expect(await codeOf(records.begin('key:a', 'k1', 'f1'))).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
    clock.advance(1);
    const next = claimOf(await records.begin('key:a', 'k1', 'f1'));
    expect(await records.complete(dead, { ...answer, body: '{"late":true}' })).toBe(false);
    expect(await records.release(dead)).toBe(false);
    expect(await records.complete(next, answer)).toBe(true);
    expect(await records.begin('key:a', 'k1', 'f1')).toEqual({ kind: 'replay', answer });
  });

  it('renews the lease of a live holder, so a long request keeps its key; its answer is kept after renewals', async () => {
    const { records, clock } = setup({ leaseMs: 60_000, waitMs: 0 });
    const held = claimOf(await records.begin('key:a', 'long', 'f1'));
    for (let i = 0; i < 5; i++) {
      clock.advance(40_000);
      expect(await records.renew(held)).toBe(true);
    }
    clock.advance(40_000);
    expect(await codeOf(records.begin('key:a', 'long', 'f1'))).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
    expect(await records.complete(held, answer)).toBe(true);
    expect(await records.renew(held)).toBe(false);
    expect((await records.begin('key:a', 'long', 'f1')).kind).toBe('replay');
  });

  it('a holder whose claim was taken over stops renewing it', async () => {
    const { records, clock } = setup({ leaseMs: 60_000, waitMs: 0 });
    const dead = claimOf(await records.begin('key:a', 'k2', 'f1'));
    clock.advance(60_000);
    const next = claimOf(await records.begin('key:a', 'k2', 'f1'));
    expect(await records.renew(dead)).toBe(false);
    expect(dead.settled).toBe(true);
    expect(await records.renew(next)).toBe(true);
    await records.release(next);
  });

  it('treats a record older than 24 h as absent: the key is free again, for any body', async () => {
    const { records, clock } = setup();
    await records.complete(claimOf(await records.begin('key:a', 'k1', 'f1')), answer);
    clock.advance(24 * 3_600_000 - 1);
    expect((await records.begin('key:a', 'k1', 'f1')).kind).toBe('replay');
    clock.advance(1);
    expect((await records.begin('key:a', 'k1', 'f2')).kind).toBe('claimed');
  });

  it('removes expired records in bounded batches and leaves live ones', async () => {
    const { records, clock, collection } = setup();
    for (let i = 0; i < 5; i++) await records.complete(claimOf(await records.begin('key:a', `old-${i}`, 'f1')), answer);
    clock.advance(12 * 3_600_000);
    await records.complete(claimOf(await records.begin('key:a', 'young', 'f1')), answer);
    clock.advance(12 * 3_600_000);
    expect(await records.purgeExpired(3)).toBe(3);
    expect(await records.purgeExpired(3)).toBe(2);
    expect(await records.purgeExpired(3)).toBe(0);
    expect([...collection.docs.values()].map((d) => d.key)).toEqual(['young']);
  });
});
