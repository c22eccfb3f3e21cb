import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, loadConfig } from './config';
import { envIntBounded } from './env-int-bounded';

describe('envIntBounded', () => {
  const schema = z.object({ POLL_MS: envIntBounded(5_000, 100, 600_000, 'POLL_MS') });

  it('takes the default when unset or empty, and any integer within the bounds', () => {
    expect(loadConfig(schema, {}).POLL_MS).toBe(5_000);
    expect(loadConfig(schema, { POLL_MS: '' }).POLL_MS).toBe(5_000);
    expect(loadConfig(schema, { POLL_MS: '100' }).POLL_MS).toBe(100);
    expect(loadConfig(schema, { POLL_MS: '600000' }).POLL_MS).toBe(600_000);
  });

  it('refuses a value outside the bounds, naming the setting and its range', () => {
    for (const v of ['99', '600001', '-1']) {
      expect(() => loadConfig(schema, { POLL_MS: v })).toThrow(ConfigError);
      expect(() => loadConfig(schema, { POLL_MS: v })).toThrow('POLL_MS must be from 100 to 600000');
    }
  });

  it('refuses a value that is not an integer', () => {
    expect(() => loadConfig(schema, { POLL_MS: '1.5' })).toThrow('expected an integer, got "1.5"');
  });
});
