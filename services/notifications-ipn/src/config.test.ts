import { describe, expect, it } from 'vitest';
import { configSchema } from './config';

describe('notifications-ipn config', () => {
  it('defaults to 10 s backoff base and timeout', () => {
    const c = configSchema.parse({ NODE_ENV: 'production' });
    expect(c.IPN_BACKOFF_BASE_MS).toBe(10_000);
    expect(c.IPN_TIMEOUT_MS).toBe(10_000);
    expect(c.CHECKOUT_GRPC_ADDR).toBe('127.0.0.1:50051');
  });

  it('guards against private targets in production unless told otherwise', () => {
    expect(configSchema.parse({ NODE_ENV: 'production' }).IPN_ALLOW_PRIVATE_TARGETS).toBe(false);
    expect(configSchema.parse({ NODE_ENV: 'development' }).IPN_ALLOW_PRIVATE_TARGETS).toBe(true);
    expect(configSchema.parse({ NODE_ENV: 'test' }).IPN_ALLOW_PRIVATE_TARGETS).toBe(true);
    expect(configSchema.parse({ NODE_ENV: 'test', IPN_ALLOW_PRIVATE_TARGETS: 'false' }).IPN_ALLOW_PRIVATE_TARGETS).toBe(false);
    expect(configSchema.parse({ NODE_ENV: 'production', IPN_ALLOW_PRIVATE_TARGETS: 'true' }).IPN_ALLOW_PRIVATE_TARGETS).toBe(true);
  });

  it('rejects non-positive timings', () => {
    expect(configSchema.safeParse({ IPN_BACKOFF_BASE_MS: '0' }).success).toBe(false);
    expect(configSchema.safeParse({ IPN_TIMEOUT_MS: 'soon' }).success).toBe(false);
  });
});
