import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type JetStreamManager, type NatsConnection, type StreamConfig, type StreamUpdateConfig } from 'nats';
import { DEFAULT_STREAM_LIMITS, ensureStream, type StreamLimits, type StreamManager } from '../src/stream';
import { streamName } from '../src/subjects';
import { NATS_URL, captureLogger, connectBus, dropNamespace, testNamespace } from './helpers';

const ns = testNamespace();
const limits: StreamLimits = { ...DEFAULT_STREAM_LIMITS, maxBytes: 64 * 1024 * 1024, maxAgeMs: 60 * 60 * 1000 };
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  nc = await connect({ servers: NATS_URL });
  jsm = await nc.jetstreamManager();
});

afterAll(async () => {
  await dropNamespace(ns);
  await nc?.close();
});

/** The real manager, counting the stream creations and updates made through it. */
function counting(real: JetStreamManager) {
  const calls = { add: 0, update: 0 };
  const streams = {
    add: (cfg: Partial<StreamConfig>) => {
      calls.add += 1;
      return real.streams.add(cfg);
    },
    info: (name: string) => real.streams.info(name),
    update: (name: string, cfg: Partial<StreamUpdateConfig>) => {
      calls.update += 1;
      return real.streams.update(name, cfg);
    },
  };
  const jsm: StreamManager = { streams };
  return { jsm, calls };
}

describe('stream replicas on a real NATS server', () => {
  it('does not update a stream when a service restarts with the same configuration', async () => {
    const first = counting(jsm);
    const created = await ensureStream(first.jsm, ns, 'billing', limits, { replicas: 1 });
    expect(created.config.num_replicas).toBe(1);

    const restart = counting(jsm);
    const again = await ensureStream(restart.jsm, ns, 'billing', limits, { replicas: 1 });
    expect(restart.calls.update).toBe(0);
    expect(again.config).toEqual(created.config);
    expect(again.created).toBe(created.created);

    // Changed limits do update it, keeping its replicas.
    const changed = counting(jsm);
    const updated = await ensureStream(
      changed.jsm,
      ns,
      'billing',
      { ...limits, maxMsgSize: 512 * 1024 },
      { replicas: 1 },
    );
    expect(changed.calls.update).toBe(1);
    expect(updated.config).toMatchObject({ max_msg_size: 512 * 1024, num_replicas: 1 });
  });

  it('never lowers the replicas an operator raised: a restarted service keeps them and warns', async (ctx) => {
    const { logger, lines } = captureLogger('tax');
    const before = await connectBus(ns, 'tax', logger, { streamReplicas: 1 });
    await before.ensureStream('tax');
    await before.close();

    // What `nats stream edit --replicas 3` does. A standalone server keeps the setting (it cannot
    // place the copies, but stores the count), which is all this test needs from it.
    const name = streamName(ns, 'tax');
    const raised = await jsm.streams
      .update(name, { ...(await jsm.streams.info(name)).config, num_replicas: 3 })
      .catch((err: unknown) => err);
    if (raised instanceof Error)
      return ctx.skip(`this NATS server refuses replicas 3 on update (${raised.message}); the decision is unit-tested`);

    const after = await connectBus(ns, 'tax', logger, { streamReplicas: 1 });
    try {
      await after.ensureStream('tax');
      expect((await jsm.streams.info(name)).config.num_replicas).toBe(3);
      const warning = lines.find((l) => l.level === 40 && l.stream === name);
      expect(warning).toMatchObject({ configuredReplicas: 1, actualReplicas: 3 });
      expect(warning?.msg).toContain('never lowers');
    } finally {
      await after.close();
    }

    // New limits still reach the stream, with the operator's replicas.
    const wider = await connectBus(ns, 'tax', logger, { streamReplicas: 1, streamLimits: { maxMsgSize: 256 * 1024 } });
    try {
      await wider.ensureStream('tax');
      expect((await jsm.streams.info(name)).config).toMatchObject({ max_msg_size: 256 * 1024, num_replicas: 3 });
    } finally {
      await wider.close();
    }
  });

  it('refuses to create a stream with more replicas than a standalone server can hold, saying what to set', async (ctx) => {
    if (nc.info?.cluster) return ctx.skip('NATS runs clustered here');
    const { logger } = captureLogger('documents');
    const bus = await connectBus(ns, 'documents', logger, { streamReplicas: 3 });
    try {
      await expect(bus.ensureStream('documents')).rejects.toMatchObject({
        code: 'BUS_STREAM_REPLICAS_UNAVAILABLE',
        message: expect.stringMatching(/cannot keep 3 replicas .*BUS_STREAM_REPLICAS/),
      });
    } finally {
      await bus.close();
    }
  });

  it('fails a start whose stream cap JetStream cannot reserve, naming BUS_STREAM_MAX_BYTES', async () => {
    const { logger } = captureLogger('reports');
    // A pebibyte a stream: more than the storage of any server this runs on.
    const bus = await connectBus(ns, 'reports', logger, { streamLimits: { maxBytes: 1024 ** 5 } });
    try {
      await expect(bus.ensureStream('reports')).rejects.toMatchObject({
        code: 'BUS_STREAM_STORAGE_UNAVAILABLE',
        message: expect.stringContaining('BUS_STREAM_MAX_BYTES'),
      });
    } finally {
      await bus.close();
    }
  });

  it('refuses a replica count JetStream does not accept before connecting', async () => {
    const { logger } = captureLogger('checkout');
    await expect(connectBus(ns, 'checkout', logger, { streamReplicas: 7 })).rejects.toMatchObject({
      message: expect.stringContaining('from 1 to 5'),
    });
  });
});
