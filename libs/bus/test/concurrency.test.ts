import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bus } from '../src/bus';
import { makeEvent } from '../src/envelope';
import { letTimePass } from '../../../test/support/kit';
import {
  captureLogger,
  closeBuses,
  consumerSettled,
  consumerState,
  openBuses,
  testNamespace,
  waitFor,
} from './helpers';

const ns = testNamespace();
const { logger } = captureLogger('concurrency-test');
let publisher: Bus;
let consumer: Bus;

beforeAll(async () => {
  [publisher, consumer] = await openBuses(ns, logger, 'payments', 'ledger');
});

afterAll(() => closeBuses(ns, publisher, consumer));

/** A gate the handlers wait on until the test opens it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

describe('subscription concurrency', () => {
  it('runs up to `concurrency` handlers at once, no more, and acks every message once', async () => {
    const subject = 'payments.payment.captured';
    const g = gate();
    let running = 0;
    let maxRunning = 0;
    const handled = new Map<string, number>();
    const sub = await consumer.subscribe({
      durable: 'bounded',
      subjects: subject,
      concurrency: 4,
      ackWait: 2_000,
      handler: async (event) => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        await g.wait;
        running -= 1;
        handled.set(event.id, (handled.get(event.id) ?? 0) + 1);
      },
    });
    const events = Array.from({ length: 12 }, (_, i) => makeEvent(subject, { n: i }));
    await Promise.all(events.map((e) => publisher.publish(subject, e)));

    await waitFor(() => running === 4, 10_000, 'four handlers running');
    // Eight more are waiting, yet no fifth handler starts while four run: the subscription has been
    // handed more than four (it pulls ahead), and still runs four.
    await waitFor(
      async () => (await consumerState(ns, 'ledger', 'bounded')).ackPending > 4,
      10_000,
      'more events handed to the subscription than it may run',
    );
    expect(running).toBe(4);
    g.open();
    await waitFor(() => handled.size === 12, 10_000, 'every event handled');
    expect(maxRunning).toBe(4);

    // Plain acks took: the server holds no unacknowledged message, so nothing comes back after the
    // ack wait (2 s).
    await consumerSettled(ns, 'ledger', 'bounded');
    expect([...handled.values()].every((n) => n === 1)).toBe(true);
    await sub.stop();
  });

  it('finishes the handlers in flight before stop() resolves', async () => {
    const subject = 'payments.payment.refunded';
    const g = gate();
    let started = 0;
    let finished = 0;
    const sub = await consumer.subscribe({
      durable: 'graceful',
      subjects: subject,
      concurrency: 3,
      handler: async () => {
        started += 1;
        await g.wait;
        // Handlers still busy after the gate opens: stop() must wait for this time too.
        await letTimePass(50, 'a handler that takes a while');
        finished += 1;
      },
    });
    await Promise.all([0, 1, 2].map((n) => publisher.publish(subject, makeEvent(subject, { n }))));
    await waitFor(() => started === 3, 10_000, 'three handlers running');

    const stopped = sub.stop();
    let resolved = false;
    void stopped.then(() => {
      resolved = true;
    });
    // Nothing marks "stop() would have resolved by now"; give a stop() that ignored the handlers in
    // flight the time to resolve.
    await letTimePass(200, 'room for a wrongly eager stop() to resolve');
    expect(resolved).toBe(false);
    g.open();
    await stopped;
    expect(finished).toBe(3);
  });
});
