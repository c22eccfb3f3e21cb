import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from 'nats';
import { verifyIpn } from '../../libs/contracts/src/ipn-signature';
import { api, eventually, NATS_URL, startTestMesh, type TestMesh } from '../support/mesh';
import { IpnReceiver } from '../support/ipn-receiver';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';

const MAIN_FRONTEND = 'https://checkout.paymesh.test';
const billing = {
  name: 'Erika Buyer',
  email: 'erika@example.com',
  line1: 'Hauptstr. 1',
  city: 'Berlin',
  postalCode: '10115',
  country: 'DE',
};

/**
 * Scheduled session expiry: checkout's sweep stores sessions past `expiresAt` as expired, announces
 * `checkout.session.expired`, and abandons the session's still-pending transaction through
 * transaction expiry (the provider cancels it, then -2 and its IPN). Transactions are abandoned on
 * their own only after an hour here, so what expires them within seconds is their session.
 */
describe('checkout session expiry', () => {
  let mesh: TestMesh;
  let boot: BootstrapResult;
  let provider: { id: string; apiKey: string };
  let sandbox: string;
  let admin: string;
  let pub: string;
  let nc: NatsConnection;
  const receiver = new IpnReceiver();
  let ipnBase: string;

  const adminCall = (method: string, path: string, body?: unknown) =>
    api(method, `${admin}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });
  async function sandboxCall(method: string, path: string) {
    const res = await fetch(`${sandbox}${path}`, { method, headers: { authorization: `Bearer ${provider.apiKey}` } });
    return { status: res.status, body: (await res.json()) as any };
  }
  const statusOf = async (transactionId: string) =>
    (await api('GET', `${pub}/transactions/${transactionId}/status`)).body.status as number;
  const ipnStatuses = (path: string) => receiver.at(path).map((r) => JSON.parse(r.rawBody.toString()).status as number);
  const publicStatus = async (sessionPublicId: string) =>
    (await api('GET', `${pub}/checkouts/${sessionPublicId}`, { headers: { origin: MAIN_FRONTEND } })).body
      .status as string;

  /** Every `checkout.session.expired` event in the mesh's namespace, read from its stream. */
  async function sessionExpiredEvents(): Promise<any[]> {
    const jsm = await nc.jetstreamManager();
    const stream = `${mesh.namespace.toUpperCase()}_CHECKOUT`;
    const info = await jsm.streams.info(stream).catch(() => null);
    if (!info || info.state.messages === 0) return [];
    const out: any[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const msg = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
      if (msg?.subject === `${mesh.namespace}.checkout.session.expired`) out.push(msg.json<any>().data);
    }
    return out;
  }

  async function checkout(ipnPath: string, lifetimeMs: number): Promise<{ id: string; sessionPublicId: string }> {
    const c = await adminCall('POST', `/checkouts/${boot.siteId}/create`, {
      amount: 1800,
      currency: 'EUR',
      externalReference: `order${ipnPath.replace(/\//g, '-')}`,
      ipnUrl: `${ipnBase}${ipnPath}`,
      returnUrl: 'https://shop.example/thanks',
      expiresAt: new Date(Date.now() + lifetimeMs).toISOString(),
    });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    return { id: c.body.id as string, sessionPublicId: c.body.sessionPublicId as string };
  }

  async function startPayment(
    sessionPublicId: string,
  ): Promise<{ transactionId: string; tr: string; redirectUrl: string }> {
    const t = await api('POST', `${pub}/transactions/create`, {
      body: { sessionPublicId, providerId: provider.id, billingAddress: billing },
      headers: { origin: MAIN_FRONTEND },
    });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    const redirectUrl = t.body.redirectUrl as string;
    return { transactionId: t.body.transactionId as string, tr: redirectUrl.split('/').at(-1)!, redirectUrl };
  }

  beforeAll(async () => {
    mesh = await startTestMesh({
      env: {
        MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND,
        TRANSACTION_ABANDON_AFTER_MS: '3600000',
        EXPIRY_INTERVAL_MS: '300',
        SESSION_EXPIRY_INTERVAL_MS: '300',
      },
    });
    admin = mesh.adminBaseUrl;
    pub = mesh.publicBaseUrl;
    sandbox = mesh.sandboxUrls['sandbox-provider-b']!;
    ipnBase = await receiver.start();
    nc = await connect({ servers: NATS_URL });
    boot = await mesh.bootstrap();
    provider = boot.providers!.provider_b!;
  });

  afterAll(async () => {
    await nc?.close();
    await receiver.stop();
    await mesh?.dispose();
  });

  it('a session past its expiry with a pending transaction: the session reads expired, the transaction is -2 with one signed IPN; a paid session is untouched', async () => {
    // Both sessions expire a few seconds from now; one is paid before, the other is left open.
    const open = await checkout('/ipn/open', 8000);
    const paid = await checkout('/ipn/paid', 8000);
    const pending = await startPayment(open.sessionPublicId);
    const completed = await startPayment(paid.sessionPublicId);
    const decided = await fetch(completed.redirectUrl, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'status=paid',
    });
    expect(decided.status).toBe(303);
    await eventually(async () => (await statusOf(completed.transactionId)) === 1, 20_000);
    await eventually(() => ipnStatuses('/ipn/paid').length >= 1, 20_000);
    expect(await statusOf(pending.transactionId)).toBe(0);

    // The sweep: the pending transaction is cancelled at the provider, then -2 with its IPN.
    await eventually(async () => (await statusOf(pending.transactionId)) === -2, 30_000);
    expect((await sandboxCall('GET', `/v2/payments/${pending.tr}`)).body.status).toBe('canceled');
    const expired = await eventually(
      async () => (await sessionExpiredEvents()).find((e) => e.checkoutId === open.id),
      20_000,
    );
    expect(expired).toMatchObject({
      organizationId: boot.organizationId,
      siteId: boot.siteId,
      abandonedTransactionId: pending.transactionId,
      externalReference: 'order-ipn-open',
    });
    expect(await publicStatus(open.sessionPublicId)).toBe('expired');
    expect((await adminCall('GET', `/checkouts/${open.id}`)).body.status).toBe('expired');
    const tx = (await adminCall('GET', `/transactions/${pending.transactionId}`)).body;
    expect(tx.status).toBe(-2);

    await eventually(() => ipnStatuses('/ipn/open').length >= 1, 20_000);
    // The provider's own cancellation webhook follows; it changes nothing and sends no second IPN.
    const handled = await eventually(
      () =>
        mesh
          .logs('payments-webhooks')
          .find(
            (l) =>
              l.includes(`${pending.tr}:canceled`) &&
              (l.includes('provider event reported') || l.includes('duplicate provider event delivery')),
          ),
      20_000,
    );
    if (handled.includes('provider event reported'))
      await eventually(() => mesh.logs('checkout').some((l) => l.includes(`${pending.tr}:canceled`)), 20_000);
    const [ipn] = receiver.at('/ipn/open');
    expect(JSON.parse(ipn!.rawBody.toString())).toMatchObject({ id: pending.transactionId, status: -2 });
    expect(verifyIpn(boot.webhookSigningSecret, ipn!.headers, ipn!.rawBody, 300).valid).toBe(true);
    expect(ipnStatuses('/ipn/open')).toEqual([-2]);

    // The paid session: still completed, its transaction 1, no expiry event, its one IPN only.
    expect(await publicStatus(paid.sessionPublicId)).toBe('completed');
    expect((await adminCall('GET', `/checkouts/${paid.id}`)).body.status).toBe('completed');
    expect(await statusOf(completed.transactionId)).toBe(1);
    expect((await sessionExpiredEvents()).filter((e) => e.checkoutId === paid.id)).toEqual([]);
    expect(ipnStatuses('/ipn/paid')).toEqual([1]);
  });

  it('a session without a transaction expires with its event and no IPN', async () => {
    const lonely = await checkout('/ipn/lonely', 1500);
    const expired = await eventually(
      async () => (await sessionExpiredEvents()).find((e) => e.checkoutId === lonely.id),
      20_000,
    );
    expect(expired).toMatchObject({ abandonedTransactionId: null });
    expect(await publicStatus(lonely.sessionPublicId)).toBe('expired');
    const listed = (await adminCall('GET', `/checkouts?status=expired&limit=100`)).body.items as any[];
    expect(listed.map((c) => c.id)).toEqual(expect.arrayContaining([lonely.id]));
    expect(ipnStatuses('/ipn/lonely')).toEqual([]);
  });
});
