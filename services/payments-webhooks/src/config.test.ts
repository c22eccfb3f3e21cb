import { describe, expect, it } from 'vitest';
import { loadConfig } from '@paymesh/core';
import { allowedApiOrigins, configSchema } from './config';

describe('payments-webhooks configuration', () => {
  it('allows merchant API hosts from the default and the allow-list; any host only outside production without a list', () => {
    const dev = loadConfig(configSchema, { NODE_ENV: 'development' });
    expect(allowedApiOrigins(dev)).toBeUndefined();
    const listed = loadConfig(configSchema, {
      NODE_ENV: 'development',
      PROVIDER_API_BASE_URL_ALLOWLIST: 'https://eu.provider.example',
    });
    expect([...(allowedApiOrigins(listed) ?? [])].sort()).toEqual([
      'https://api-m.paypal.com',
      'https://api.gocardless.com',
      'https://api.mollie.com',
      'https://api.stripe.com',
      'https://eu.provider.example',
    ]);
    const prod = loadConfig(configSchema, { NODE_ENV: 'production', PUBLIC_ROOT_URL: 'https://pay.example.com' });
    expect([...(allowedApiOrigins(prod) ?? [])]).toEqual([
      'https://api.stripe.com',
      'https://api.mollie.com',
      'https://api.gocardless.com',
      'https://api-m.paypal.com',
    ]);
    expect(() =>
      loadConfig(configSchema, { NODE_ENV: 'development', PROVIDER_API_BASE_URL_ALLOWLIST: 'not a url' }),
    ).toThrow(/PROVIDER_API_BASE_URL_ALLOWLIST/);
    // Without NODE_ENV the service is in production: the list is enforced and http callbacks are refused.
    expect(configSchema.safeParse({}).success).toBe(false);
    expect([
      ...(allowedApiOrigins(loadConfig(configSchema, { PUBLIC_ROOT_URL: 'https://pay.example.com' })) ?? []),
    ]).toEqual([
      'https://api.stripe.com',
      'https://api.mollie.com',
      'https://api.gocardless.com',
      'https://api-m.paypal.com',
    ]);
  });

  it('defaults the provider_a API to the sandbox when it runs, otherwise to the real API', () => {
    const dev = { NODE_ENV: 'development' };
    expect(
      configSchema.parse({ ...dev, PROVIDER_A_SANDBOX_URL: 'http://127.0.0.1:12111' }).PROVIDER_A_API_BASE_URL,
    ).toBe('http://127.0.0.1:12111');
    expect(configSchema.parse(dev).PROVIDER_A_API_BASE_URL).toBe('https://api.stripe.com');
    const explicit = configSchema.parse({
      ...dev,
      PROVIDER_A_SANDBOX_URL: 'http://127.0.0.1:12111',
      PROVIDER_A_API_BASE_URL: 'https://pa.example/',
    });
    expect(explicit.PROVIDER_A_API_BASE_URL).toBe('https://pa.example');
  });

  it('defaults the provider_b API to its sandbox when it runs, otherwise to the real API, and wants https in production', () => {
    const dev = { NODE_ENV: 'development' };
    expect(
      configSchema.parse({ ...dev, PROVIDER_B_SANDBOX_URL: 'http://127.0.0.1:12141' }).PROVIDER_B_API_BASE_URL,
    ).toBe('http://127.0.0.1:12141');
    expect(configSchema.parse(dev).PROVIDER_B_API_BASE_URL).toBe('https://api.mollie.com');
    const insecure = configSchema.safeParse({
      NODE_ENV: 'production',
      PUBLIC_ROOT_URL: 'https://pay.example.com',
      PROVIDER_B_SANDBOX_URL: 'http://127.0.0.1:12141',
    });
    expect(insecure.error?.issues[0]?.path).toEqual(['PROVIDER_B_API_BASE_URL']);
  });

  it('refuses plain-http provider and callback URLs in production', () => {
    const prod = { NODE_ENV: 'production', PUBLIC_ROOT_URL: 'https://pay.example.com' };
    expect(configSchema.safeParse(prod).success).toBe(true);
    const insecureApi = configSchema.safeParse({ ...prod, PROVIDER_A_SANDBOX_URL: 'http://127.0.0.1:12111' });
    expect(insecureApi.success).toBe(false);
    expect(insecureApi.error?.issues[0]?.path).toEqual(['PROVIDER_A_API_BASE_URL']);
    const insecureRoot = configSchema.safeParse({ NODE_ENV: 'production', PUBLIC_ROOT_URL: 'http://pay.example.com' });
    expect(insecureRoot.error?.issues[0]?.path).toEqual(['PUBLIC_ROOT_URL']);
  });
});
