import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyIpn } from '../../libs/contracts/src/ipn-signature';
import { EventTap } from '../support/event-tap';
import { IpnReceiver } from '../support/ipn-receiver';
import { NATS_URL, api, eventually, startTestMesh, type TestMesh } from '../support/mesh';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';

/**
 * The pay path reads sites, licences, providers, API keys and signing secrets from per-process
 * caches (store-backed ones invalidated by a row trigger's notification, others by the owning
 * service's events). What a merchant relies on: a change they make is in force for the very next
 * request, and where another service holds a copy, as soon as the change's event is out.
 */
describe('per-process caches on the pay path: changes take effect at once', () => {
  let mesh: TestMesh;
  let nc: NatsConnection;
  let boot: BootstrapResult;
  let providerId: string;
  let rotated: EventTap;
  let providerChanged: EventTap;
  const receiver = new IpnReceiver();
  let ipnBase: string;

  beforeAll(async () => {
    ipnBase = await receiver.start();
    mesh = await startTestMesh();
    nc = await connect({ servers: NATS_URL });
    rotated = new EventTap(nc, `${mesh.namespace}.checkout.site.secret_rotated`).start();
    providerChanged = new EventTap(nc, `${mesh.namespace}.payments.provider.changed`).start();
    boot = await mesh.bootstrap();
    const id = boot.providers?.provider_a?.id;
    if (!id) throw new Error('bootstrap created no provider_a record (is the sandbox built?)');
    providerId = id;
  });

  afterAll(async () => {
    await nc?.close();
    await mesh?.dispose();
    await receiver.stop();
  });

  const admin = (method: string, path: string, body?: unknown, token = boot.apiKey) =>
    api(method, `${mesh.adminBaseUrl}${path}`, { token, ...(body !== undefined ? { body } : {}) });

  async function checkout(tag: string) {
    const res = await admin('POST', `/checkouts/${boot.siteId}/create`, {
      amount: 1000,
      currency: 'EUR',
      email: `buyer-${tag}@example.test`,
      externalReference: `cache-${tag}`,
      returnUrl: 'https://shop.example/return',
      cancelUrl: 'https://shop.example/cancel',
      ipnUrl: `${ipnBase}/ipn/${tag}`,
      items: [{ name: 'Item', quantity: 1, unitPrice: 1000, vatRate: 19, itemType: 'digital_service' }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.sessionPublicId as string;
  }

  const startTransaction = (sessionPublicId: string, provider = providerId) =>
    api('POST', `${mesh.publicBaseUrl}/transactions/create`, {
      body: {
        sessionPublicId,
        providerId: provider,
        billingAddress: {
          name: 'Buyer',
          line1: 'Main St 1',
          city: 'Berlin',
          postalCode: '10115',
          country: 'DE',
          email: 'buyer@example.test',
        },
      },
    });

  /** A paid checkout; answers the raw IPN of its status 1. */
  async function pay(tag: string) {
    const tx = await startTransaction(await checkout(tag));
    expect(tx.status, JSON.stringify(tx.body)).toBe(200);
    const paid = await fetch(tx.body.redirectUrl as string, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=pay',
      redirect: 'manual',
    });
    await paid.arrayBuffer();
    expect(paid.status).toBe(303);
    return eventually(
      () =>
        receiver
          .at(`/ipn/${tag}`)
          .find((r) => (JSON.parse(r.rawBody.toString('utf8')) as { status: number }).status === 1),
      30_000,
      50,
    );
  }

  const signedWith = (secret: string, ipn: Awaited<ReturnType<typeof pay>>) =>
    verifyIpn(secret, ipn.headers as Record<string, string>, ipn.rawBody).valid;

  it('a rotated signing secret signs the next IPN; the old one no longer does', async () => {
    const oldSecret = boot.webhookSigningSecret;
    // Twice, so the secret is in notifications-ipn's cache.
    expect(signedWith(oldSecret, await pay('secret-1'))).toBe(true);
    expect(signedWith(oldSecret, await pay('secret-2'))).toBe(true);

    const rot = await admin('POST', `/sites/${boot.siteId}/webhook-secret/regenerate`);
    expect(rot.status).toBe(200);
    const newSecret = rot.body.webhookSigningSecret as string;
    // The rotation's event is what other services' copies are dropped by.
    await eventually(() => rotated.events.find((e) => e.data.siteId === boot.siteId), 1_000, 10);

    const ipn = await pay('secret-3');
    expect(signedWith(newSecret, ipn)).toBe(true);
    expect(signedWith(oldSecret, ipn)).toBe(false);
  });

  it('a disabled provider takes no payment from the next request on, and leaves the buyer view within 1 s', async () => {
    const session = await checkout('provider-1');
    const view = async () =>
      (
        await api('GET', `${mesh.publicBaseUrl}/checkouts/${session}`, {
          headers: { origin: 'https://shop.example' },
        })
      ).body.providers as string[];
    // Twice, so checkout holds the organization's providers in its cache.
    expect(await view()).toContain('provider_a');
    expect(await view()).toContain('provider_a');

    const off = await admin('PUT', `/providers/${providerId}/toggle`, { enabled: false });
    expect(off.status).toBe(200);
    const offAt = Date.now();
    // At once: payments-webhooks, which made the change, refuses the payment.
    const refused = await startTransaction(session);
    expect(refused.status, JSON.stringify(refused.body)).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    // Within 1 s: checkout's copy is gone (its event dropped it).
    await eventually(async () => expect(await view()).not.toContain('provider_a'), 1_000, 10);
    expect(Date.now() - offAt).toBeLessThan(1_000);
    expect(providerChanged.events.filter((e) => e.data.providerId === providerId).map((e) => e.data.enabled)).toEqual([
      true,
      false,
    ]);

    const on = await admin('PUT', `/providers/${providerId}/toggle`, { enabled: true });
    expect(on.status).toBe(200);
    await eventually(async () => expect(await view()).toContain('provider_a'), 1_000, 10);
    expect((await startTransaction(session)).status).toBe(200);
  });

  it('a revoked API key is refused by the next request; a rotated one only with its new secret', async () => {
    const path = `/organizations/${boot.organizationId}/api-keys`;
    const created = await admin('POST', path, {
      name: 'cache test',
      mode: 'live',
      scopes: ['site:read'],
      role: 'Viewer',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const key = created.body.token as string;
    // Twice, so gateway-admin holds the key in its cache.
    expect((await admin('GET', '/sites', undefined, key)).status).toBe(200);
    expect((await admin('GET', '/sites', undefined, key)).status).toBe(200);

    const rot = await admin('POST', `${path}/${created.body.id}/rotate`);
    expect(rot.status, JSON.stringify(rot.body)).toBe(200);
    const rotatedKey = rot.body.token as string;
    expect((await admin('GET', '/sites', undefined, key)).status).toBe(401);
    expect((await admin('GET', '/sites', undefined, rotatedKey)).status).toBe(200);

    const revoked = await admin('POST', `${path}/${created.body.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect((await admin('GET', '/sites', undefined, rotatedKey)).status).toBe(401);
  });
});
