import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyIpn } from '../../libs/contracts/src/ipn-signature';
import { call, makeClient, type ClientCtor } from '../../libs/grpc/src/index';
import { checkout as checkoutProto, checkoutPayments, paymentsWebhooks } from '../../libs/proto/src/index';
import { BACKENDS, GATEWAYS } from '../../deploy/local/supervisor.mjs';
import { Balancer, HttpBalancer } from '../support/balancer';
import { EventTap } from '../support/event-tap';
import { IpnReceiver } from '../support/ipn-receiver';
import { waitFor } from '../support/kit';
import { NATS_URL, api, eventually, startTestMesh, type TestMesh } from '../support/mesh';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';

/** A generated gRPC client (what `call` takes). */
type GrpcClient = Parameters<typeof call>[0];

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
    expect(providerChanged.distinct.filter((e) => e.data.providerId === providerId).map((e) => e.data.enabled)).toEqual(
      [true, false],
    );

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

/**
 * The same promise with two replicas of every service on one PostgreSQL and NATS, each service
 * behind a round-robin balancer, and every check addressed to one replica directly: a
 * security-relevant change (a revoked or rotated API key, a disabled provider, a rotated signing
 * secret) is in force at once on the replica that made it, and on every other replica within 1 s
 * (a waitFor whose deadline is 1 s: the check is repeated until it holds, and fails if it still
 * does not hold after the last poll before the deadline). Each cache is filled on every replica
 * first, so what is checked is that the copies are dropped, not that they were never made.
 */
describe('per-process caches with two replicas: in force at once on the replica that made the change, within 1 s on the other', () => {
  const SERVICES = [...BACKENDS, ...GATEWAYS].map(([name]) => name);
  const gatewayNames: readonly string[] = GATEWAYS.map(([name]) => name);
  const balancers = new Map<string, Balancer | HttpBalancer>(
    SERVICES.map((svc) => [svc, gatewayNames.includes(svc) ? new HttpBalancer(svc) : new Balancer(svc)]),
  );
  const receiver = new IpnReceiver();
  /** transaction ID -> the notifications-ipn replica that delivered its IPN (from its log line). */
  const deliveredBy = new Map<string, string>();
  /** Polls each cross-replica check needed, printed at the end. */
  const polls: string[] = [];
  let mesh: TestMesh;
  let nc: NatsConnection;
  let boot: BootstrapResult;
  let providerId: string;
  let ipnBase: string;
  let rotated: EventTap;
  let providerChanged: EventTap;
  const clients: { close(): void }[] = [];

  beforeAll(async () => {
    const fronts: Record<string, number> = {};
    for (const [svc, b] of balancers) fronts[svc] = await b.start();
    ipnBase = await receiver.start();
    mesh = await startTestMesh({
      replicas: 2,
      fronts,
      onLine: (name, line) => {
        if (!name.startsWith('notifications-ipn') || !line.includes('"IPN delivered"')) return;
        const parsed = JSON.parse(line) as { msg?: string; transactionId?: string };
        if (parsed.msg === 'IPN delivered' && parsed.transactionId) deliveredBy.set(parsed.transactionId, name);
      },
      env: {
        LOG_LEVEL: 'info',
        // 18 service processes share the machine's PostgreSQL with other suites.
        STORE_POOL_MAX: '3',
        ECB_RATES_INTERVAL_MS: '0',
      },
    });
    for (const [svc, b] of balancers) for (const name of mesh.replicas(svc)) b.add(name, mesh.ports[name]!);
    nc = await connect({ servers: NATS_URL });
    rotated = new EventTap(nc, `${mesh.namespace}.checkout.site.secret_rotated`).start();
    providerChanged = new EventTap(nc, `${mesh.namespace}.payments.provider.changed`).start();
    boot = await mesh.bootstrap();
    const id = boot.providers?.provider_a?.id;
    if (!id) throw new Error('bootstrap created no provider_a record (is the sandbox built?)');
    providerId = id;
  }, 180_000);

  afterAll(async () => {
    for (const c of clients) c.close();
    await nc?.close();
    await mesh?.dispose();
    await receiver.stop();
    for (const b of balancers.values()) await b.stop();
    if (polls.length) console.log(['polls until each change held on the other replica:', ...polls].join('\n  '));
  });

  /** The service's replicas, in start order (`name`, `name#2`). */
  const replicasOf = (svc: string): [string, string] => {
    const [a, b] = mesh.replicas(svc);
    if (!a || !b) throw new Error(`${svc} does not run two replicas`);
    return [a, b];
  };
  const httpBase = (replica: string) => `http://127.0.0.1:${mesh.ports[replica]}/api/v1`;
  const grpcAt = <C extends GrpcClient>(ctor: ClientCtor<C>, replica: string): C => {
    const client = makeClient(ctor, `127.0.0.1:${mesh.ports[replica]}`);
    clients.push(client);
    return client;
  };
  const DEADLINE = { deadlineMs: 10_000, target: 'test' };

  /** Repeats `check` until it holds, for at most 1 s; answers how many polls it took. */
  async function withinOneSecond(what: string, check: () => Promise<boolean>): Promise<number> {
    let n = 0;
    await waitFor(
      async () => {
        n += 1;
        return check();
      },
      { what: `${what} (within 1 s)`, timeoutMs: 1_000, stepMs: 10 },
    );
    polls.push(`${what}: ${n}`);
    return n;
  }

  const adminAt = (replica: string, method: string, path: string, token: string, body?: unknown) =>
    api(method, `${httpBase(replica)}${path}`, { token, ...(body !== undefined ? { body } : {}) });

  it('a revoked API key: refused at once by the gateway replica that revoked it, within 1 s by the other', async () => {
    const [a, b] = replicasOf('gateway-admin');
    const path = `/organizations/${boot.organizationId}/api-keys`;
    const newKey = async (name: string) => {
      const created = await adminAt(a, 'POST', path, boot.apiKey, {
        name,
        mode: 'live',
        scopes: ['site:read'],
        role: 'Viewer',
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const token = created.body.token as string;
      // Each replica holds the key in its cache: twice each (the first use records lastUsedAt).
      for (const r of [a, b, a, b]) expect((await adminAt(r, 'GET', '/sites', token)).status).toBe(200);
      return { id: created.body.id as string, token };
    };
    const sitesWith = async (replica: string, token: string) => (await adminAt(replica, 'GET', '/sites', token)).status;

    const revokedKey = await newKey('two replicas: revoked');
    expect((await adminAt(a, 'POST', `${path}/${revokedKey.id}/revoke`, boot.apiKey)).status).toBe(200);
    expect(await sitesWith(a, revokedKey.token)).toBe(401);
    await withinOneSecond(
      'revoked API key refused by the other gateway-admin',
      async () => (await sitesWith(b, revokedKey.token)) === 401,
    );

    // Rotated on the second replica this time: the old secret is refused, the new one accepted.
    const rotatedKey = await newKey('two replicas: rotated');
    const rot = await adminAt(b, 'POST', `${path}/${rotatedKey.id}/rotate`, boot.apiKey);
    expect(rot.status, JSON.stringify(rot.body)).toBe(200);
    const newToken = rot.body.token as string;
    expect(await sitesWith(b, rotatedKey.token)).toBe(401);
    expect(await sitesWith(b, newToken)).toBe(200);
    await withinOneSecond(
      'rotated API key: old secret refused by the other gateway-admin',
      async () => (await sitesWith(a, rotatedKey.token)) === 401,
    );
    expect(await sitesWith(a, newToken)).toBe(200);
  });

  it('a disabled provider: off at once on the payments-webhooks replica that disabled it, within 1 s on the other and in both checkout replicas', async () => {
    const [pwA, pwB] = replicasOf('payments-webhooks').map((r) =>
      grpcAt(paymentsWebhooks.PaymentsWebhooksServiceClient, r),
    ) as [paymentsWebhooks.PaymentsWebhooksServiceClient, paymentsWebhooks.PaymentsWebhooksServiceClient];
    const checkouts = replicasOf('checkout').map((r) => grpcAt(checkoutPayments.CheckoutPaymentsServiceClient, r));
    const ref = { organizationId: boot.organizationId, id: providerId, testMode: false };
    const enabledAt = async (c: paymentsWebhooks.PaymentsWebhooksServiceClient) =>
      (await call(c, c.getProvider, ref, DEADLINE)).enabled;

    const created = await api('POST', `${mesh.adminBaseUrl}/checkouts/${boot.siteId}/create`, {
      token: boot.apiKey,
      body: {
        amount: 1000,
        currency: 'EUR',
        email: 'buyer-replicas@example.test',
        externalReference: 'cache-replicas-provider',
        returnUrl: 'https://shop.example/return',
        cancelUrl: 'https://shop.example/cancel',
        items: [{ name: 'Item', quantity: 1, unitPrice: 1000, vatRate: 19, itemType: 'digital_service' }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const sessionPublicId = created.body.sessionPublicId as string;
    const buyerView = async (c: checkoutPayments.CheckoutPaymentsServiceClient) =>
      (await call(c, c.getPublicCheckout, { sessionPublicId, browserOrigin: '' }, DEADLINE)).providers;
    // Fill the caches: the provider record in both payments-webhooks replicas, the organization's
    // providers in both checkout replicas.
    for (let i = 0; i < 2; i++) {
      expect(await enabledAt(pwA)).toBe(true);
      expect(await enabledAt(pwB)).toBe(true);
      for (const c of checkouts) expect(await buyerView(c)).toContain('provider_a');
    }

    const off = await call(pwA, pwA.toggleProvider, { ...ref, enabled: false }, DEADLINE);
    expect(off.enabled).toBe(false);
    expect(await enabledAt(pwA)).toBe(false);
    await withinOneSecond('disabled provider off in the other payments-webhooks', async () => !(await enabledAt(pwB)));
    for (const [n, c] of checkouts.entries()) {
      await withinOneSecond(
        `disabled provider gone from checkout replica ${n + 1}'s buyer view`,
        async () => !(await buyerView(c)).includes('provider_a'),
      );
    }
    // Whichever replicas a buyer's request reaches, no payment is started with it.
    for (const gw of replicasOf('gateway-public')) {
      const tx = await api('POST', `${httpBase(gw)}/transactions/create`, {
        body: {
          sessionPublicId,
          providerId,
          billingAddress: {
            name: 'Buyer',
            line1: 'Main St 1',
            city: 'Berlin',
            postalCode: '10115',
            country: 'DE',
            email: 'buyer-replicas@example.test',
          },
        },
      });
      expect(tx.status, JSON.stringify(tx.body)).toBeGreaterThanOrEqual(400);
      expect(tx.status).toBeLessThan(500);
    }
    expect(providerChanged.distinct.filter((e) => e.data.providerId === providerId).map((e) => e.data.enabled)).toEqual(
      [true, false],
    );

    // And back on, the same way round.
    const on = await call(pwB, pwB.toggleProvider, { ...ref, enabled: true }, DEADLINE);
    expect(on.enabled).toBe(true);
    expect(await enabledAt(pwB)).toBe(true);
    await withinOneSecond('enabled provider on in the other payments-webhooks', async () => enabledAt(pwA));
    for (const [n, c] of checkouts.entries()) {
      await withinOneSecond(`enabled provider back in checkout replica ${n + 1}'s buyer view`, async () =>
        (await buyerView(c)).includes('provider_a'),
      );
    }
  });

  it('a rotated signing secret: served at once by the checkout replica that rotated it, within 1 s by the other; every later IPN of either notifications-ipn replica signed with it', async () => {
    const [cA, cB] = replicasOf('checkout').map((r) => grpcAt(checkoutProto.CheckoutServiceClient, r)) as [
      checkoutProto.CheckoutServiceClient,
      checkoutProto.CheckoutServiceClient,
    ];
    const secretAt = async (c: checkoutProto.CheckoutServiceClient) =>
      (await call(c, c.getSiteSigningSecret, { organizationId: boot.organizationId, siteId: boot.siteId }, DEADLINE))
        .secret;
    const ipnReplicas = replicasOf('notifications-ipn');
    let flows = 0;
    /** Paid checkouts one after another until each notifications-ipn replica delivered `n` IPNs of them; answers the IPNs. */
    const payUntilEachReplicaDelivered = async (tag: string) => {
      const ipns: { replica: string; headers: Record<string, string>; rawBody: Buffer }[] = [];
      for (let i = 0; i < 20 && !ipnReplicas.every((r) => ipns.some((x) => x.replica === r)); i++) {
        const t = `${tag}-${++flows}`;
        const created = await api('POST', `${mesh.adminBaseUrl}/checkouts/${boot.siteId}/create`, {
          token: boot.apiKey,
          body: {
            amount: 1000,
            currency: 'EUR',
            email: `buyer-${t}@example.test`,
            externalReference: `cache-replicas-${t}`,
            returnUrl: 'https://shop.example/return',
            cancelUrl: 'https://shop.example/cancel',
            ipnUrl: `${ipnBase}/ipn/${t}`,
            items: [{ name: 'Item', quantity: 1, unitPrice: 1000, vatRate: 19, itemType: 'digital_service' }],
          },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(200);
        const tx = await api('POST', `${mesh.publicBaseUrl}/transactions/create`, {
          body: {
            sessionPublicId: created.body.sessionPublicId,
            providerId,
            billingAddress: {
              name: 'Buyer',
              line1: 'Main St 1',
              city: 'Berlin',
              postalCode: '10115',
              country: 'DE',
              email: `buyer-${t}@example.test`,
            },
          },
        });
        expect(tx.status, JSON.stringify(tx.body)).toBe(200);
        const paid = await fetch(tx.body.redirectUrl as string, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'outcome=pay',
          redirect: 'manual',
        });
        await paid.arrayBuffer();
        expect(paid.status).toBe(303);
        const transactionId = tx.body.transactionId as string;
        const ipn = await eventually(() => receiver.at(`/ipn/${t}`)[0], 30_000, 20);
        const replica = await eventually(() => deliveredBy.get(transactionId), 10_000, 20);
        ipns.push({ replica, headers: ipn.headers as Record<string, string>, rawBody: ipn.rawBody });
      }
      for (const r of ipnReplicas)
        expect(
          ipns.some((x) => x.replica === r),
          `no IPN delivered by ${r} in 20 flows`,
        ).toBe(true);
      return ipns;
    };
    const oldSecret = boot.webhookSigningSecret;

    // Fill the caches: the site in both checkout replicas, the secret in both notifications-ipn replicas.
    for (let i = 0; i < 2; i++) {
      expect(await secretAt(cA)).toBe(oldSecret);
      expect(await secretAt(cB)).toBe(oldSecret);
    }
    for (const ipn of await payUntilEachReplicaDelivered('before')) {
      expect(verifyIpn(oldSecret, ipn.headers, ipn.rawBody).valid).toBe(true);
    }

    const rot = await call(
      cA,
      cA.rotateSiteWebhookSecret,
      { organizationId: boot.organizationId, testMode: false, id: boot.siteId },
      DEADLINE,
    );
    const newSecret = rot.webhookSigningSecret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(await secretAt(cA)).toBe(newSecret);
    await withinOneSecond(
      'rotated signing secret served by the other checkout',
      async () => (await secretAt(cB)) === newSecret,
    );
    // notifications-ipn's copies are dropped by the rotation's event, which every replica receives.
    await withinOneSecond('rotation event published', async () =>
      rotated.events.some((e) => e.data.siteId === boot.siteId),
    );

    for (const ipn of await payUntilEachReplicaDelivered('after')) {
      expect(
        verifyIpn(newSecret!, ipn.headers, ipn.rawBody).valid,
        `IPN from ${ipn.replica} signed with the new secret`,
      ).toBe(true);
      expect(verifyIpn(oldSecret, ipn.headers, ipn.rawBody).valid).toBe(false);
    }
  });
});
