import { describe, expect, it } from 'vitest';
import { formatApiKey, hashKeySecret, looksLikeApiKey, newKeyId, newKeySecret, parseApiKey } from './api-key';
import { formatRefreshToken, looksLikeJwt, parseRefreshToken } from './session';
import { principalClientId } from './principal';

describe('API key tokens', () => {
  it('round-trips sk_live_/sk_test_ tokens', () => {
    const keyId = newKeyId();
    const secret = newKeySecret();
    expect(keyId).toMatch(/^[a-z0-9]{16}$/);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(parseApiKey(formatApiKey('live', keyId, secret))).toEqual({ mode: 'live', keyId, secret });
    expect(parseApiKey(formatApiKey('test', keyId, secret))).toEqual({ mode: 'test', keyId, secret });
  });

  it('rejects malformed tokens', () => {
    const good = formatApiKey('live', newKeyId(), newKeySecret());
    expect(parseApiKey(good.replace('sk_live_', 'sk_prod_'))).toBeNull();
    expect(parseApiKey(good.replace('.', '_'))).toBeNull();
    expect(parseApiKey(good.slice(0, -1))).toBeNull();
    expect(parseApiKey(`${good}x`)).toBeNull();
    expect(parseApiKey(good.toUpperCase())).toBeNull();
    expect(looksLikeApiKey('sk_test_abc')).toBe(true);
    expect(looksLikeApiKey('eyJhbGciOi.x.y')).toBe(false);
  });

  it('stores a hash that differs per secret', () => {
    expect(hashKeySecret('a')).not.toBe(hashKeySecret('b'));
    expect(hashKeySecret('a')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('session tokens', () => {
  it('parses <sessionId>.<secret> refresh tokens and nothing else', () => {
    const secret = newKeySecret();
    expect(parseRefreshToken(formatRefreshToken('0123456789abcdef01234567', secret))).toEqual({
      sessionId: '0123456789abcdef01234567',
      secret,
    });
    expect(parseRefreshToken(undefined)).toBeNull();
    expect(parseRefreshToken(`nothex.${secret}`)).toBeNull();
  });

  it('tells JWTs from API keys', () => {
    expect(looksLikeJwt('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln')).toBe(true);
    expect(looksLikeJwt(formatApiKey('live', newKeyId(), newKeySecret()))).toBe(false);
  });

  it('counts rate limits per API key or per dashboard user', () => {
    expect(
      principalClientId({
        kind: 'organization_key',
        keyId: 'k1',
        organizationId: 'o',
        mode: 'live',
        role: 'Admin',
        scopes: new Set(),
      }),
    ).toBe('key:k1');
    expect(
      principalClientId({
        kind: 'user',
        userId: 'u1',
        sessionId: 's',
        organizationId: undefined,
        role: 'Viewer',
        scopes: new Set(),
        mode: 'live',
      }),
    ).toBe('user:u1');
  });
});
