import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrivateNatsServer } from '../../../test/support/nats-server';
import type { Bus } from '../src/bus';
import { makeEvent } from '../src/envelope';
import { EventCache } from '../src/event-cache';
import { captureLogger, closeBuses, connectBus, openBuses, testNamespace, waitFor } from './helpers';

const ns = testNamespace();
const { logger } = captureLogger('event-cache-test');

/** Two replicas' buses: one holds a cache of another service's answers, the other publishes. */
describe("EventCache: a per-process copy dropped by the owner's events", () => {
  let holder: Bus;
  let owner: Bus;

  beforeAll(async () => {
    [holder, owner] = await openBuses(ns, logger, 'holder', 'owner');
  });

  afterAll(() => closeBuses(ns, holder, owner));

  it('serves a repeated read from memory, and reads again within 1 s of an event published anywhere', async () => {
    const cache = new EventCache('secrets');
    await cache.watch(holder, ['checkout.site.*']);
    let value = 'v1';
    let loads = 0;
    const load = async () => (loads++, value);
    expect(await cache.read('site-1', load)).toBe('v1');
    expect(await cache.read('site-1', load)).toBe('v1');
    expect(loads).toBe(1);

    value = 'v2';
    const at = Date.now();
    await owner.publish(
      'checkout.site.secret_rotated',
      makeEvent('checkout.site.secret_rotated', { siteId: 'site-1' }, { id: `rot-${at}` }),
    );
    await waitFor(async () => (await cache.read('site-1', load)) === 'v2', 1_000);
    expect(Date.now() - at).toBeLessThan(1_000);

    // An event on a subject not watched drops nothing.
    await owner.publish(
      'checkout.transaction.status_changed',
      makeEvent('checkout.transaction.status_changed', {}, { id: `tx-${at}` }),
    );
    const before = loads;
    await cache.read('site-1', load);
    expect(loads).toBe(before);
    cache.close();
  });
});

describe('EventCache while the bus is disconnected', () => {
  const server = new PrivateNatsServer();
  const privateNs = testNamespace();
  let bus: Bus;

  beforeAll(async () => {
    await server.start();
    bus = await connectBus(privateNs, 'holder', logger, { url: server.url, reconnectWaitMs: 100 });
  });

  afterAll(async () => {
    await bus?.close();
    await server.stop();
  });

  it('serves nothing from memory while events could be missed, and caches again once reconnected', async () => {
    const cache = new EventCache('providers');
    await cache.watch(bus, ['payments.provider.*']);
    let loads = 0;
    const load = async () => ++loads;
    await cache.read('org', load);
    await cache.read('org', load);
    expect(loads).toBe(1);

    await server.kill();
    await waitFor(() => !bus.health().connected, 5_000);
    await cache.read('org', load);
    await cache.read('org', load);
    expect(loads).toBe(3);

    await server.restart();
    await waitFor(() => bus.health().connected, 10_000);
    await cache.read('org', load);
    await cache.read('org', load);
    expect(loads).toBe(4);
    cache.close();
  });
});
