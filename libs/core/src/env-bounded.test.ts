import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, loadConfig } from './config';
import { envIntBounded } from './env-bounded';

describe('envIntBounded', () => {
  const schema = z.object({ LEASE_MS: envIntBounded(120_000, 200, 3_600_000, 'LEASE_MS') });

  it('takes the default when unset or empty, and any integer in the range, both ends included', () => {
    expect(loadConfig(schema, {})).toEqual({ LEASE_MS: 120_000 });
    expect(loadConfig(schema, { LEASE_MS: '' })).toEqual({ LEASE_MS: 120_000 });
    expect(loadConfig(schema, { LEASE_MS: '200' })).toEqual({ LEASE_MS: 200 });
    expect(loadConfig(schema, { LEASE_MS: '3600000' })).toEqual({ LEASE_MS: 3_600_000 });
  });

  it('refuses a value outside the range, naming the setting and its range', () => {
    for (const v of ['199', '3600001', '0']) {
      expect(() => loadConfig(schema, { LEASE_MS: v })).toThrow(ConfigError);
      expect(() => loadConfig(schema, { LEASE_MS: v })).toThrow('LEASE_MS must be from 200 to 3600000');
    }
    expect(() => loadConfig(schema, { LEASE_MS: '1.5' })).toThrow(/integer/);
  });
});
