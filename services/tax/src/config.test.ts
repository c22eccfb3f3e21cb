import { describe, expect, it } from 'vitest';
import { configSchema, ECB_RATES_LIVE_URL, VIES_LIVE_URL } from './config';

describe('tax configuration: VIES', () => {
  const sandbox = 'http://127.0.0.1:12121';

  it('uses the local sandbox outside production when the supervisor names it, else the live service', () => {
    expect(configSchema.parse({ NODE_ENV: 'test', VIES_SANDBOX_URL: sandbox }).VIES_URL).toBe(
      `${sandbox}/taxation_customs/vies/rest-api`,
    );
    expect(configSchema.parse({ NODE_ENV: 'development' }).VIES_URL).toBe(VIES_LIVE_URL);
    expect(configSchema.parse({ NODE_ENV: 'production', VIES_SANDBOX_URL: sandbox }).VIES_URL).toBe(VIES_LIVE_URL);
    expect(configSchema.parse({}).VIES_URL).toBe('https://ec.europa.eu/taxation_customs/vies/rest-api');
  });

  it('takes an explicit VIES_URL over both, and requires https for it in production', () => {
    expect(
      configSchema.parse({
        NODE_ENV: 'test',
        VIES_SANDBOX_URL: sandbox,
        VIES_URL: 'http://vies.internal:8080/rest-api/',
      }).VIES_URL,
    ).toBe('http://vies.internal:8080/rest-api');
    expect(configSchema.safeParse({ NODE_ENV: 'production', VIES_URL: 'http://vies.internal/rest-api' }).success).toBe(
      false,
    );
    expect(
      configSchema.parse({ NODE_ENV: 'production', VIES_URL: 'https://vies-proxy.example/rest-api' }).VIES_URL,
    ).toBe('https://vies-proxy.example/rest-api');
  });

  it('defaults: 2.5 s deadline, one day cache, 30 s breaker; bounds are enforced', () => {
    expect(configSchema.parse({})).toMatchObject({
      VIES_DEADLINE_MS: 2500,
      VIES_CACHE_TTL_SECONDS: 86_400,
      VIES_BREAKER_SECONDS: 30,
    });
    expect(configSchema.safeParse({ VIES_DEADLINE_MS: '10' }).success).toBe(false);
    expect(configSchema.safeParse({ VIES_CACHE_TTL_SECONDS: '-1' }).success).toBe(false);
    expect(configSchema.parse({ VIES_CACHE_TTL_SECONDS: '0', VIES_BREAKER_SECONDS: '0' })).toMatchObject({
      VIES_CACHE_TTL_SECONDS: 0,
      VIES_BREAKER_SECONDS: 0,
    });
  });
});

describe('tax configuration: ECB reference rates', () => {
  const sandbox = 'http://127.0.0.1:12171';

  it('fetches the ECB 90-day file, or the local sandbox outside production when the supervisor names it', () => {
    expect(configSchema.parse({}).ECB_RATES_URL).toBe(
      'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist-90d.xml',
    );
    expect(ECB_RATES_LIVE_URL).toBe('https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist-90d.xml');
    expect(configSchema.parse({ NODE_ENV: 'test', ECB_SANDBOX_URL: sandbox }).ECB_RATES_URL).toBe(
      `${sandbox}/stats/eurofxref/eurofxref-hist-90d.xml`,
    );
    expect(configSchema.parse({ NODE_ENV: 'production', ECB_SANDBOX_URL: sandbox }).ECB_RATES_URL).toBe(
      ECB_RATES_LIVE_URL,
    );
  });

  it('takes an explicit ECB_RATES_URL (https in production); hourly by default, 0 turns fetching off', () => {
    expect(
      configSchema.parse({
        NODE_ENV: 'test',
        ECB_SANDBOX_URL: sandbox,
        ECB_RATES_URL: 'http://rates.internal/eurofxref-daily.xml',
      }).ECB_RATES_URL,
    ).toBe('http://rates.internal/eurofxref-daily.xml');
    expect(
      configSchema.safeParse({ NODE_ENV: 'production', ECB_RATES_URL: 'http://rates.internal/x.xml' }).success,
    ).toBe(false);
    expect(configSchema.parse({})).toMatchObject({ ECB_RATES_INTERVAL_MS: 3_600_000, ECB_RATES_DEADLINE_MS: 30_000 });
    expect(configSchema.parse({ ECB_RATES_INTERVAL_MS: '0' }).ECB_RATES_INTERVAL_MS).toBe(0);
    expect(configSchema.safeParse({ ECB_RATES_INTERVAL_MS: '10' }).success).toBe(false);
  });
});
