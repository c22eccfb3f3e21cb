import { randomBytes } from 'node:crypto';
import { createLogger, type Logger } from '@paymesh/core';
import { connect } from 'nats';
import { Bus, type BusConnectOptions } from '../src/bus';
import type { Outbox, OutboxEvent } from '../src/outbox-types';
import { nameToken } from '../src/subjects';

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

/** Polls until `check` returns true or the timeout passes. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
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
      await sleep(5);
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
