import { ConfigError } from '@paymesh/core';
import { describe, expect, it } from 'vitest';
import { loadSandboxConfig } from './config';

describe('sandbox config', () => {
  it('has working defaults', () => {
    expect(loadSandboxConfig({})).toEqual({
      logLevel: 'info',
      exitWithParent: false,
      host: '127.0.0.1',
      port: 12111,
      publicUrl: 'http://127.0.0.1:12111',
      webhooks: { maxAttempts: 5, retryBaseMs: 500, retryMaxMs: 60_000, timeoutMs: 10_000 },
    });
  });

  it('derives the public URL from host and port, and honours an explicit one', () => {
    expect(loadSandboxConfig({ PROVIDER_A_SANDBOX_HOST: '0.0.0.0', PROVIDER_A_SANDBOX_PORT: '9000' }).publicUrl).toBe(
      'http://127.0.0.1:9000',
    );
    expect(loadSandboxConfig({ PROVIDER_A_SANDBOX_PORT: '0' }).publicUrl).toBeUndefined();
    expect(loadSandboxConfig({ PROVIDER_A_SANDBOX_PUBLIC_URL: 'https://pay.example.test/' }).publicUrl).toBe(
      'https://pay.example.test',
    );
  });

  it('reads webhook retry settings', () => {
    const c = loadSandboxConfig({
      PROVIDER_A_SANDBOX_WEBHOOK_MAX_ATTEMPTS: '2',
      PROVIDER_A_SANDBOX_WEBHOOK_RETRY_BASE_MS: '10',
    });
    expect(c.webhooks).toMatchObject({ maxAttempts: 2, retryBaseMs: 10 });
  });

  it('fails fast on bad values', () => {
    expect(() => loadSandboxConfig({ PROVIDER_A_SANDBOX_PORT: 'abc' })).toThrow(ConfigError);
    expect(() => loadSandboxConfig({ PROVIDER_A_SANDBOX_PORT: '70000' })).toThrow(ConfigError);
    expect(() => loadSandboxConfig({ PROVIDER_A_SANDBOX_WEBHOOK_MAX_ATTEMPTS: '0' })).toThrow(ConfigError);
    expect(() => loadSandboxConfig({ PROVIDER_A_SANDBOX_PUBLIC_URL: 'ftp://x' })).toThrow(ConfigError);
  });
});
