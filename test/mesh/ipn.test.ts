import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { letTimePass } from '../support/kit';
import { Bus, makeEvent } from '../../libs/bus/src/index';
import { Subjects, type TransactionStatusChanged } from '../../libs/contracts/src/events';
import { verifyIpn } from '../../libs/contracts/src/ipn-signature';
import { createLogger, newObjectId } from '../../libs/core/src/index';
import { call, makeClient } from '../../libs/grpc/src/index';
import { notificationsIpn } from '../../libs/proto/src/index';
import { IpnReceiver } from '../support/ipn-receiver';
import { NATS_URL, eventually, startTestMesh, type TestMesh } from '../support/mesh';

const BACKOFF_BASE_MS = 2_000;
const TIMEOUT_MS = 2_000;
/** Fixed in the service: lease = timeout + this margin. */
const LEASE_MARGIN_MS = 5_000;

describe('outbound IPN through the whole mesh', () => {
  let mesh: TestMesh;
  let bus: Bus;
  let client: notificationsIpn.NotificationsIpnServiceClient;
  const receiver = new IpnReceiver();
  let receiverUrl: string;
  let boot: { organizationId: string; siteId: string; webhookSigningSecret: string };

  beforeAll(async () => {
    receiverUrl = await receiver.start();
    mesh = await startTestMesh({
      env: { IPN_BACKOFF_BASE_MS: String(BACKOFF_BASE_MS), IPN_TIMEOUT_MS: String(TIMEOUT_MS) },
    });
    boot = await mesh.bootstrap();
    bus = await Bus.connect({
      url: NATS_URL,
      namespace: mesh.namespace,
      service: 'ipn-test-publisher',
      logger: createLogger({ service: 'ipn-test', level: 'silent' }),
    });
    client = makeClient(notificationsIpn.NotificationsIpnServiceClient, `127.0.0.1:${mesh.ports['notifications-ipn']}`);
  });

  afterAll(async () => {
    client?.close();
    await bus?.close();
    await mesh?.dispose();
    await receiver.stop();
  });

  /** Publishes a status change exactly as checkout would (same subject, schema and event id rule). */
  async function publish(
    over: Partial<TransactionStatusChanged> & { transactionId: string },
    eventIdOverride?: string,
  ) {
    const data: TransactionStatusChanged = {
      organizationId: boot.organizationId,
      siteId: boot.siteId,
      mode: 'live',
      status: 1,
      previousStatus: 0,
      subState: null,
      externalReference: `order-${over.transactionId.slice(-6)}`,
      ipnUrl: `${receiverUrl}/ipn/${over.transactionId}`,
      sequence: 1,
      changedAt: new Date().toISOString(),
      ...over,
    };
    const id = eventIdOverride ?? `test:${data.transactionId}:${data.sequence}`;
    await bus.publish(Subjects.transactionStatusChanged, makeEvent(Subjects.transactionStatusChanged, data, { id }));
    return data;
  }

  const list = async (transactionId: string, organizationId = boot.organizationId) =>
    (
      await call(
        client,
        client.listDeliveries,
        { organizationId, transactionId },
        { deadlineMs: 5_000, target: 'notifications-ipn' },
      )
    ).items;

  const settled = (transactionId: string, timeoutMs = 30_000) =>
    eventually(async () => {
      const [d] = await list(transactionId);
      return d && d.state !== 'pending' ? d : undefined;
    }, timeoutMs);

  it('sends exactly one POST whose signature verifies with the site secret when the receiver answers 200', async () => {
    const tx = newObjectId();
    receiver.respond = () => 200;
    await publish({ transactionId: tx, status: 1, externalReference: 'order-4711' });
    const d = await settled(tx);
    expect(d).toMatchObject({
      transactionId: tx,
      status: 1,
      state: 'succeeded',
      lastHttpStatus: 200,
      url: `${receiverUrl}/ipn/${tx}`,
    });
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({ number: 1, httpStatus: 200, error: '' });
    // No retry after a success: the time a second attempt would have been due passes without one.
    await letTimePass(BACKOFF_BASE_MS, 'the time a retry would have been due');
    const got = receiver.at(`/ipn/${tx}`);
    expect(got).toHaveLength(1);
    const req = got[0]!;
    expect(req.rawBody.toString()).toBe(`{"id":"${tx}","externalReference":"order-4711","status":1}`);
    expect(req.headers['x-signature-timestamp']).toMatch(/^\d{10}$/);
    expect(Math.abs(Number(req.headers['x-signature-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(verifyIpn(boot.webhookSigningSecret, req.headers, req.rawBody, 300).valid).toBe(true);
    expect(verifyIpn(`${boot.webhookSigningSecret}x`, req.headers, req.rawBody, 300).valid).toBe(false);
  });

  it('makes exactly 3 attempts against a receiver answering 500, then marks the delivery failed', async () => {
    const tx = newObjectId();
    receiver.respond = (r) => (r.path === `/ipn/${tx}` ? 500 : 200);
    await publish({ transactionId: tx, status: 2, externalReference: null });
    const d = await settled(tx);
    expect(d).toMatchObject({ state: 'failed', lastHttpStatus: 500, lastError: 'HTTP 500', nextAttemptAt: undefined });
    expect(d.attempts.map((a) => [a.number, a.httpStatus, a.error])).toEqual([
      [1, 500, 'HTTP 500'],
      [2, 500, 'HTTP 500'],
      [3, 500, 'HTTP 500'],
    ]);
    // No fourth attempt: the time it would have been due passes without one.
    await letTimePass(3 * BACKOFF_BASE_MS, 'the time a fourth attempt would have been due');
    const got = receiver.at(`/ipn/${tx}`);
    expect(got).toHaveLength(3);
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(BACKOFF_BASE_MS - 50);
    expect(got[2]!.at - got[1]!.at).toBeGreaterThanOrEqual(2 * BACKOFF_BASE_MS - 50);
    for (const r of got) {
      expect(r.rawBody.toString()).toBe(`{"id":"${tx}","status":2}`);
      expect(verifyIpn(boot.webhookSigningSecret, r.headers, r.rawBody, 300).valid).toBe(true);
    }
  });

  it('creates no second delivery for a redelivered or republished status change', async () => {
    const tx = newObjectId();
    receiver.respond = () => 200;
    await publish({ transactionId: tx });
    await settled(tx);
    // the same event again, and the same fact under another event id (as after the dedupe window)
    await publish({ transactionId: tx });
    await publish({ transactionId: tx }, `republished:${tx}`);
    // a later event on the same transaction proves the consumer got past the duplicates
    await publish({ transactionId: tx, sequence: 2, status: 3 });
    await eventually(
      async () => (await list(tx)).length === 2 && (await list(tx)).every((d) => d.state === 'succeeded'),
      20_000,
    );
    const items = await list(tx);
    expect(items.map((d) => [d.sequence, d.status])).toEqual([
      [2, 3],
      [1, 1],
    ]);
    expect(receiver.at(`/ipn/${tx}`).map((r) => JSON.parse(r.rawBody.toString()).status)).toEqual([1, 3]);
  });

  it('sends nothing for a transaction without ipnUrl and hides deliveries from other organizations', async () => {
    const none = newObjectId();
    const tx = newObjectId();
    receiver.respond = () => 200;
    await publish({ transactionId: none, ipnUrl: null });
    await publish({ transactionId: tx });
    await settled(tx);
    expect(await list(none)).toEqual([]);
    expect(receiver.at(`/ipn/${none}`)).toHaveLength(0);
    expect(await list(tx, newObjectId())).toEqual([]);
    await expect(list('not-an-id')).rejects.toMatchObject({ message: expect.stringMatching(/transactionId/) });
  });

  it('survives a crash during the backoff: never more than 3 attempts, and the delivery completes', async () => {
    const tx = newObjectId();
    receiver.respond = (r, nth) => (r.path === `/ipn/${tx}` && nth === 1 ? 500 : 200);
    await publish({ transactionId: tx });
    // attempt 1 failed and its outcome is stored: the retry is waiting in the backoff
    await eventually(
      async () => {
        const [d] = await list(tx);
        return d?.attempts.length === 1 && d.attempts[0]!.httpStatus === 500 && d.state === 'pending';
      },
      20_000,
      20,
    );
    await mesh.kill('notifications-ipn');
    expect(receiver.at(`/ipn/${tx}`)).toHaveLength(1);
    await mesh.restart('notifications-ipn');
    const d = await settled(tx);
    expect(d.state).toBe('succeeded');
    expect(d.attempts.map((a) => [a.number, a.httpStatus])).toEqual([
      [1, 500],
      [2, 200],
    ]);
    // No attempt after the success that followed the restart: the time a third would have been due passes.
    await letTimePass(2 * BACKOFF_BASE_MS, 'the time a third attempt would have been due');
    expect(receiver.at(`/ipn/${tx}`)).toHaveLength(2);
  });

  it('counts an attempt cut off by a crash as made ("interrupted") and still never exceeds 3', async () => {
    const tx = newObjectId();
    // attempt 1 never answers (the service dies meanwhile); attempt 2 fails; attempt 3 succeeds
    receiver.respond = (r, nth) => (r.path !== `/ipn/${tx}` ? 200 : nth === 1 ? 'hang' : nth === 2 ? 500 : 200);
    await publish({ transactionId: tx });
    await eventually(() => receiver.at(`/ipn/${tx}`).length === 1, 20_000, 20);
    await mesh.kill('notifications-ipn');
    await mesh.restart('notifications-ipn');
    const d = await settled(tx, TIMEOUT_MS + LEASE_MARGIN_MS + 3 * BACKOFF_BASE_MS + 30_000);
    expect(d.state).toBe('succeeded');
    expect(d.attempts.map((a) => [a.number, a.httpStatus, a.error])).toEqual([
      [1, 0, 'interrupted'],
      [2, 500, 'HTTP 500'],
      [3, 200, ''],
    ]);
    expect(receiver.at(`/ipn/${tx}`)).toHaveLength(3);
  });
});
