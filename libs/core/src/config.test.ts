import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { baseConfigSchema, ConfigError, envBool, envInt, envIntBounded, loadConfig } from './config';

describe('loadConfig', () => {
  it('applies defaults and returns a frozen object', () => {
    const cfg = loadConfig(baseConfigSchema, {});
    expect(cfg.NATS_URL).toBe('nats://127.0.0.1:4222');
    expect(cfg.GRPC_DEADLINE_MS).toBe(5000);
    expect(cfg.BUS_STREAM_REPLICAS).toBe(1);
    expect(cfg.BUS_STREAM_MAX_BYTES).toBe(1024 * 1024 * 1024);
    expect(Object.isFrozen(cfg)).toBe(true);
  });

  it('fails fast naming every offending variable', () => {
    const schema = z.object({ PORT: envInt(1), FLAG: envBool(false), MODE: z.enum(['a', 'b']) });
    try {
      loadConfig(schema, { PORT: 'eighty', FLAG: 'maybe' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const msg = (err as Error).message;
      expect(msg).toContain('PORT');
      expect(msg).toContain('FLAG');
      expect(msg).toContain('MODE');
    }
    expect(loadConfig(schema, { PORT: '8080', FLAG: 'yes', MODE: 'b' })).toEqual({ PORT: 8080, FLAG: true, MODE: 'b' });
  });

  it('takes BUS_STREAM_REPLICAS from 1 to 5 only', () => {
    expect(loadConfig(baseConfigSchema, { BUS_STREAM_REPLICAS: '3' }).BUS_STREAM_REPLICAS).toBe(3);
    for (const bad of ['0', '6', 'three'])
      expect(() => loadConfig(baseConfigSchema, { BUS_STREAM_REPLICAS: bad })).toThrow(/BUS_STREAM_REPLICAS/);
  });

  it('takes a BUS_STREAM_MAX_BYTES of at least 1 MiB', () => {
    expect(loadConfig(baseConfigSchema, { BUS_STREAM_MAX_BYTES: '67108864' }).BUS_STREAM_MAX_BYTES).toBe(
      64 * 1024 * 1024,
    );
    for (const bad of ['1024', '-1', '1.5', 'lots'])
      expect(() => loadConfig(baseConfigSchema, { BUS_STREAM_MAX_BYTES: bad })).toThrow(/BUS_STREAM_MAX_BYTES/);
  });
});

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
