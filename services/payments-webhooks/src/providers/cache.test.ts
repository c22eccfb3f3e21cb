import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox } from '@paymesh/core';
import type { ProviderCredentials } from '../domain/credentials';
import type { PaymentAdapter } from './adapter';
import { ProviderAdapters } from './cache';

const box = new SecretBox(`k1:${randomBytes(32).toString('base64')}`);

const creds = (secretKey: string): ProviderCredentials => ({
  type: 'provider_a',
  value: { secretKey, webhookSecret: 'whsec_x' },
});
const record = (id: string, secretKey: string) => ({ id, credentials: box.seal(JSON.stringify({ secretKey }), id) });

type Tagged = PaymentAdapter & { key: string };

/** Stands for a real adapter; the cache never calls into it. */
function fakeAdapter(key: string): Tagged {
  const unused = () => {
    throw new Error('not called by the cache');
  };
  return {
    type: 'provider_a',
    key,
    registerWebhookEndpoint: unused,
    deleteWebhookEndpoint: unused,
    createPayment: unused,
    cancelPayment: unused,
    fetchStatus: unused,
    verifyWebhook: unused,
    refund: unused,
  };
}

/** A factory that records what it built; adapters are tagged with the key they were built from. */
function counting() {
  const built: string[] = [];
  const factory = (c: ProviderCredentials) => {
    const key = typeof c.value['secretKey'] === 'string' ? c.value['secretKey'] : c.type;
    built.push(key);
    return fakeAdapter(key);
  };
  return { built, factory };
}

const openOf = (rec: ReturnType<typeof record>, opened: string[]) => () => {
  const { secretKey } = JSON.parse(box.open(rec.credentials, rec.id)) as { secretKey: string };
  opened.push(secretKey);
  return creds(secretKey);
};

describe('ProviderAdapters', () => {
  it('builds one adapter per record and credentials, opening the credentials only then', () => {
    const { built, factory } = counting();
    const cache = new ProviderAdapters(factory);
    const rec = record('r1', 'sk_a');
    const opened: string[] = [];
    const first = cache.forRecord(rec, openOf(rec, opened));
    for (let i = 0; i < 5; i++) expect(cache.forRecord({ ...rec }, openOf(rec, opened))).toBe(first);
    expect(built).toEqual(['sk_a']);
    expect(opened).toEqual(['sk_a']);
  });

  it('uses changed credentials at once, even re-sealed to the same value', () => {
    const { built, factory } = counting();
    const cache = new ProviderAdapters(factory);
    const opened: string[] = [];
    const v1 = record('r1', 'sk_a');
    const a = cache.forRecord(v1, openOf(v1, opened)) as Tagged;
    const v2 = record('r1', 'sk_b');
    const b = cache.forRecord(v2, openOf(v2, opened)) as Tagged;
    expect([a.key, b.key]).toEqual(['sk_a', 'sk_b']);
    // The stale seal no longer matches either: back to the old credentials means a rebuild too.
    const c = cache.forRecord(v1, openOf(v1, opened)) as Tagged;
    expect(c.key).toBe('sk_a');
    expect(c).not.toBe(a);
    expect(built).toEqual(['sk_a', 'sk_b', 'sk_a']);
    expect(cache.size).toBe(1);
  });

  it('forgets a deleted record and keeps records apart', () => {
    const { built, factory } = counting();
    const cache = new ProviderAdapters(factory);
    const r1 = record('r1', 'sk_a');
    const r2 = record('r2', 'sk_a');
    const a1 = cache.forRecord(r1, openOf(r1, []));
    expect(cache.forRecord(r2, openOf(r2, []))).not.toBe(a1);
    cache.forget('r1');
    expect(cache.size).toBe(1);
    expect(cache.forRecord(r1, openOf(r1, []))).not.toBe(a1);
    expect(built).toHaveLength(3);
  });

  it('is bounded: the least recently used record goes first', () => {
    const { built, factory } = counting();
    const cache = new ProviderAdapters(factory, { max: 2 });
    const recs = ['r1', 'r2', 'r3'].map((id) => record(id, `sk_${id}`));
    const [r1, r2, r3] = recs as [ReturnType<typeof record>, ReturnType<typeof record>, ReturnType<typeof record>];
    cache.forRecord(r1, openOf(r1, []));
    cache.forRecord(r2, openOf(r2, []));
    cache.forRecord(r1, openOf(r1, [])); // r1 used again: r2 is now the oldest
    cache.forRecord(r3, openOf(r3, []));
    expect(cache.size).toBe(2);
    cache.forRecord(r1, openOf(r1, []));
    cache.forRecord(r2, openOf(r2, []));
    expect(built).toEqual(['sk_r1', 'sk_r2', 'sk_r3', 'sk_r2']);
  });

  it('never caches a failed build', () => {
    let calls = 0;
    const cache = new ProviderAdapters(() => {
      calls += 1;
      throw new Error('unsupported');
    });
    const rec = record('r1', 'sk_a');
    expect(() => cache.forRecord(rec, openOf(rec, []))).toThrow('unsupported');
    expect(() => cache.forRecord(rec, openOf(rec, []))).toThrow('unsupported');
    expect(calls).toBe(2);
    expect(cache.size).toBe(0);
  });
});
