import { describe, expect, it } from 'vitest';
import { createLogger, UnavailableError } from '@paymesh/core';
import { NatsError, type StreamConfig, type StreamInfo, type StreamUpdateConfig } from 'nats';
import {
  DEFAULT_STREAM_LIMITS,
  decideReplicas,
  ensureStream,
  ensureStreamPatiently,
  streamConfig,
  transientJetStreamError,
  type StreamManager,
} from './stream';

describe('decideReplicas', () => {
  it('keeps the configured count, raises a lower one and never lowers a higher one', () => {
    expect(decideReplicas(1, 1)).toEqual({ replicas: 1, action: 'keep' });
    expect(decideReplicas(3, 3)).toEqual({ replicas: 3, action: 'keep' });
    expect(decideReplicas(3, 1)).toEqual({ replicas: 3, action: 'raise' });
    expect(decideReplicas(1, 3)).toEqual({ replicas: 3, action: 'keep-higher' });
    expect(decideReplicas(3, 5)).toEqual({ replicas: 5, action: 'keep-higher' });
  });
});

function apiError(errCode: number, description: string): NatsError {
  const err = new NatsError(description, '400');
  err.api_error = { code: 400, err_code: errCode, description };
  return err;
}

/**
 * A stream manager holding one existing stream (or none) with the given configuration; records
 * every update. Only what ensureStream uses.
 */
function fakeJsm(existing: StreamConfig | undefined, addError?: NatsError) {
  const updates: Partial<StreamUpdateConfig>[] = [];
  let current = existing;
  const info = (): StreamInfo => ({ config: current!, created: '2026-01-01T00:00:00Z' }) as StreamInfo;
  const jsm: StreamManager = {
    streams: {
      async add(cfg: Partial<StreamConfig>) {
        if (addError) throw addError;
        if (current) throw apiError(10058, 'stream name already in use with a different configuration');
        current = cfg as StreamConfig;
        return info();
      },
      async info() {
        return info();
      },
      async update(_name: string, cfg: Partial<StreamUpdateConfig>) {
        updates.push(cfg);
        current = { ...current!, ...cfg };
        return info();
      },
    },
  };
  return { jsm, updates, current: () => current };
}

function captured() {
  const lines: { level: number; msg: string; [k: string]: unknown }[] = [];
  const logger = createLogger({
    service: 'stream-test',
    level: 'info',
    destination: { write: (l: string) => void lines.push(JSON.parse(l)) },
  });
  return { logger, warnings: () => lines.filter((l) => l.level === 40) };
}

const limits = DEFAULT_STREAM_LIMITS;
const existingWith = (replicas: number, over: Partial<StreamConfig> = {}): StreamConfig =>
  ({ ...streamConfig('pm', 'billing', limits, replicas), ...over }) as StreamConfig;

describe('ensureStream replicas', () => {
  it('creates a new stream with the configured replicas', async () => {
    const fake = fakeJsm(undefined);
    await ensureStream(fake.jsm, 'pm', 'billing', limits, { replicas: 3 });
    expect(fake.current()?.num_replicas).toBe(3);
  });

  it('leaves a stream an operator raised to 3 at 3 when configured with 1, and says so', async () => {
    const fake = fakeJsm(existingWith(3));
    const { logger, warnings } = captured();
    const info = await ensureStream(fake.jsm, 'pm', 'billing', limits, { replicas: 1, logger });
    expect(info.config.num_replicas).toBe(3);
    expect(fake.updates).toEqual([]);
    expect(warnings()).toEqual([
      expect.objectContaining({
        stream: 'PM_BILLING',
        configuredReplicas: 1,
        actualReplicas: 3,
        msg: expect.stringContaining('keeping 3'),
      }),
    ]);
  });

  it('keeps the higher count when other settings change', async () => {
    const fake = fakeJsm(existingWith(3, { max_bytes: 1 }));
    await ensureStream(fake.jsm, 'pm', 'billing', limits, { replicas: 1 });
    expect(fake.updates).toHaveLength(1);
    expect(fake.updates[0]).toMatchObject({ num_replicas: 3, max_bytes: limits.maxBytes });
  });

  it('raises a stream with fewer replicas than configured, with a warning', async () => {
    const fake = fakeJsm(existingWith(1));
    const { logger, warnings } = captured();
    await ensureStream(fake.jsm, 'pm', 'billing', limits, { replicas: 3, logger });
    expect(fake.updates.map((u) => u.num_replicas)).toEqual([3]);
    expect(warnings()[0]?.msg).toContain('raising it to 3');
  });

  it('updates nothing when the stream already matches', async () => {
    const fake = fakeJsm(existingWith(1));
    const { logger, warnings } = captured();
    await ensureStream(fake.jsm, 'pm', 'billing', limits, { replicas: 1, logger });
    expect(fake.updates).toEqual([]);
    expect(warnings()).toEqual([]);
  });

  it.each([
    [
      'NATS cannot place the replicas',
      apiError(10074, 'replicas > 1 not supported in non-clustered mode'),
      'BUS_STREAM_REPLICAS_UNAVAILABLE',
      expect.stringContaining('BUS_STREAM_REPLICAS'),
    ],
    [
      'JetStream cannot reserve the size cap',
      apiError(10047, 'insufficient storage resources available'),
      'BUS_STREAM_STORAGE_UNAVAILABLE',
      expect.stringMatching(new RegExp(`reserve 3 x ${limits.maxBytes} bytes .*BUS_STREAM_MAX_BYTES`)),
    ],
  ])('says what to do when %s', async (_what, refusal, code, message) => {
    const fake = fakeJsm(undefined, refusal);
    const err = await ensureStream(fake.jsm, 'pm', 'billing', limits, { replicas: 3 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnavailableError);
    expect(err).toMatchObject({ code, message });
  });

  it('refuses replica counts JetStream does not accept', async () => {
    for (const replicas of [0, 6, 1.5]) {
      await expect(ensureStream(fakeJsm(undefined).jsm, 'pm', 'billing', limits, { replicas })).rejects.toThrow(
        /replicas must be an integer from 1 to 5/,
      );
    }
  });
});

describe('ensureStreamPatiently', () => {
  /** A stream manager whose first `failures` stream creations do not answer (`TIMEOUT`). */
  function slowJsm(failures: number, code = 'TIMEOUT') {
    const inner = fakeJsm(undefined);
    let calls = 0;
    const jsm: StreamManager = {
      streams: {
        ...inner.jsm.streams,
        async add(cfg: Partial<StreamConfig>) {
          calls += 1;
          if (calls <= failures) throw new NatsError('no answer', code);
          return inner.jsm.streams.add(cfg);
        },
      },
    };
    return { jsm, calls: () => calls, current: inner.current };
  }

  it('tries again while JetStream does not answer, then creates the stream', async () => {
    const slow = slowJsm(2);
    const log = captured();
    const info = await ensureStreamPatiently(slow.jsm, 'pm', 'billing', limits, {
      logger: log.logger,
      initialDelayMs: 1,
    });
    expect(slow.calls()).toBe(3);
    expect(info.config.name).toBe(streamConfig('pm', 'billing', limits, 1).name);
    expect(log.warnings().map((w) => w.msg)).toEqual([
      'JetStream did not answer the stream request; trying again',
      'JetStream did not answer the stream request; trying again',
    ]);
  });

  it('gives up after its attempts, and never retries what is not transient', async () => {
    const never = slowJsm(10);
    await expect(
      ensureStreamPatiently(never.jsm, 'pm', 'billing', limits, { attempts: 3, initialDelayMs: 1 }),
    ).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(never.calls()).toBe(3);
    const refused = slowJsm(10, '400');
    await expect(
      ensureStreamPatiently(refused.jsm, 'pm', 'billing', limits, { initialDelayMs: 1 }),
    ).rejects.toMatchObject({ code: '400' });
    expect(refused.calls()).toBe(1);
  });

  it('tells transient JetStream failures from the others', () => {
    expect(transientJetStreamError(new NatsError('x', 'TIMEOUT'))).toBe(true);
    expect(transientJetStreamError(new NatsError('x', '503'))).toBe(true);
    expect(transientJetStreamError(apiError(10058, 'in use'))).toBe(false);
    expect(transientJetStreamError(new Error('x'))).toBe(false);
  });
});
