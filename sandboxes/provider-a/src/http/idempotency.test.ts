import { describe, expect, it } from 'vitest';
import { letTimePass } from '../../../../test/support/kit';
import { ApiError } from '../errors';
import { canonicalJson, IdempotencyStore } from './idempotency';

describe('canonicalJson', () => {
  it('ignores key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 2], c: 'x' } })).toBe(canonicalJson({ a: { c: 'x', d: [1, 2] }, b: 1 }));
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
  });
});

describe('IdempotencyStore', () => {
  const ok = (body: string) => async () => ({ status: 200, body, store: true });

  it('replays, rejects other parameters and expires after a day', async () => {
    let now = 0;
    const store = new IdempotencyStore(() => now);
    expect(await store.execute('acct', 'k', 'f1', 'req_1', ok('first'))).toEqual({
      status: 200,
      body: 'first',
      replayed: false,
      originalRequestId: null,
    });
    expect(await store.execute('acct', 'k', 'f1', 'req_2', ok('second'))).toEqual({
      status: 200,
      body: 'first',
      replayed: true,
      originalRequestId: 'req_1',
    });
    await expect(store.execute('acct', 'k', 'f2', 'req_3', ok('x'))).rejects.toBeInstanceOf(ApiError);
    expect((await store.execute('other', 'k', 'f2', 'req_4', ok('other'))).replayed).toBe(false);
    now += 25 * 3600 * 1000;
    expect((await store.execute('acct', 'k', 'f2', 'req_5', ok('fresh'))).body).toBe('fresh');
  });

  it('does not store results marked as not storable', async () => {
    const store = new IdempotencyStore();
    await store.execute('a', 'k', 'f', 'r1', async () => ({ status: 400, body: 'bad', store: false }));
    expect((await store.execute('a', 'k', 'f', 'r2', ok('good'))).body).toBe('good');
  });

  it('runs concurrent requests with one key once', async () => {
    const store = new IdempotencyStore();
    let runs = 0;
    const slow = async () => {
      runs++;
      // Still running when the other two requests arrive: they must wait for it, not run again.
      await letTimePass(20, 'a request that takes a while');
      return { status: 200, body: 'once', store: true };
    };
    const results = await Promise.all([1, 2, 3].map((i) => store.execute('a', 'k', 'f', `r${i}`, slow)));
    expect(runs).toBe(1);
    expect(results.map((r) => r.body)).toEqual(['once', 'once', 'once']);
  });
});
