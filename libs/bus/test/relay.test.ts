import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { currentRequestId } from '@paymesh/core';
import type { Bus } from '../src/bus';
import { makeEvent } from '../src/envelope';
import { eventId } from '../src/event-id';
import { OutboxRelay, type OutboxPublisher } from '../src/relay';
import type { Subscription } from '../src/subscription';
import { letTimePass } from '../../../test/support/kit';
import {
  MemoryOutbox,
  captureLogger,
  closeBuses,
  connectBus,
  consumerSettled,
  testNamespace,
  waitFor,
} from './helpers';

const ns = testNamespace();
const { logger } = captureLogger('relay-test');
let bus: Bus;
const subs: Subscription[] = [];
const relays: OutboxRelay[] = [];

beforeAll(async () => {
  bus = await connectBus(ns, 'invoicing', logger);
});

afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.stop()));
  await Promise.all(subs.splice(0).map((s) => s.stop()));
});

afterAll(() => closeBuses(ns, bus));

/** Enqueues an invoice event the way a service does inside its store transaction. */
function enqueueInvoice(outbox: MemoryOutbox, invoiceId: string, verb: string, requestId: string): string {
  const subject = `invoicing.invoice.${verb}`;
  const event = makeEvent(subject, { invoiceId }, { id: eventId(subject, invoiceId) });
  outbox.enqueue({ id: event.id, subject, payload: event, headers: { 'x-request-id': requestId } });
  return event.id;
}

/** Subscribes to `subject` and records every delivery (event id and request ID). */
async function record(durable: string, subject: string): Promise<Array<{ id: string; requestId: string | undefined }>> {
  const seen: Array<{ id: string; requestId: string | undefined }> = [];
  subs.push(
    await bus.subscribe({
      durable,
      subjects: subject,
      handler: (event) => {
        seen.push({ id: event.id, requestId: currentRequestId() });
      },
    }),
  );
  return seen;
}

describe('OutboxRelay', () => {
  it('publishes pending events in order with their stored headers and marks them', async () => {
    const seen = await record('relay-basic', 'invoicing.invoice.issued');
    const outbox = new MemoryOutbox();
    const ids = [1, 2, 3].map((n) => enqueueInvoice(outbox, `inv_basic_${n}`, 'issued', `req-basic-000${n}`));
    const relay = new OutboxRelay({ outbox, bus, logger, intervalMs: 50, batchSize: 2 });
    relays.push(relay);
    relay.start();

    await waitFor(() => seen.length === 3, 10_000, 'relayed events');
    expect(seen.map((s) => s.id)).toEqual(ids);
    expect(seen.map((s) => s.requestId)).toEqual(['req-basic-0001', 'req-basic-0002', 'req-basic-0003']);
    await waitFor(() => outbox.size === 0, 5_000, 'outbox drained');
    expect(relay.health()).toMatchObject({ running: true, healthy: true, published: 3, consecutiveFailures: 0 });
    expect(relay.lastError).toBeUndefined();
  });

  it('keeps an event pending while publishing fails and publishes it later', async () => {
    const seen = await record('relay-failing', 'invoicing.invoice.voided');
    const outbox = new MemoryOutbox();
    const first = enqueueInvoice(outbox, 'inv_fail_1', 'voided', 'req-fail-00001');
    const second = enqueueInvoice(outbox, 'inv_fail_2', 'voided', 'req-fail-00002');
    let failuresLeft = 2;
    const flaky: OutboxPublisher = {
      publishOutboxEvent: (event) => {
        if (failuresLeft > 0) {
          failuresLeft -= 1;
          return Promise.reject(new Error('nats unavailable'));
        }
        return bus.publishOutboxEvent(event);
      },
    };
    const relay = new OutboxRelay({ outbox, bus: flaky, logger, intervalMs: 60_000 });

    expect(await relay.runOnce()).toBe(0);
    expect(outbox.size).toBe(2);
    expect(relay.lastError?.message).toBe('nats unavailable');
    expect(relay.health()).toMatchObject({ healthy: false, consecutiveFailures: 1, lastError: 'nats unavailable' });

    expect(await relay.runOnce()).toBe(0);
    expect(relay.health().consecutiveFailures).toBe(2);

    expect(await relay.runOnce()).toBe(2);
    expect(outbox.size).toBe(0);
    expect(relay.lastError).toBeUndefined();
    expect(relay.health()).toMatchObject({ healthy: true, consecutiveFailures: 0, published: 2 });
    await waitFor(() => seen.length === 2, 10_000, 'late delivery');
    expect(seen.map((s) => s.id)).toEqual([first, second]);
  });

  it('delivers once when an event is republished after a crash between publish and mark', async () => {
    const seen = await record('relay-crash', 'invoicing.invoice.paid');
    const outbox = new MemoryOutbox();
    const id = enqueueInvoice(outbox, 'inv_crash_1', 'paid', 'req-crash-00001');

    // First relay process: publishes, then "crashes" before the mark is stored.
    outbox.failMarks = 1;
    const crashed = new OutboxRelay({ outbox, bus, logger, intervalMs: 60_000 });
    expect(await crashed.runOnce()).toBe(0);
    expect(outbox.size).toBe(1);
    await crashed.stop();

    // The restarted process publishes the same id again; JetStream drops the duplicate.
    const restarted = new OutboxRelay({ outbox, bus, logger, intervalMs: 60_000 });
    expect(await restarted.runOnce()).toBe(1);
    expect(outbox.size).toBe(0);

    const sentinel = makeEvent('invoicing.invoice.paid', { sentinel: true });
    await bus.publish('invoicing.invoice.paid', sentinel);
    await waitFor(() => seen.some((s) => s.id === sentinel.id), 10_000, 'sentinel');
    await consumerSettled(ns, 'invoicing', 'relay-crash');
    expect(seen.filter((s) => s.id === id)).toHaveLength(1);
  });

  it('never runs passes concurrently', async () => {
    const seen = await record('relay-nudge', 'invoicing.invoice.reminded');
    const outbox = new MemoryOutbox();
    const relay = new OutboxRelay({ outbox, bus, logger, intervalMs: 60_000 });
    relays.push(relay);
    relay.start();
    await waitFor(() => relay.health().lastRunAt !== undefined, 5_000, 'first pass');

    const id = enqueueInvoice(outbox, 'inv_nudge_1', 'reminded', 'req-nudge-00001');
    await Promise.all([relay.runOnce(), relay.runOnce(), relay.runOnce()]);
    await waitFor(() => seen.length === 1, 5_000, 'delivery');
    expect(seen[0]?.id).toBe(id);
    expect(outbox.maxActive).toBe(1);
  });

  it('reports itself busy while handed-over events are being published, idle once they are marked', async () => {
    const outbox = new MemoryOutbox();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held: OutboxPublisher = {
      publishOutboxEvent: async (event) => gate.then(() => bus.publishOutboxEvent(event)),
    };
    const relay = new OutboxRelay({ outbox, bus: held, logger, intervalMs: 60_000 });
    relays.push(relay);
    relay.start();
    await waitFor(() => relay.health().lastRunAt !== undefined && !relay.health().busy, 5_000, 'first pass over');

    enqueueInvoice(outbox, 'inv_busy_1', 'sent', 'req-busy-000001');
    relay.handoff(await outbox.pending(10));
    expect(relay.health().busy).toBe(true);
    release();
    await waitFor(() => !relay.health().busy, 5_000, 'idle');
    expect(outbox.size).toBe(0);
    expect(relay.health().published).toBe(1);
  });

  it('stops polling on stop()', async () => {
    const outbox = new MemoryOutbox();
    const relay = new OutboxRelay({ outbox, bus, logger, intervalMs: 20 });
    relay.start();
    await waitFor(() => relay.health().lastRunAt !== undefined, 5_000, 'first pass');
    await relay.stop();
    const id = enqueueInvoice(outbox, 'inv_stop_1', 'issued', 'req-stop-000001');
    relay.handoff(await outbox.pending(10));
    expect(await relay.runOnce()).toBe(0);
    // A stopped relay must not poll: five of its poll intervals pass without a pass.
    await letTimePass(100, 'five poll intervals of a stopped relay');
    expect((await outbox.pending(10)).map((e) => e.id)).toEqual([id]);
    expect(outbox.size).toBe(1);
    expect(relay.health().running).toBe(false);
  });
});
