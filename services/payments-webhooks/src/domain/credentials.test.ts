import { describe, expect, it } from 'vitest';
import { ValidationError } from '@paymesh/core';
import { maskWithPrefix } from '../providers/module';
import { credentialHints, parseCredentials } from './credentials';

const test = { mode: 'test' as const, requireHttps: false };
const live = { mode: 'live' as const, requireHttps: false };

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).field;
  }
  throw new Error('expected a ValidationError');
}

describe('provider credentials', () => {
  it('accepts provider_a keys of the record mode and rejects the other mode', () => {
    const c = parseCredentials('provider_a', { secretKey: 'sk_test_abcdefgh1234' }, test);
    expect(c).toEqual({ type: 'provider_a', value: { secretKey: 'sk_test_abcdefgh1234' } });
    expect(fieldOf(() => parseCredentials('provider_a', { secretKey: 'sk_live_abcdefgh1234' }, test))).toBe(
      'credentials.secretKey',
    );
    expect(parseCredentials('provider_a', { secretKey: 'sk_live_abcdefgh1234' }, live).type).toBe('provider_a');
  });

  it('names the offending field for malformed provider_a credentials', () => {
    expect(fieldOf(() => parseCredentials('provider_a', { secretKey: 'pk_test_abcdefgh1234' }, test))).toBe(
      'credentials.secretKey',
    );
    expect(
      fieldOf(() => parseCredentials('provider_a', { secretKey: 'sk_test_abcdefgh1234', webhookSecret: 'nope' }, test)),
    ).toBe('credentials.webhookSecret');
    expect(fieldOf(() => parseCredentials('provider_a', { secretKey: 'sk_test_abcdefgh1234', extra: 1 }, test))).toBe(
      'credentials',
    );
    expect(fieldOf(() => parseCredentials('provider_a', 'sk_test_abcdefgh1234', test))).toBe('credentials');
  });

  it('only takes API origins, and only https ones in production', () => {
    const ok = parseCredentials(
      'provider_a',
      { secretKey: 'sk_test_abcdefgh1234', apiBaseUrl: 'http://127.0.0.1:12111/' },
      test,
    );
    expect(ok.value.apiBaseUrl).toBe('http://127.0.0.1:12111');
    expect(
      fieldOf(() =>
        parseCredentials('provider_a', { secretKey: 'sk_test_abcdefgh1234', apiBaseUrl: 'https://x.example/v1' }, test),
      ),
    ).toBe('credentials.apiBaseUrl');
    const prod = { mode: 'live' as const, requireHttps: true };
    expect(
      fieldOf(() =>
        parseCredentials(
          'provider_a',
          { secretKey: 'sk_live_abcdefgh1234', apiBaseUrl: 'http://api.example.com' },
          prod,
        ),
      ),
    ).toBe('credentials.apiBaseUrl');
    expect(
      parseCredentials('provider_a', { secretKey: 'sk_live_abcdefgh1234', apiBaseUrl: 'https://api.example.com' }, prod)
        .type,
    ).toBe('provider_a');
  });

  it('refuses API hosts outside the allowed origins (credentials would travel there)', () => {
    const rules = { mode: 'live' as const, requireHttps: true, allowedApiOrigins: new Set(['https://api.stripe.com']) };
    expect(
      parseCredentials('provider_a', { secretKey: 'sk_live_abcdefgh1234', apiBaseUrl: 'https://api.stripe.com' }, rules)
        .type,
    ).toBe('provider_a');
    expect(parseCredentials('provider_a', { secretKey: 'sk_live_abcdefgh1234' }, rules).type).toBe('provider_a');
    expect(
      fieldOf(() =>
        parseCredentials(
          'provider_a',
          { secretKey: 'sk_live_abcdefgh1234', apiBaseUrl: 'https://169.254.169.254' },
          rules,
        ),
      ),
    ).toBe('credentials.apiBaseUrl');
  });

  it('validates the other provider types with their own shapes and mode rules', () => {
    expect(parseCredentials('provider_b', { apiKey: 'test_abcdefghijklmnopqrstu' }, test).type).toBe('provider_b');
    expect(fieldOf(() => parseCredentials('provider_b', { apiKey: 'live_abcdefghijklmnopqrstu' }, test))).toBe(
      'credentials.apiKey',
    );
    const c = { accessToken: 'sandbox_abcdefghijklmnop', webhookSecret: 'secret-0123456789ab', environment: 'sandbox' };
    expect(parseCredentials('provider_c', c, test).type).toBe('provider_c');
    expect(fieldOf(() => parseCredentials('provider_c', c, live))).toBe('credentials.environment');
    const d = { clientId: 'client-123456', clientSecret: 'secret-123456', webhookId: 'WH-1', environment: 'live' };
    expect(parseCredentials('provider_d', d, live).type).toBe('provider_d');
    expect(fieldOf(() => parseCredentials('provider_d', { ...d, clientSecret: undefined }, live))).toBe(
      'credentials.clientSecret',
    );
  });

  it('hints show a recognisable prefix and the last four characters only', () => {
    expect(maskWithPrefix('sk_test_51Habcdefghijf3a9', /^sk_(test|live)_/)).toBe('sk_test_…f3a9');
    expect(maskWithPrefix('opaque-token-9876', /^sk_/)).toBe('…9876');
    expect(credentialHints({ type: 'provider_b', value: { apiKey: 'test_abcdefghijklmnopqrstu' } })).toEqual({
      apiKey: 'test_…rstu',
    });
    expect(
      credentialHints({
        type: 'provider_d',
        value: { clientId: 'client-123456', clientSecret: 'secret-123456', webhookId: 'WH-1', environment: 'live' },
      }),
    ).toEqual({ clientId: 'client-123456', clientSecret: '…3456', webhookId: 'WH-1', environment: 'live' });
    const hints = credentialHints({
      type: 'provider_a',
      value: {
        secretKey: 'sk_live_51Habcdefghijf3a9',
        webhookSecret: 'whsec_abcdefghijklmnop1234',
        apiBaseUrl: 'https://api.example.com',
      },
    });
    expect(hints).toEqual({
      secretKey: 'sk_live_…f3a9',
      webhookSecret: 'whsec_…1234',
      apiBaseUrl: 'https://api.example.com',
    });
  });
});
