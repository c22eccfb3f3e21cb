import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { TargetRefusedError, guardedLookup } from './http-sender';

type Answer = { err: Error | null; address: unknown; family?: number };

function lookupWith(answers: LookupAddress[][], options: { all?: boolean; family?: number } = {}): Promise<Answer> {
  let call = 0;
  const lookup = guardedLookup((_host, cb) => cb(null, answers[Math.min(call++, answers.length - 1)] ?? []));
  return new Promise((resolve) => {
    lookup('shop.example', options, (err, address, family) => resolve({ err, address, family }));
  });
}

describe('guardedLookup', () => {
  it('hands the socket only checked public addresses', async () => {
    const mixed = [
      { address: '127.0.0.1', family: 4 },
      { address: '93.184.216.34', family: 4 },
    ];
    expect(await lookupWith([mixed])).toEqual({ err: null, address: '93.184.216.34', family: 4 });
    expect(await lookupWith([mixed], { all: true })).toEqual({ err: null, address: [{ address: '93.184.216.34', family: 4 }], family: undefined });
  });

  it('refuses when the name resolves to private addresses only', async () => {
    const res = await lookupWith([[{ address: '169.254.169.254', family: 4 }]]);
    expect(res.err).toBeInstanceOf(TargetRefusedError);
    expect(res.err?.message).toBe('shop.example resolves only to non-public addresses: 169.254.169.254 (link-local)');
  });

  it('respects a requested address family', async () => {
    const res = await lookupWith([[{ address: '2606:4700::1', family: 6 }, { address: '10.0.0.1', family: 4 }]], { family: 4 });
    expect(res.err).toBeInstanceOf(TargetRefusedError);
    const v6 = await lookupWith([[{ address: '2606:4700::1', family: 6 }, { address: '10.0.0.1', family: 4 }]], { family: 6 });
    expect(v6).toEqual({ err: null, address: '2606:4700::1', family: 6 });
  });

  it('passes DNS failures through unchanged', async () => {
    const failing = guardedLookup((_h, cb) => cb(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }), []));
    const err = await new Promise<Error | null>((resolve) => failing('nope.example', {}, (e) => resolve(e)));
    expect(err?.message).toBe('getaddrinfo ENOTFOUND');
  });
});
