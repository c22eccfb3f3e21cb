import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyIpn } from '../../libs/contracts/src/ipn-signature';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';
import { IpnReceiver } from '../support/ipn-receiver';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';

const MAIN_FRONTEND = 'https://checkout.paymesh.test';
const billing = {
  name: 'Pat Wallet',
  email: 'pat@example.com',
  line1: 'Hauptstr. 1',
  city: 'Berlin',
  postalCode: '10115',
  country: 'DE',
};

type App = { id: string; clientId: string; clientSecret: string };

/**
 * provider_d transactions left unapproved are abandoned: an order the buyer never approved moves
 * no money without the platform's capture, so expiry accepts it as cancelled and the transaction
 * goes to -2 with one IPN; a late approval then captures nothing. An order the buyer approved is
 * never abandoned: its capture settles it. Transactions are abandoned 3 s after they start here.
 */
describe('provider_d abandonment', () => {
  let mesh: TestMesh;
  let boot: BootstrapResult;
  let provider: App;
  let sandbox: string;
  let admin: string;
  let pub: string;
  const receiver = new IpnReceiver();
  let ipnBase: string;

  const adminCall = (method: string, path: string, body?: unknown) =>
    api(method, `${admin}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });

  async function sandboxCall(method: string, path: string, body?: unknown) {
    const basic = Buffer.from(`${provider.clientId}:${provider.clientSecret}`).toString('base64');
    const tok = await fetch(`${sandbox}/v1/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    const { access_token } = (await tok.json()) as { access_token: string };
    const res = await fetch(`${sandbox}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${access_token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  const statusOf = async (transactionId: string) =>
    (await api('GET', `${pub}/transactions/${transactionId}/status`)).body.status as number;
  const ipnStatuses = (path: string) => receiver.at(path).map((r) => JSON.parse(r.rawBody.toString()).status as number);
  const eventsOf = async (type: string) =>
    (await sandboxCall('GET', `/_sandbox/events?event_type=${type}`)).body.events as any[];
  const deliveries = async (eventId: string) =>
    (await sandboxCall('GET', `/_sandbox/webhook-calls?event=${eventId}`)).body.calls as any[];

  /** A checkout session (valid for an hour) and its provider_d transaction: the order is created, the buyer approves nothing yet. */
  async function unapproved(ipnPath: string): Promise<{ transactionId: string; order: string }> {
    const c = await adminCall('POST', `/checkouts/${boot.siteId}/create`, {
      amount: 3100,
      currency: 'EUR',
      externalReference: `order${ipnPath.replace(/\//g, '-')}`,
      ipnUrl: `${ipnBase}${ipnPath}`,
      returnUrl: 'https://shop.example/thanks',
    });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    const t = await api('POST', `${pub}/transactions/create`, {
      body: { sessionPublicId: c.body.sessionPublicId, providerId: provider.id, billingAddress: billing },
      headers: { origin: MAIN_FRONTEND },
    });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    const order = new URL(t.body.redirectUrl as string).searchParams.get('token')!;
    expect((await sandboxCall('GET', `/v2/checkout/orders/${order}`)).body.status).toBe('CREATED');
    return { transactionId: t.body.transactionId as string, order };
  }

  beforeAll(async () => {
    mesh = await startTestMesh({
      env: {
        MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND,
        TRANSACTION_ABANDON_AFTER_MS: '3000',
        EXPIRY_INTERVAL_MS: '300',
        // The reconciler first looks at a payment 8 s after it started (after its expiry was
        // tried), then often: a capture it would make has every chance to show.
        RECONCILE_MIN_PENDING_AGE_MS: '8000',
        RECONCILE_INTERVAL_MS: '300',
      },
    });
    admin = mesh.adminBaseUrl;
    pub = mesh.publicBaseUrl;
    sandbox = mesh.sandboxUrls['sandbox-provider-d']!;
    ipnBase = await receiver.start();
    boot = await mesh.bootstrap();
    provider = boot.providers!.provider_d!;
  });

  afterAll(async () => {
    await receiver.stop();
    await mesh?.dispose();
  });

  it('an order left unapproved past the abandonment age: -2 with one signed IPN; approved late, it is never captured', async () => {
    const { transactionId, order } = await unapproved('/ipn/abandoned');
    await eventually(async () => (await statusOf(transactionId)) === -2, 30_000);
    const tx = (await adminCall('GET', `/transactions/${transactionId}`)).body;
    expect(tx.status).toBe(-2);
    await eventually(() => ipnStatuses('/ipn/abandoned').length >= 1, 20_000);
    const [ipn] = receiver.at('/ipn/abandoned');
    expect(JSON.parse(ipn!.rawBody.toString())).toMatchObject({ id: transactionId, status: -2 });
    expect(verifyIpn(boot.webhookSigningSecret, ipn!.headers, ipn!.rawBody, 300).valid).toBe(true);

    // The buyer approves on the provider's side afterwards; the approval webhook arrives and is handled.
    expect((await sandboxCall('POST', `/_sandbox/orders/${order}/approve`, { funding: 'ok' })).status).toBe(200);
    const approval = await eventually(
      async () => (await eventsOf('CHECKOUT.ORDER.APPROVED')).find((e) => e.resource.id === order),
      20_000,
    );
    await eventually(async () => (await deliveries(approval.id)).some((c) => c.ok), 20_000);
    await eventually(
      () =>
        mesh
          .logs('payments-webhooks')
          .some(
            (l) =>
              l.includes(transactionId) && l.includes('approval of a payment no longer pending here; not captured'),
          ),
      20_000,
    );
    // A second delivery of the approval (the provider resends) captures nothing either.
    expect((await sandboxCall('POST', `/_sandbox/events/${approval.id}/resend`, { times: 1 })).status).toBe(200);
    await eventually(async () => (await deliveries(approval.id)).filter((c) => c.ok).length >= 2, 20_000);

    const o = (await sandboxCall('GET', `/v2/checkout/orders/${order}`)).body;
    expect(o.status).toBe('APPROVED');
    expect(o.purchase_units[0].payments?.captures ?? []).toEqual([]);
    expect(await statusOf(transactionId)).toBe(-2);
    expect(ipnStatuses('/ipn/abandoned')).toEqual([-2]);
  });

  it('an approved order whose approval webhook was lost is not abandoned: expiry is refused and the reconciler captures it (status 1, one IPN)', async () => {
    const { transactionId, order } = await unapproved('/ipn/approved');
    expect((await sandboxCall('POST', '/_sandbox/webhooks/drop', { enabled: true })).status).toBe(200);
    try {
      expect((await sandboxCall('POST', `/_sandbox/orders/${order}/approve`, { funding: 'ok' })).status).toBe(200);
      // Due for expiry after 3 s, before the reconciler's first look: the provider refuses the cancel.
      await eventually(
        () =>
          mesh
            .logs('checkout')
            .some((l) => l.includes(transactionId) && l.includes('provider refused to cancel the abandoned payment')),
        20_000,
      );
      expect(await statusOf(transactionId)).toBe(0);
      await eventually(async () => (await statusOf(transactionId)) === 1, 30_000);
    } finally {
      await sandboxCall('POST', '/_sandbox/webhooks/drop', { enabled: false });
    }
    expect((await sandboxCall('GET', `/v2/checkout/orders/${order}`)).body.status).toBe('COMPLETED');
    await eventually(() => ipnStatuses('/ipn/approved').length >= 1, 20_000);
    expect(ipnStatuses('/ipn/approved')).toEqual([1]);
  });
});
