import { describe, expect, it } from 'vitest';
import { configSchema, VIES_LIVE_URL } from './config';

describe('tax configuration: VIES', () => {
  const sandbox = 'http://127.0.0.1:12121';

  it('uses the local sandbox outside production when the supervisor names it, else the live service', () => {
    expect(configSchema.parse({ NODE_ENV: 'test', VIES_SANDBOX_URL: sandbox }).VIES_URL).toBe(`${sandbox}/taxation_customs/vies/rest-api`);
    expect(configSchema.parse({ NODE_ENV: 'development' }).VIES_URL).toBe(VIES_LIVE_URL);
    expect(configSchema.parse({ NODE_ENV: 'production', VIES_SANDBOX_URL: sandbox }).VIES_URL).toBe(VIES_LIVE_URL);
    expect(configSchema.parse({}).VIES_URL).toBe('https://ec.europa.eu/taxation_customs/vies/rest-api');
  });

  it('takes an explicit VIES_URL over both, and requires https for it in production', () => {
    expect(configSchema.parse({ NODE_ENV: 'test', VIES_SANDBOX_URL: sandbox, VIES_URL: 'http://vies.internal:8080/rest-api/' }).VIES_URL).toBe('http://vies.internal:8080/rest-api');
    expect(configSchema.safeParse({ NODE_ENV: 'production', VIES_URL: 'http://vies.internal/rest-api' }).success).toBe(false);
    expect(configSchema.parse({ NODE_ENV: 'production', VIES_URL: 'https://vies-proxy.example/rest-api' }).VIES_URL).toBe('https://vies-proxy.example/rest-api');
  });

  it('defaults: 2.5 s deadline, one day cache, 30 s breaker; bounds are enforced', () => {
    expect(configSchema.parse({})).toMatchObject({ VIES_DEADLINE_MS: 2500, VIES_CACHE_TTL_SECONDS: 86_400, VIES_BREAKER_SECONDS: 30 });
    expect(configSchema.safeParse({ VIES_DEADLINE_MS: '10' }).success).toBe(false);
    expect(configSchema.safeParse({ VIES_CACHE_TTL_SECONDS: '-1' }).success).toBe(false);
    expect(configSchema.parse({ VIES_CACHE_TTL_SECONDS: '0', VIES_BREAKER_SECONDS: '0' })).toMatchObject({ VIES_CACHE_TTL_SECONDS: 0, VIES_BREAKER_SECONDS: 0 });
  });
});
