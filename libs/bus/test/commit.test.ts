import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createStore, type DroppableStore, type OutboxEvent, type StoredDoc, TEST_PG_URL } from '@paymesh/store';
import type { Bus } from '../src/bus';
import { Committer, type CommitHandoff } from '../src/commit';
import { makeEvent } from '../src/envelope';
import { eventId } from '../src/event-id';
import { OutboxRelay } from '../src/relay';
import type { Subscription } from '../src/subscription';
import { captureLogger, connectBus, consumerSettled, dropNamespace, testNamespace, waitFor } from './helpers';

const PG_URL = TEST_PG_URL;

/** Event types of these tests, as a service's contracts would declare them. */
type TestEvents = {
  'invoicing.invoice.issued': { invoiceId: string; total: number };
};
const ISSUED = 'invoicing.invoice.issued';

interface InvoiceDoc extends StoredDoc {
  total: number;
}

const ns = testNamespace();
const { logger } = captureLogger('commit-test');
let bus: Bus;
let store: DroppableStore;
const subs: Subscription[] = [];
const relays: OutboxRelay[] = [];

beforeAll(async () => {
  bus = await connectBus(ns, 'invoicing', logger);
  store = await createStore({ url: PG_URL, database: `bus_commit_${randomBytes(5).toString('hex')}` });
});

afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.stop()));
  await Promise.all(subs.splice(0).map((s) => s.stop()));
});

afterAll(async () => {
  await bus?.close();
  await store?.dropDatabase();
  await store?.close();
  await dropNamespace(ns);
});

async function record(durable: string): Promise<string[]> {
  const seen: string[] = [];
  subs.push(await bus.subscribe({ durable, subjects: ISSUED, handler: (event) => void seen.push(event.id) }));
  return seen;
}

function relay(extra: Partial<ConstructorParameters<typeof OutboxRelay>[0]> = {}): OutboxRelay {
  const r = new OutboxRelay({ outbox: store.outbox, bus, logger, intervalMs: 60_000, ...extra });
  relays.push(r);
  return r;
}

/** Saves an invoice and emits its `issued` event in one commit; returns the event id. */
async function issue(committer: Committer<TestEvents>, total: number): Promise<string> {
  const invoiceId = `inv_${randomBytes(6).toString('hex')}`;
  const id = eventId(ISSUED, invoiceId);
  await committer.commit(async (tx) => {
    await tx.collection<InvoiceDoc>('invoices').insert({ id: invoiceId, total });
    tx.emit(ISSUED, { invoiceId, total }, { id });
  });
  return id;
}

async function pendingIds(): Promise<string[]> {
  return (await store.outbox.pending(1_000)).map((e) => e.id);
}

/** Publishes a fresh event and waits for it, so everything published before it has arrived too. */
async function sentinel(seen: string[]): Promise<void> {
  const event = makeEvent(ISSUED, { sentinel: true });
  await bus.publish(ISSUED, event);
  await waitFor(() => seen.includes(event.id), 10_000, 'sentinel');
}

describe('Committer and OutboxRelay on PostgreSQL', () => {
  it('publishes committed events at once, without waiting for the poll interval, and marks them', async () => {
    const seen = await record('commit-immediate');
    const r = relay();
    r.start();
    await waitFor(() => r.health().lastRunAt !== undefined, 5_000, 'first pass');
    const committer = new Committer<TestEvents>({ store, relay: r });

    const ids = [await issue(committer, 100), await issue(committer, 200), await issue(committer, 300)];
    // The poll interval is a minute: only the handoff can deliver within the wait.
    await waitFor(() => ids.every((id) => seen.includes(id)), 10_000, 'immediate delivery');
    expect(seen.filter((id) => ids.includes(id))).toEqual(ids);
    await waitFor(() => r.health().published >= 3, 5_000, 'marked');
    expect(await pendingIds()).toEqual([]);
  });

  it('leaves nothing behind when the transaction rolls back, and re-runs it after a version conflict', async () => {
    const seen = await record('commit-rollback');
    const r = relay();
    r.start();
    const committer = new Committer<TestEvents>({ store, relay: r });
    const doc = await store.collection<InvoiceDoc>('invoices').insert({ total: 1 });

    await expect(
      committer.commit(async (tx) => {
        tx.emit(ISSUED, { invoiceId: doc.id, total: 1 }, { id: eventId(ISSUED, doc.id, 'rolled-back') });
        throw new Error('use case failed');
      }),
    ).rejects.toThrow('use case failed');

    let runs = 0;
    await committer.commit(async (tx) => {
      runs += 1;
      const invoices = tx.collection<InvoiceDoc>('invoices');
      const current = await invoices.get(doc.id);
      // The first run loses its compare-and-set to a writer outside the transaction.
      if (runs === 1) await store.collection<InvoiceDoc>('invoices').replace(doc.id, doc.version, { total: 5 });
      const next = await invoices.replace(doc.id, current!.version, { total: current!.total + 1 });
      tx.emit(ISSUED, { invoiceId: doc.id, total: next.total }, { id: eventId(ISSUED, doc.id, String(next.version)) });
    });
    expect(runs).toBe(2);
    expect((await store.collection<InvoiceDoc>('invoices').get(doc.id))?.total).toBe(6);
    await sentinel(seen);
    expect(seen).not.toContain(eventId(ISSUED, doc.id, 'rolled-back'));
    expect(seen).toContain(eventId(ISSUED, doc.id, '3'));
  });

  it('publishes through the safety-net poll what a crash between commit and publish left in the outbox', async () => {
    const seen = await record('commit-crash');
    const r = relay({ intervalMs: 300 });
    r.start();
    await waitFor(() => r.health().lastRunAt !== undefined, 5_000, 'first pass');
    // The committing process dies right after COMMIT: its handoff never happens. It has the
    // relay's origin, so the outbox watch does not wake the relay either; only the poll is left.
    const crashed: CommitHandoff = { origin: r.origin, handoff: () => undefined };
    const id = await issue(new Committer<TestEvents>({ store, relay: crashed }), 42);
    expect(await pendingIds()).toContain(id);

    await waitFor(() => seen.includes(id), 10_000, 'delivery by the poll');
    await waitFor(async () => !(await pendingIds()).includes(id), 5_000, 'marked by the poll');
  });

  it('wakes a second relay instance through LISTEN/NOTIFY when another process commits', async () => {
    const seen = await record('commit-notify');
    const second = relay({ wakeDelayMs: 20 });
    second.start();
    await waitFor(() => second.health().lastRunAt !== undefined, 5_000, 'first pass');
    // A replica watches from its first own event on (idle services hold no listen connection).
    expect(second.health().watching).toBe(false);
    const own = await issue(new Committer<TestEvents>({ store, relay: second }), 6);
    await waitFor(() => seen.includes(own) && second.health().watching, 10_000, 'own event published and watching');
    // A replica that committed and died before publishing (its relay never runs).
    const writer = new OutboxRelay({ outbox: store.outbox, bus, logger });
    const id = await issue(new Committer<TestEvents>({ store, relay: writer }), 7);

    // Poll interval a minute, no handoff to `second`: only the notification can wake it.
    await waitFor(() => seen.includes(id), 10_000, 'delivery after the notification');
    await waitFor(async () => !(await pendingIds()).includes(id), 5_000, 'marked');
  });

  it('delivers an event once although it is published again (handoff twice and a poll)', async () => {
    const seen = await record('commit-dedupe');
    const r = relay();
    r.start();
    const handedOver: OutboxEvent[] = [];
    const tap: CommitHandoff = {
      origin: r.origin,
      handoff: (events) => {
        handedOver.push(...events);
        r.handoff(events);
      },
    };
    const id = await issue(new Committer<TestEvents>({ store, relay: tap }), 9);
    r.handoff(handedOver);
    await bus.publishOutboxEvent(handedOver[0]!);
    await r.runOnce();

    await sentinel(seen);
    await consumerSettled(ns, 'invoicing', 'commit-dedupe');
    expect(seen.filter((s) => s === id)).toHaveLength(1);
  });

  it('leaves events whose publish failed pending, in order, for the safety net', async () => {
    const seen = await record('commit-fail');
    let natsDown = true;
    let refused = 0;
    const r = new OutboxRelay({
      outbox: store.outbox,
      logger,
      intervalMs: 60_000,
      bus: {
        publishOutboxEvent: (event) => {
          if (natsDown) {
            refused += 1;
            return Promise.reject(new Error('nats unavailable'));
          }
          return bus.publishOutboxEvent(event);
        },
      },
    });
    relays.push(r);
    r.start();
    await waitFor(() => r.health().lastRunAt !== undefined, 5_000, 'first pass');
    const committer = new Committer<TestEvents>({ store, relay: r });
    const invoiceId = `inv_${randomBytes(6).toString('hex')}`;
    const ids = ['a', 'b', 'c'].map((part) => eventId(ISSUED, invoiceId, part));
    await committer.commit(async (tx) => {
      for (const id of ids) tx.emit(ISSUED, { invoiceId, total: 1 }, { id });
    });

    await waitFor(() => refused === 3, 5_000, 'the handoff tried all three');
    expect(await pendingIds()).toEqual(ids);
    natsDown = false;
    expect(await r.runOnce()).toBe(3);
    await waitFor(() => ids.every((id) => seen.includes(id)), 10_000, 'delivery by the next pass');
    expect(seen.filter((id) => ids.includes(id))).toEqual(ids);
  });
});
