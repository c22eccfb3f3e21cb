import { randomBytes } from 'node:crypto';
import { createLogger, type Logger } from '@paymesh/core';
import { connect } from 'nats';
import { Bus, type BusConnectOptions } from '../src/bus';
import type { Outbox, OutboxEvent } from '../src/outbox-types';
import { consumerName, nameToken } from '../src/subjects';
import { letTimePass, waitFor as kitWaitFor } from '../../../test/support/kit';

export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** A namespace no other test file uses, so meshes on the shared server never see each other. */
export function testNamespace(): string {
  return `t${randomBytes(5).toString('hex')}`;
}

export interface LogLine {
  level: number;
  msg: string;
  requestId?: string;
  [key: string]: unknown;
}

/** A logger whose JSON lines are collected in `lines`. */
export function captureLogger(service: string): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = createLogger({
    service,
    level: 'debug',
    destination: {
      write(chunk: string) {
        lines.push(JSON.parse(chunk) as LogLine);
      },
    },
  });
  return { logger, lines };
}

/** Small stream limits so test streams reserve little storage. */
export function connectBus(
  namespace: string,
  service: string,
  logger: Logger,
  extra: Partial<BusConnectOptions> = {},
): Promise<Bus> {
  return Bus.connect({
    url: NATS_URL,
    namespace,
    service,
    logger,
    streamLimits: { maxBytes: 64 * 1024 * 1024, maxAgeMs: 60 * 60 * 1000 },
    ...extra,
  });
}

/**
 * One bus per service on `namespace` (connected one after the other, in the order given): the buses a
 * test file or describe block opens before its tests.
 */
export async function openBuses<const S extends readonly string[]>(
  namespace: string,
  logger: Logger,
  ...services: S
): Promise<{ [K in keyof S]: Bus }> {
  const buses: Bus[] = [];
  for (const service of services) buses.push(await connectBus(namespace, service, logger));
  return buses as { [K in keyof S]: Bus };
}

/**
 * The end of a test file's or describe block's buses on `namespace`: closes them one after the other
 * (any that did not open are passed over), then drops the namespace's streams.
 */
export async function closeBuses(namespace: string, ...buses: Array<Bus | undefined>): Promise<void> {
  for (const bus of buses) await bus?.close();
  await dropNamespace(namespace);
}

/** Deletes every stream (and with it every consumer) of the namespace. */
export async function dropNamespace(namespace: string): Promise<void> {
  const nc = await connect({ servers: NATS_URL });
  try {
    const jsm = await nc.jetstreamManager();
    const prefix = `${nameToken(namespace)}_`;
    for await (const info of jsm.streams.list()) {
      if (info.config.name.startsWith(prefix)) await jsm.streams.delete(info.config.name);
    }
  } finally {
    await nc.close();
  }
}

/** Polls until `check` returns true or the timeout passes (the shared kit's `waitFor`). */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  await kitWaitFor(check, { timeoutMs, what });
}

/** What the server holds for a durable consumer: messages not yet delivered, delivered and not acked. */
export async function consumerState(
  namespace: string,
  service: string,
  durable: string,
): Promise<{ pending: number; ackPending: number; delivered: number }> {
  const nc = await connect({ servers: NATS_URL });
  try {
    const jsm = await nc.jetstreamManager();
    const name = consumerName(namespace, service, durable);
    for await (const stream of jsm.streams.list()) {
      if (!stream.config.name.startsWith(`${nameToken(namespace)}_`)) continue;
      const info = await jsm.consumers.info(stream.config.name, name).catch(() => undefined);
      if (info)
        return { pending: info.num_pending, ackPending: info.num_ack_pending, delivered: info.delivered.stream_seq };
    }
    throw new Error(`no consumer ${name}`);
  } finally {
    await nc.close();
  }
}

/**
 * "Nothing else will be delivered" to a durable consumer: the server has no message left to deliver
 * to it and none delivered without an ack (so none to redeliver). Replaces sleeping after the last
 * expected delivery before asserting that there was no other.
 */
export async function consumerSettled(namespace: string, service: string, durable: string): Promise<void> {
  await kitWaitFor(
    async () => {
      const s = await consumerState(namespace, service, durable);
      return s.pending === 0 && s.ackPending === 0;
    },
    { what: `consumer ${service}/${durable} with nothing pending and nothing unacknowledged`, stepMs: 50 },
  );
}

/** In-memory outbox following the store port's contract (oldest first; marked events leave). */
export class MemoryOutbox implements Outbox {
  private readonly events: OutboxEvent[] = [];
  /** Calls to `pending` in progress right now, and the most seen at once. */
  active = 0;
  maxActive = 0;
  /** When set, the next `markPublished` calls throw (a crash between publish and mark). */
  failMarks = 0;

  enqueue(event: Omit<OutboxEvent, 'createdAt'>): void {
    this.events.push({ ...event, createdAt: new Date().toISOString() });
  }

  get size(): number {
    return this.events.length;
  }

  async pending(limit: number): Promise<OutboxEvent[]> {
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      // A store round trip takes time: passes that ran at once would overlap here (`maxActive`).
      await letTimePass(5, 'the latency of a store read');
      return this.events.slice(0, limit).map((e) => ({ ...e, headers: { ...e.headers } }));
    } finally {
      this.active -= 1;
    }
  }

  async markPublished(ids: string[]): Promise<void> {
    if (this.failMarks > 0) {
      this.failMarks -= 1;
      throw new Error('store unavailable');
    }
    const gone = new Set(ids);
    for (let i = this.events.length - 1; i >= 0; i -= 1) {
      const e = this.events[i];
      if (e && gone.has(e.id)) this.events.splice(i, 1);
    }
  }
}
