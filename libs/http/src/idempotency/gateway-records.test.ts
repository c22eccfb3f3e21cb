import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock, SecretBox, type DomainError } from '@paymesh/core';
import { gatewayIdempotencyRecords } from './gateway-records';
import { MemoryIdempotencyCollection } from './memory';

const keyring = `k1:${randomBytes(32).toString('base64')}`;
const answer = {
  status: 201,
  contentType: 'application/json; charset=utf-8',
  body: '{"id":"c1","secret":"whsec_abc"}',
};

function storeOf(collection: MemoryIdempotencyCollection) {
  const asked: string[] = [];
  return {
    asked,
    store: {
      collection(name: 'idempotency_keys') {
        asked.push(name);
        return collection;
      },
    },
  };
}

describe('gatewayIdempotencyRecords', () => {
  it('keeps records in the idempotency_keys collection, answers sealed with the keyring, dated by the clock', async () => {
    const collection = new MemoryIdempotencyCollection();
    const { store, asked } = storeOf(collection);
    const clock = new ManualClock('2026-05-01T12:00:00.000Z');
    const records = gatewayIdempotencyRecords({ store, keyring, clock });
    expect(asked).toEqual(['idempotency_keys']);

    const begun = await records.begin('session:s1', 'k1', 'f1');
    if (begun.kind !== 'claimed') throw new Error(`expected a claim, got ${begun.kind}`);
    await records.complete(begun.claim, answer);

    const [doc] = [...collection.docs.values()];
    expect(doc?.createdAt).toBe('2026-05-01T12:00:00.000Z');
    expect(JSON.stringify(doc)).not.toContain('whsec_abc');
    const sealed = doc?.answer?.body;
    if (!sealed) throw new Error('no kept answer');
    expect(new SecretBox(keyring).open(sealed, JSON.stringify(['idempotency', 'session:s1', 'k1']))).toBe(answer.body);
    expect(await records.begin('session:s1', 'k1', 'f1')).toEqual({ kind: 'replay', answer });
  });

  it('waits waitMs for a pending claim of the same request, then answers IDEMPOTENCY_KEY_IN_PROGRESS', async () => {
    const { store } = storeOf(new MemoryIdempotencyCollection());
    const records = gatewayIdempotencyRecords({ store, keyring, waitMs: 40 });
    const begun = await records.begin('session:s1', 'k1', 'f1');
    const started = Date.now();
    const code = await records.begin('session:s1', 'k1', 'f1').then(
      () => undefined,
      (err: DomainError) => err.code,
    );
    expect(code).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
    expect(Date.now() - started).toBeLessThan(2_000);
    if (begun.kind === 'claimed') await records.release(begun.claim);
  });
});
