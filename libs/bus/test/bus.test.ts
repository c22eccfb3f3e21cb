import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError, currentRequestId, runWithContext } from '@paymesh/core';
import { connect, headers as natsHeaders } from 'nats';
import { Bus } from '../src/bus';
import { makeEvent, type EventEnvelope } from '../src/envelope';
import { eventId } from '../src/event-id';
import { PoisonEventError } from '../src/poison';
import type { DeliveryMeta, Subscription } from '../src/subscription';
import {
  NATS_URL,
  captureLogger,
  closeBuses,
  connectBus,
  consumerSettled,
  consumerState,
  dropNamespace,
  openBuses,
  testNamespace,
  waitFor,
} from './helpers';

const ns = testNamespace();
const otherNs = testNamespace();
const { logger, lines } = captureLogger('bus-test');
let publisher: Bus;
let consumer: Bus;
const subs: Subscription[] = [];

beforeAll(async () => {
  [publisher, consumer] = await openBuses(ns, logger, 'payments', 'invoicing');
});

afterEach(async () => {
  await Promise.all(subs.splice(0).map((s) => s.stop()));
});

afterAll(async () => {
  await closeBuses(ns, publisher, consumer);
  await dropNamespace(otherNs);
});

/** Subscribes the consumer under `durable` (stopped after the test) and collects the IDs it handles. */
async function collectIds(durable: string, subjects: string): Promise<string[]> {
  const seen: string[] = [];
  subs.push(
    await consumer.subscribe({
      durable,
      subjects,
      handler: (event) => {
        seen.push(event.id);
      },
    }),
  );
  return seen;
}

interface Seen {
  event: EventEnvelope;
  meta: DeliveryMeta;
  requestId: string | undefined;
}

describe('Bus', () => {
  it('carries the request ID from the publisher to the handler context and its logs', async () => {
    const seen: Seen[] = [];
    subs.push(
      await consumer.subscribe({
        durable: 'roundtrip',
        subjects: 'payments.transaction.status_changed',
        handler: (event, meta) => {
          logger.info({ eventId: event.id }, 'roundtrip handled');
          seen.push({ event, meta, requestId: currentRequestId() });
        },
      }),
    );
    const event = makeEvent('payments.transaction.status_changed', { status: 'succeeded' });
    const ack = await runWithContext({ requestId: 'req-roundtrip-0001' }, () =>
      publisher.publish('payments.transaction.status_changed', event),
    );
    expect(ack).toMatchObject({ stream: publisher.streamFor('payments'), duplicate: false });

    await waitFor(() => seen.length === 1, 10_000, 'delivery');
    const [got] = seen;
    expect(got?.event).toEqual(event);
    expect(got?.requestId).toBe('req-roundtrip-0001');
    expect(got?.meta).toMatchObject({
      subject: 'payments.transaction.status_changed',
      redelivered: false,
      deliveryCount: 1,
    });
    expect(got?.meta.headers['x-request-id']).toBe('req-roundtrip-0001');
    const line = lines.find((l) => l.msg === 'roundtrip handled');
    expect(line?.requestId).toBe('req-roundtrip-0001');
  });

  it('delivers an id published twice only once', async () => {
    const seen = await collectIds('dedupe', 'payments.refund.*');
    const dup = makeEvent('payments.refund.created', { n: 1 }, { id: eventId('payments.refund.created', 'rf_1') });
    const first = await publisher.publish('payments.refund.created', dup);
    const second = await publisher.publish('payments.refund.created', { ...dup });
    expect(first.duplicate).toBe(false);
    expect(second).toEqual({ ...first, duplicate: true });
    const sentinel = makeEvent('payments.refund.succeeded', {});
    await publisher.publish('payments.refund.succeeded', sentinel);

    await waitFor(() => seen.includes(sentinel.id), 10_000, 'sentinel');
    await consumerSettled(ns, 'invoicing', 'dedupe');
    expect(seen.filter((id) => id === dup.id)).toHaveLength(1);
  });

  it('redelivers after a handler failure and then acks', async () => {
    const attempts: DeliveryMeta[] = [];
    let succeeded = 0;
    subs.push(
      await consumer.subscribe({
        durable: 'retry',
        subjects: 'payments.payout.created',
        backoff: { initialMs: 100 },
        handler: (_event, meta) => {
          attempts.push(meta);
          if (attempts.length === 1) throw new Error('temporary failure');
          succeeded += 1;
        },
      }),
    );
    await publisher.publish('payments.payout.created', makeEvent('payments.payout.created', {}));
    await waitFor(() => succeeded === 1, 10_000, 'successful retry');
    await consumerSettled(ns, 'invoicing', 'retry');
    expect(attempts.map((m) => [m.deliveryCount, m.redelivered])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(succeeded).toBe(1);
    expect(lines.some((l) => l.msg === 'event handler failed; will be redelivered')).toBe(true);
  });

  it('counts publishes (duplicates apart), messages consumed, acks, naks and terminations per subject', async () => {
    const pubBefore = publisher.stats();
    const subBefore = consumer.stats();
    const failedOnce = new Set<string>();
    subs.push(
      await consumer.subscribe({
        durable: 'counting',
        subjects: 'payments.charge.*',
        backoff: { initialMs: 100 },
        handler: (event) => {
          if (event.type === 'payments.charge.refused') throw new PoisonEventError('never processable');
          if (event.type === 'payments.charge.failed' && !failedOnce.has(event.id)) {
            failedOnce.add(event.id);
            throw new Error('temporary failure');
          }
        },
      }),
    );
    const once = makeEvent('payments.charge.captured', {});
    await publisher.publish('payments.charge.captured', once);
    await publisher.publish('payments.charge.captured', { ...once });
    await publisher.publish('payments.charge.failed', makeEvent('payments.charge.failed', {}));
    await publisher.publish('payments.charge.refused', makeEvent('payments.charge.refused', {}));
    const delta = (key: 'acked' | 'terminated') => consumer.stats()[key] - subBefore[key];
    await waitFor(() => delta('acked') === 2 && delta('terminated') === 1, 10_000, 'every event settled');

    const pub = publisher.stats();
    expect(pub.published - pubBefore.published).toBe(4);
    expect(pub.duplicates - pubBefore.duplicates).toBe(1);
    expect(pub.bySubject['payments.charge.captured']?.published).toBe(2);
    const sub = consumer.stats();
    expect(sub.consumed - subBefore.consumed).toBe(4); // captured, failed twice, refused
    expect(sub.naked - subBefore.naked).toBe(1);
    expect(sub.handling).toBe(0);
    expect(sub.bySubject['payments.charge.failed']?.consumed).toBe(2);
    expect(sub.published - subBefore.published).toBe(0);
  });

  it('terminates an event after maxDeliver failures with an error log', async () => {
    const attempts: number[] = [];
    subs.push(
      await consumer.subscribe({
        durable: 'give-up',
        subjects: 'payments.dispute.opened',
        maxDeliver: 2,
        backoff: { initialMs: 50 },
        handler: (_event, meta) => {
          attempts.push(meta.deliveryCount);
          throw new Error('always fails');
        },
      }),
    );
    const event = makeEvent('payments.dispute.opened', {});
    await publisher.publish('payments.dispute.opened', event);
    await waitFor(
      () =>
        lines.some((l) => l.msg === 'event handler failed on the last attempt; terminated' && l.eventId === event.id),
      10_000,
      'terminate log',
    );
    await consumerSettled(ns, 'invoicing', 'give-up');
    expect(attempts).toEqual([1, 2]);
    const line = lines.find((l) => l.eventId === event.id && l.level === 50);
    expect(line).toBeDefined();
  });

  it('never drops an event with maxDeliver -1: retried past the usual limit until handled', async () => {
    const attempts: number[] = [];
    subs.push(
      await consumer.subscribe({
        durable: 'never-give-up',
        subjects: 'payments.refund.recorded',
        maxDeliver: -1,
        backoff: { initialMs: 20, maxMs: 40 },
        handler: (_event, meta) => {
          attempts.push(meta.deliveryCount);
          if (meta.deliveryCount < 12) throw new Error('datastore down');
        },
      }),
    );
    const event = makeEvent('payments.refund.recorded', {});
    await publisher.publish('payments.refund.recorded', event);
    await waitFor(() => attempts.includes(12), 15_000, 'twelfth delivery');
    await consumerSettled(ns, 'invoicing', 'never-give-up');
    expect(attempts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(
      lines.some((l) => l.msg === 'event handler failed on the last attempt; terminated' && l.eventId === event.id),
    ).toBe(false);
    expect(
      lines.some((l) => l.msg === 'event handler keeps failing; still retrying (never dropped)' && l.level === 50),
    ).toBe(true);
  });

  it('terminates a message that is not JSON and goes on with the next', async () => {
    const seen = await collectIds('poison', 'payments.chargeback.>');
    const nc = await connect({ servers: NATS_URL });
    try {
      const h = natsHeaders();
      h.set('x-request-id', 'req-poison-0001');
      await nc.jetstream().publish(`${ns}.payments.chargeback.received`, Buffer.from('{not json'), { headers: h });
    } finally {
      await nc.close();
    }
    const good = makeEvent('payments.chargeback.received', {});
    await publisher.publish('payments.chargeback.received', good);
    await waitFor(() => seen.includes(good.id), 10_000, 'good event');
    const line = lines.find((l) => l.msg === 'event is not a valid envelope; terminated');
    expect(line?.requestId).toBe('req-poison-0001');
    expect(seen).toEqual([good.id]);
  });

  it('resumes a durable consumer after stop/start without reprocessing acked events', async () => {
    const seen: string[] = [];
    const subscribe = () =>
      consumer.subscribe({
        durable: 'resume',
        subjects: 'payments.settlement.completed',
        handler: (event) => {
          seen.push(event.id);
        },
      });
    const publishN = async (n: number) => {
      const ids: string[] = [];
      for (let i = 0; i < n; i += 1) {
        const e = makeEvent('payments.settlement.completed', { i });
        await publisher.publish('payments.settlement.completed', e);
        ids.push(e.id);
      }
      return ids;
    };

    const first = await subscribe();
    const batch1 = await publishN(3);
    await waitFor(() => seen.length === 3, 10_000, 'first batch');
    await first.stop();
    await first.stop();

    const delivered = (await consumerState(ns, 'invoicing', 'resume')).delivered;
    const batch2 = await publishN(2);
    // The server holds both new events for the stopped durable and has handed none out.
    await waitFor(async () => (await consumerState(ns, 'invoicing', 'resume')).pending === 2, 10_000, 'two stored');
    expect(await consumerState(ns, 'invoicing', 'resume')).toEqual({ pending: 2, ackPending: 0, delivered });
    expect(seen).toEqual(batch1);

    subs.push(await subscribe());
    await waitFor(() => seen.length === 5, 10_000, 'second batch');
    await consumerSettled(ns, 'invoicing', 'resume');
    expect(seen).toEqual([...batch1, ...batch2]);
  });

  it('a durable that takes over from others starts after what they all acknowledged, and keeps its place after', async () => {
    const subject = 'payments.takeover.happened';
    const publishN = async (n: number) => {
      const ids: string[] = [];
      for (let i = 0; i < n; i += 1) {
        const e = makeEvent(subject, { i });
        await publisher.publish(subject, e);
        ids.push(e.id);
      }
      return ids;
    };
    const seen: Record<string, string[]> = {};
    // Handlers run concurrently: compare what was handled, not in which order.
    const sorted = (ids: string[] | undefined) => [...(ids ?? [])].sort();
    const subscribe = (durable: string, takesOverFrom?: string[]) =>
      consumer.subscribe({
        durable,
        subjects: subject,
        ...(takesOverFrom ? { takesOverFrom } : {}),
        handler: (event) => {
          (seen[durable] ??= []).push(event.id);
        },
      });
    // Two durables of one subject (the previous version's): a handled 1-3, b handled 1-5.
    const a = await subscribe('takeover-a');
    const b = await subscribe('takeover-b');
    const first = await publishN(3);
    await waitFor(() => seen['takeover-a']?.length === 3 && seen['takeover-b']?.length === 3, 10_000, 'both handled');
    await consumerSettled(ns, 'invoicing', 'takeover-a');
    await a.stop();
    const second = await publishN(2);
    await waitFor(() => seen['takeover-b']?.length === 5, 10_000, 'b handled the second batch');
    await consumerSettled(ns, 'invoicing', 'takeover-b');
    await b.stop();
    const third = await publishN(1);

    const merged = await subscribe('takeover-merged', ['takeover-a', 'takeover-b']);
    await waitFor(() => seen['takeover-merged']?.length === 3, 10_000, 'what a had not handled');
    await consumerSettled(ns, 'invoicing', 'takeover-merged');
    expect(sorted(seen['takeover-merged'])).toEqual(sorted([...second, ...third]));
    // The predecessors are left as they were.
    expect((await consumerState(ns, 'invoicing', 'takeover-a')).pending).toBe(3);

    // Subscribed again, it resumes where it stopped (its predecessors no longer decide).
    await merged.stop();
    const fourth = await publishN(1);
    subs.push(await subscribe('takeover-merged', ['takeover-a', 'takeover-b']));
    await waitFor(() => seen['takeover-merged']?.length === 4, 10_000, 'the next one');
    await consumerSettled(ns, 'invoicing', 'takeover-merged');
    expect(sorted(seen['takeover-merged'])).toEqual(sorted([...second, ...third, ...fourth]));

    // Without any predecessor (a new installation) it starts as `deliver` says: every stored event.
    subs.push(await subscribe('takeover-fresh', ['takeover-never-existed']));
    await waitFor(() => seen['takeover-fresh']?.length === 7, 10_000, 'every stored event');
    await consumerSettled(ns, 'invoicing', 'takeover-fresh');
    expect(sorted(seen['takeover-fresh'])).toEqual(sorted([...first, ...second, ...third, ...fourth]));
  });

  it('decodes data with the given decoder and terminates what it rejects', async () => {
    const amounts: number[] = [];
    subs.push(
      await consumer.subscribe({
        durable: 'decoded',
        subjects: 'payments.fee.charged',
        decode: (data: unknown): { amount: number } => {
          if (typeof data === 'object' && data !== null && 'amount' in data && typeof data.amount === 'number') {
            return { amount: data.amount };
          }
          throw new Error('amount missing');
        },
        handler: (event) => {
          amounts.push(event.data.amount);
        },
      }),
    );
    const bad = makeEvent('payments.fee.charged', { nope: true });
    await publisher.publish('payments.fee.charged', bad);
    await publisher.publish('payments.fee.charged', makeEvent('payments.fee.charged', { amount: 42 }));
    await waitFor(() => amounts.length === 1, 10_000, 'decoded event');
    expect(amounts).toEqual([42]);
    expect(lines.some((l) => l.msg === 'event rejected as unprocessable; terminated' && l.eventId === bad.id)).toBe(
      true,
    );
  });

  it('keeps meshes with different namespaces apart on one server', async () => {
    const other = await connectBus(otherNs, 'payments', logger);
    try {
      const seenHere: string[] = [];
      const seenThere: string[] = [];
      subs.push(
        await consumer.subscribe({
          durable: 'isolation',
          subjects: 'payments.transaction.created',
          handler: (e) => {
            seenHere.push(e.id);
          },
        }),
      );
      const sub = await other.subscribe({
        durable: 'isolation',
        subjects: 'payments.transaction.created',
        handler: (e) => {
          seenThere.push(e.id);
        },
      });
      const here = makeEvent('payments.transaction.created', {});
      const there = makeEvent('payments.transaction.created', {});
      await publisher.publish('payments.transaction.created', here);
      await other.publish('payments.transaction.created', there);
      await waitFor(() => seenHere.length === 1 && seenThere.length === 1, 10_000, 'both deliveries');
      await consumerSettled(ns, 'invoicing', 'isolation');
      await consumerSettled(otherNs, 'payments', 'isolation');
      expect(seenHere).toEqual([here.id]);
      expect(seenThere).toEqual([there.id]);
      expect(other.streamFor('payments')).not.toBe(publisher.streamFor('payments'));
      await sub.stop();
    } finally {
      await other.close();
    }
  });

  it('ensures streams idempotently', async () => {
    await publisher.ensureStream('ledger');
    await publisher.ensureStream('ledger');
    const again = await connectBus(ns, 'ledger', logger, { streamLimits: { maxAgeMs: 2 * 60 * 60 * 1000 } });
    try {
      await again.ensureStream('ledger');
    } finally {
      await again.close();
    }
  });

  it('rejects malformed publishes', async () => {
    const e = makeEvent('payments.transaction.created', {});
    await expect(publisher.publish('payments.transaction.updated', e)).rejects.toThrow(/does not match/);
    await expect(publisher.publish('payments.>', e)).rejects.toThrow(/invalid event subject/);
    await expect(
      consumer.subscribe({ durable: 'x', subjects: ['payments.>', 'invoicing.>'], handler: () => undefined }),
    ).rejects.toThrow(/one domain/);
  });

  it('reports health and closes cleanly', async () => {
    const bus = await connectBus(ns, 'health', logger);
    expect(bus.health()).toMatchObject({ connected: true, status: 'connected', namespace: ns, service: 'health' });
    await bus.subscribe({ durable: 'h', subjects: 'payments.>', handler: () => undefined });
    expect(bus.health().subscriptions).toBe(1);
    await bus.close();
    await bus.close();
    expect(bus.health()).toMatchObject({ connected: false, status: 'closed', subscriptions: 0 });
  });

  it('fails to connect with an error naming the URL', async () => {
    const url = 'nats://user:secret@127.0.0.1:1';
    const err = await Bus.connect({ url, namespace: ns, service: 'x', logger, connectTimeoutMs: 2_000 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UnavailableError);
    const message = err instanceof Error ? err.message : '';
    expect(message).toContain('cannot connect to NATS at nats://***@127.0.0.1:1');
    expect(message).not.toContain('secret');
  });
});
