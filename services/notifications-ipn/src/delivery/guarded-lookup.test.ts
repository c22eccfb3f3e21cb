import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { EMPTY_TARGET_ALLOW_LIST, parseTargetAllowList, type TargetAllowList } from '@paymesh/core';
import { TargetRefusedError, guardedLookup, withoutAddresses } from './http-sender';

type Answer = { err: Error | null; address: unknown; family?: number };

function lookupWith(
  answers: LookupAddress[][],
  options: { all?: boolean; family?: number } = {},
  allowed: TargetAllowList = EMPTY_TARGET_ALLOW_LIST,
  host = 'shop.example',
): Promise<Answer> {
  let call = 0;
  const lookup = guardedLookup(allowed, (_host, cb) => cb(null, answers[Math.min(call++, answers.length - 1)] ?? []));
  return new Promise((resolve) => {
    lookup(host, options, (err, address, family) => resolve({ err, address, family }));
  });
}

describe('guardedLookup', () => {
  it('hands the socket only checked public addresses', async () => {
    const mixed = [
      { address: '127.0.0.1', family: 4 },
      { address: '93.184.216.34', family: 4 },
    ];
    expect(await lookupWith([mixed])).toEqual({ err: null, address: '93.184.216.34', family: 4 });
    expect(await lookupWith([mixed], { all: true })).toEqual({
      err: null,
      address: [{ address: '93.184.216.34', family: 4 }],
      family: undefined,
    });
  });

  it('refuses when the name resolves to private addresses only', async () => {
    const res = await lookupWith([[{ address: '169.254.169.254', family: 4 }]]);
    expect(res.err).toBeInstanceOf(TargetRefusedError);
    expect(res.err?.message).toBe('shop.example resolves only to non-public addresses (link-local)');
    expect(res.err?.message).not.toContain('169.254');
  });

  it('refuses NAT64, IPv4-mapped and CGNAT answers too', async () => {
    for (const address of ['64:ff9b::a9fe:a9fe', '::ffff:127.0.0.1', '100.64.1.1']) {
      const res = await lookupWith([[{ address, family: address.includes(':') ? 6 : 4 }]]);
      expect(res.err, address).toBeInstanceOf(TargetRefusedError);
    }
  });

  it('lets allow-listed addresses and allow-listed names through', async () => {
    const allowed = parseTargetAllowList('127.0.0.1,receiver.internal');
    expect(await lookupWith([[{ address: '127.0.0.1', family: 4 }]], {}, allowed)).toEqual({
      err: null,
      address: '127.0.0.1',
      family: 4,
    });
    expect((await lookupWith([[{ address: '127.0.0.2', family: 4 }]], {}, allowed)).err).toBeInstanceOf(
      TargetRefusedError,
    );
    const named = await lookupWith([[{ address: '10.9.9.9', family: 4 }]], {}, allowed, 'receiver.internal');
    expect(named).toEqual({ err: null, address: '10.9.9.9', family: 4 });
  });

  it('scrubs addresses out of network error texts', () => {
    expect(withoutAddresses('connect ECONNREFUSED 10.1.2.3:443')).toBe('connect ECONNREFUSED <address>');
    expect(withoutAddresses('connect ECONNREFUSED fd00::1:443 and [::1]:80')).not.toMatch(/fd00|::1/);
  });

  it('respects a requested address family', async () => {
    const res = await lookupWith(
      [
        [
          { address: '2606:4700::1', family: 6 },
          { address: '10.0.0.1', family: 4 },
        ],
      ],
      { family: 4 },
    );
    expect(res.err).toBeInstanceOf(TargetRefusedError);
    const v6 = await lookupWith(
      [
        [
          { address: '2606:4700::1', family: 6 },
          { address: '10.0.0.1', family: 4 },
        ],
      ],
      { family: 6 },
    );
    expect(v6).toEqual({ err: null, address: '2606:4700::1', family: 6 });
  });

  it('passes DNS failures through unchanged', async () => {
    const failing = guardedLookup(EMPTY_TARGET_ALLOW_LIST, (_h, cb) =>
      cb(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }), []),
    );
    const err = await new Promise<Error | null>((resolve) => failing('nope.example', {}, (e) => resolve(e)));
    expect(err?.message).toBe('getaddrinfo ENOTFOUND');
  });
});
