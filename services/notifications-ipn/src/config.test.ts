import { describe, expect, it } from 'vitest';
import { addressPermitted } from '@paymesh/core';
import { configSchema } from './config';

describe('notifications-ipn config', () => {
  it('defaults to 10 s backoff base and timeout', () => {
    const c = configSchema.parse({ NODE_ENV: 'production' });
    expect(c.IPN_BACKOFF_BASE_MS).toBe(10_000);
    expect(c.IPN_TIMEOUT_MS).toBe(10_000);
    expect(c.CHECKOUT_GRPC_ADDR).toBe('127.0.0.1:50051');
  });

  it('allows no private target in any mode unless listed in IPN_ALLOWED_TARGETS', () => {
    for (const NODE_ENV of ['production', 'development', 'test']) {
      const c = configSchema.parse({ NODE_ENV });
      expect(addressPermitted(c.IPN_ALLOWED_TARGETS, '127.0.0.1')).toBe(false);
      expect(addressPermitted(c.IPN_ALLOWED_TARGETS, '169.254.169.254')).toBe(false);
    }
    const local = configSchema.parse({ NODE_ENV: 'development', IPN_ALLOWED_TARGETS: '127.0.0.1' });
    expect(addressPermitted(local.IPN_ALLOWED_TARGETS, '127.0.0.1')).toBe(true);
    expect(addressPermitted(local.IPN_ALLOWED_TARGETS, '10.0.0.1')).toBe(false);
  });

  it('refuses the removed IPN_ALLOW_PRIVATE_TARGETS switch and malformed allow-lists', () => {
    expect(configSchema.safeParse({ IPN_ALLOW_PRIVATE_TARGETS: 'true' }).success).toBe(false);
    expect(configSchema.safeParse({ IPN_ALLOWED_TARGETS: '10.0.0.0/40' }).success).toBe(false);
  });

  it('rejects non-positive timings', () => {
    expect(configSchema.safeParse({ IPN_BACKOFF_BASE_MS: '0' }).success).toBe(false);
    expect(configSchema.safeParse({ IPN_TIMEOUT_MS: 'soon' }).success).toBe(false);
  });

  it('sends e-mail to the local mail catcher outside production only, unless SMTP_HOST says otherwise', () => {
    const local = configSchema.parse({ NODE_ENV: 'development', MAIL_SANDBOX_SMTP_PORT: '12125' });
    expect([local.SMTP_HOST, local.SMTP_PORT]).toEqual(['127.0.0.1', 12125]);
    const prod = configSchema.parse({ NODE_ENV: 'production', MAIL_SANDBOX_SMTP_PORT: '12125' });
    expect(prod.SMTP_HOST).toBeUndefined();
    const real = configSchema.parse({
      NODE_ENV: 'development',
      MAIL_SANDBOX_SMTP_PORT: '12125',
      SMTP_HOST: 'smtp.example.com',
      SMTP_SECURE: 'true',
    });
    expect([real.SMTP_HOST, real.SMTP_PORT, real.SMTP_SECURE]).toEqual(['smtp.example.com', 465, true]);
    expect(configSchema.parse({ NODE_ENV: 'production', SMTP_HOST: 'smtp.example.com' }).SMTP_PORT).toBe(587);
  });

  it('requires SMTP_PASS with SMTP_USER and a sane attempt count', () => {
    expect(configSchema.safeParse({ SMTP_HOST: 'smtp.example.com', SMTP_USER: 'u' }).success).toBe(false);
    expect(configSchema.safeParse({ EMAIL_MAX_ATTEMPTS: '0' }).success).toBe(false);
    expect(configSchema.parse({}).EMAIL_MAX_ATTEMPTS).toBe(5);
    // Compose passes unset variables as empty strings.
    const blank = configSchema.parse({
      NODE_ENV: 'production',
      SMTP_HOST: '',
      SMTP_USER: '',
      SMTP_PASS: '',
      SMTP_PORT: '',
    });
    expect([blank.SMTP_HOST, blank.SMTP_USER, blank.SMTP_PORT]).toEqual([undefined, undefined, 587]);
  });
});
