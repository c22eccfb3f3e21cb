import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';
import { IpnReceiver } from '../support/ipn-receiver';
import { verifyIpn } from '../../libs/contracts/src/ipn-signature';
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
 * Reconciliation: for each provider type the sandbox loses the webhooks of a payment, the
 * reconciler in payments-webhooks asks the provider (and, where the platform captures, captures
 * the approved payment) and completes the transaction through the webhook's claimed path; the
 * webhooks arriving late change nothing. Short reconcile ages keep it fast.
 */
describe('reconciliation', () => {
  let mesh: TestMesh;
  let boot: BootstrapResult;
  let provider: { id: string; apiKey: string };
  let sandbox: string;
  let admin: string;
  let pub: string;
  const receiver = new IpnReceiver();
  let ipnBase: string;

  const adminCall = (method: string, path: string, body?: unknown) =>
    api(method, `${admin}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });
  async function sandboxCall(method: string, path: string, body?: unknown) {
    const res = await fetch(`${sandbox}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${provider.apiKey}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as any };
  }
  const statusOf = async (transactionId: string) =>
    (await api('GET', `${pub}/transactions/${transactionId}/status`)).body.status as number;
  const ipnStatuses = (path: string) => receiver.at(path).map((r) => JSON.parse(r.rawBody.toString()).status as number);
  const webhookCalls = async (tr: string) =>
    (await sandboxCall('GET', `/_sandbox/webhook-calls?payment=${tr}`)).body._embedded.calls as Array<{
      ok: boolean;
      error: string | null;
    }>;

  async function checkout(amount: number, ipnPath: string): Promise<string> {
    const c = await adminCall('POST', `/checkouts/${boot.siteId}/create`, {
      amount,
      currency: 'EUR',
      externalReference: `order${ipnPath.replace(/\//g, '-')}`,
      ipnUrl: `${ipnBase}${ipnPath}`,
      returnUrl: 'https://shop.example/thanks',
    });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    return c.body.sessionPublicId as string;
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
        RECONCILE_MIN_PENDING_AGE_MS: '300',
        RECONCILE_INTERVAL_MS: '300',
        RECONCILE_BATCH_SIZE: '5',
        TRANSACTION_ABANDON_AFTER_MS: '4000',
        EXPIRY_INTERVAL_MS: '300',
      },
    });
    admin = mesh.adminBaseUrl;
    pub = mesh.publicBaseUrl;
    sandbox = mesh.sandboxUrls['sandbox-provider-b']!;
    ipnBase = await receiver.start();
    boot = await mesh.bootstrap();
    provider = boot.providers!.provider_b!;
  });

  afterAll(async () => {
    await receiver.stop();
    await mesh?.dispose();
  });

  /**
   * One provider type as the table below drives it: its sandbox's drop switch, what the buyer does
   * to pay, the webhook deliveries the sandbox lost for the payment, and how those arrive late.
   */
  interface Lossy {
    drop(enabled: boolean): Promise<void>;
    /** The buyer pays (as on the sandbox's pay page); the provider then has the payment paid. */
    pay(p: {
      sessionPublicId: string;
      transactionId: string;
      redirectUrl: string;
      providerPaymentId: string;
    }): Promise<void>;
    /** Every delivery the sandbox attempted for the payment's events so far. */
    deliveries(providerPaymentId: string): Promise<Array<{ ok: boolean; error: string | null }>>;
    /** Sends the lost payment webhooks late; answers an id the duplicate's log line names. */
    deliverLate(providerPaymentId: string): Promise<string>;
  }

  function lossy(type: 'provider_a' | 'provider_b' | 'provider_c' | 'provider_d'): Lossy {
    const url = mesh.sandboxUrls[`sandbox-${type.replace('_', '-')}`]!;
    const rec = boot.providers![type]! as Record<string, string>;
    const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });
    const bearer = (token: string, method: string, path: string, body?: unknown) =>
      fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }).then(json);
    switch (type) {
      case 'provider_a': {
        const call = (method: string, path: string, form?: Record<string, string>) =>
          fetch(`${url}${path}`, {
            method,
            headers: {
              authorization: `Bearer ${rec.secretKey}`,
              ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
            },
            body: form ? new URLSearchParams(form).toString() : undefined,
          }).then(json);
        const succeeded = async (pi: string) => {
          const event = (
            (await call('GET', '/v1/events?type=payment_intent.succeeded&limit=100')).body.data as any[]
          ).find((e) => e.data.object.id === pi);
          expect(event, `payment_intent.succeeded of ${pi}`).toBeDefined();
          return event.id as string;
        };
        return {
          drop: async (enabled) =>
            expect((await call('POST', '/_sandbox/webhooks/drop', { enabled: String(enabled) })).status).toBe(200),
          pay: async ({ providerPaymentId }) =>
            expect(
              (
                await call('POST', `/v1/payment_intents/${providerPaymentId}/confirm`, {
                  payment_method: 'pm_card_visa',
                })
              ).status,
            ).toBe(200),
          deliveries: async (pi) => (await call('GET', `/_sandbox/deliveries?event=${await succeeded(pi)}`)).body.data,
          deliverLate: async (pi) => {
            const id = await succeeded(pi);
            expect((await call('POST', `/_sandbox/events/${id}/resend`)).status).toBe(200);
            return id;
          },
        };
      }
      case 'provider_b': {
        const call = (method: string, path: string, body?: unknown) => bearer(rec.apiKey!, method, path, body);
        return {
          drop: async (enabled) =>
            expect((await call('POST', '/_sandbox/webhooks/drop', { enabled })).status).toBe(200),
          pay: async ({ redirectUrl, providerPaymentId }) => {
            const decided = await fetch(redirectUrl, {
              method: 'POST',
              redirect: 'manual',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: 'status=paid',
            });
            expect(decided.status).toBe(303);
            expect((await call('GET', `/v2/payments/${providerPaymentId}`)).body.status).toBe('paid');
          },
          deliveries: async (tr) => (await call('GET', `/_sandbox/webhook-calls?payment=${tr}`)).body._embedded.calls,
          deliverLate: async (tr) => {
            expect((await call('POST', `/_sandbox/payments/${tr}/webhook`, { times: 1 })).status).toBe(200);
            return `${tr}:paid`;
          },
        };
      }
      case 'provider_c': {
        const call = (method: string, path: string, body?: unknown) => bearer(rec.accessToken!, method, path, body);
        const webhooks = async (pm: string) =>
          (await call('GET', `/_sandbox/webhooks?resource=${pm}`)).body.webhooks as Array<{
            id: string;
            events: any[];
            calls: any[];
          }>;
        return {
          drop: async (enabled) =>
            expect((await call('POST', '/_sandbox/webhooks/drop', { enabled })).status).toBe(200),
          pay: async ({ sessionPublicId, transactionId, redirectUrl, providerPaymentId }) => {
            const decided = await fetch(redirectUrl, {
              method: 'POST',
              redirect: 'manual',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: 'decision=confirmed',
            });
            expect(decided.status).toBe(303);
            const pending = await api('POST', `${pub}/transactions/${transactionId}/mark-pending`, {
              body: { sessionPublicId },
              headers: { origin: MAIN_FRONTEND },
            });
            expect(pending.status, JSON.stringify(pending.body)).toBe(200);
            expect(
              (await call('POST', `/_sandbox/payments/${providerPaymentId}/collect`, {})).body.payments.status,
            ).toBe('confirmed');
          },
          deliveries: async (pm) => (await webhooks(pm)).flatMap((w) => w.calls),
          deliverLate: async (pm) => {
            const confirmed = (await webhooks(pm)).find((w) => w.events.some((e) => e.action === 'confirmed'));
            expect(confirmed, `payments.confirmed webhook of ${pm}`).toBeDefined();
            expect((await call('POST', `/_sandbox/webhooks/${confirmed!.id}/resend`, {})).status).toBe(200);
            return confirmed!.events.find((e) => e.action === 'confirmed').id as string;
          },
        };
      }
      case 'provider_d': {
        const call = async (method: string, path: string, body?: unknown) => {
          const basic = Buffer.from(`${rec.clientId}:${rec.clientSecret}`).toString('base64');
          const tok = await fetch(`${url}/v1/oauth2/token`, {
            method: 'POST',
            headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
            body: 'grant_type=client_credentials',
          });
          return bearer(((await tok.json()) as { access_token: string }).access_token, method, path, body);
        };
        /** The order's events: its approval, and the capture's once captured. */
        const eventsOf = async (order: string) =>
          ((await call('GET', '/_sandbox/events')).body.events as any[]).filter(
            (e) => e.resource?.id === order || e.resource?.supplementary_data?.related_ids?.order_id === order,
          );
        return {
          drop: async (enabled) =>
            expect((await call('POST', '/_sandbox/webhooks/drop', { enabled })).status).toBe(200),
          pay: async ({ redirectUrl }) => {
            const decided = await fetch(redirectUrl, {
              method: 'POST',
              redirect: 'manual',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: 'action=approve',
            });
            expect(decided.status).toBe(303);
          },
          deliveries: async (order) => {
            const out: Array<{ ok: boolean; error: string | null }> = [];
            for (const e of await eventsOf(order))
              out.push(...((await call('GET', `/_sandbox/webhook-calls?event=${e.id}`)).body.calls as any[]));
            return out;
          },
          deliverLate: async (order) => {
            const events = await eventsOf(order);
            const types = events.map((e) => e.event_type);
            expect(types).toEqual(expect.arrayContaining(['CHECKOUT.ORDER.APPROVED', 'PAYMENT.CAPTURE.COMPLETED']));
            for (const e of events)
              expect((await call('POST', `/_sandbox/events/${e.id}/resend`, {})).status).toBe(200);
            return `${events.find((e) => e.event_type === 'PAYMENT.CAPTURE.COMPLETED').resource.id}:COMPLETED`;
          },
        };
      }
    }
  }

  it.each(['provider_a', 'provider_b', 'provider_c', 'provider_d'] as const)(
    '%s: a payment whose webhooks the sandbox drops is completed by the reconciler (one signed IPN, status 1); the webhooks arriving late change nothing',
    async (type) => {
      const sandboxOf = lossy(type);
      const ipnPath = `/ipn/reconciled-${type}`;
      await sandboxOf.drop(true);
      try {
        const sessionPublicId = await checkout(2500, ipnPath);
        const t = await api('POST', `${pub}/transactions/create`, {
          body: { sessionPublicId, providerId: boot.providers![type]!.id, billingAddress: billing },
          headers: { origin: MAIN_FRONTEND },
        });
        expect(t.status, JSON.stringify(t.body)).toBe(200);
        const transactionId = t.body.transactionId as string;
        const providerPaymentId = (await adminCall('GET', `/transactions/${transactionId}`)).body
          .providerPaymentId as string;
        await sandboxOf.pay({
          sessionPublicId,
          transactionId,
          redirectUrl: t.body.redirectUrl as string,
          providerPaymentId,
        });
        // The provider has it paid, but every webhook about it was lost.
        const lost = await sandboxOf.deliveries(providerPaymentId);
        expect(lost.length).toBeGreaterThan(0);
        for (const d of lost) expect(d).toMatchObject({ ok: false, error: 'dropped by sandbox control' });

        await eventually(async () => (await statusOf(transactionId)) === 1, 30_000);
        await eventually(() => ipnStatuses(ipnPath).length >= 1, 20_000);
        expect(
          mesh
            .logs('payments-webhooks')
            .some((l) => l.includes(providerPaymentId) && l.includes('reconciler applied a missed provider outcome')),
        ).toBe(true);
        expect((await sandboxOf.deliveries(providerPaymentId)).filter((d) => d.ok)).toEqual([]);
        const [ipn] = receiver.at(ipnPath);
        expect(JSON.parse(ipn!.rawBody.toString())).toMatchObject({ id: transactionId, status: 1 });
        expect(verifyIpn(boot.webhookSigningSecret, ipn!.headers, ipn!.rawBody, 300).valid).toBe(true);

        // The lost webhooks arrive late: duplicates of the reconciled outcome; nothing changes.
        await sandboxOf.drop(false);
        const duplicateOf = await sandboxOf.deliverLate(providerPaymentId);
        await eventually(async () => (await sandboxOf.deliveries(providerPaymentId)).some((d) => d.ok), 20_000);
        await eventually(
          () =>
            mesh
              .logs('payments-webhooks')
              .some((l) => l.includes(duplicateOf) && l.includes('duplicate provider event delivery')),
          20_000,
        );
        expect(await statusOf(transactionId)).toBe(1);
        expect((await adminCall('GET', `/transactions/${transactionId}`)).body.status).toBe(1);
        expect(ipnStatuses(ipnPath)).toEqual([1]);
      } finally {
        await sandboxOf.drop(false);
      }
    },
  );

  it('a payment still open at the provider is never guessed; once abandoned, the provider cancels it and it expires with its IPN', async () => {
    const { transactionId, tr } = await startPayment(await checkout(1200, '/ipn/open'));
    // Several looks happen (the reconciler logs each), none changes the transaction.
    await eventually(
      () =>
        mesh.logs('payments-webhooks').filter((l) => l.includes(tr) && l.includes('reconciler look: nothing new'))
          .length >= 2,
      20_000,
    );
    expect(await statusOf(transactionId)).toBe(0);
    expect(ipnStatuses('/ipn/open')).toEqual([]);

    // Pending past TRANSACTION_ABANDON_AFTER_MS: cancelled at the provider (only the expiry worker
    // cancels here), then canceled (-2) here.
    await eventually(async () => (await statusOf(transactionId)) === -2, 30_000);
    expect((await sandboxCall('GET', `/v2/payments/${tr}`)).body.status).toBe('canceled');
    await eventually(() => ipnStatuses('/ipn/open').length >= 1, 20_000);
    // The provider's cancellation webhook follows (it may even overtake the expiry's own write, or
    // a reconciler look may report the cancellation first): either way one IPN, status -2.
    await eventually(async () => (await webhookCalls(tr)).some((c) => c.ok), 20_000);
    const handled = await eventually(
      () =>
        mesh
          .logs('payments-webhooks')
          .find(
            (l) =>
              l.includes(`${tr}:canceled`) &&
              (l.includes('provider event reported') || l.includes('duplicate provider event delivery')),
          ),
      20_000,
    );
    if (handled.includes('provider event reported'))
      await eventually(() => mesh.logs('checkout').some((l) => l.includes(`${tr}:canceled`)), 20_000);
    expect(await statusOf(transactionId)).toBe(-2);
    expect(ipnStatuses('/ipn/open')).toEqual([-2]);
  });
});
