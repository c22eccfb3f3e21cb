import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from 'nats';
import { api, eventually, NATS_URL, PG_URL, startTestMesh, type TestMesh } from '../support/mesh';
import { meshQuiet } from '../support/mesh-checks';
import { IpnReceiver } from '../support/ipn-receiver';
import { TestDnsServer } from '../support/dns-server';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';

const MAIN_FRONTEND = 'https://checkout.paymesh.test';
const CNAME_TARGET = 'checkout.paymesh.test';
const billing = {
  name: 'Ada Buyer',
  email: 'ada@example.com',
  line1: 'Main 1',
  city: 'Berlin',
  postalCode: '10115',
  country: 'DE',
};

/**
 * The money path end to end: Admin checkout -> Main Backend transaction -> payments-webhooks ->
 * provider_a sandbox -> signed webhook -> payments.payment.status_reported -> checkout state
 * machine -> checkout.transaction.status_changed -> signed IPN at the merchant.
 */
describe('money path: checkout -> transaction -> provider -> status event -> IPN', () => {
  let mesh: TestMesh;
  let nc: NatsConnection;
  let boot: BootstrapResult;
  let provider: { id: string; webhookSecret: string; secretKey: string };
  let sandbox: string;
  let admin: string;
  let pub: string;
  const receiver = new IpnReceiver();
  const dns = new TestDnsServer();
  let ipnBase: string;
  /** The transaction the buyer pays (created in the transactions block). */
  let paid: { checkout: any; transactionId: string; created: any };

  /** Every event of a subject in the mesh's namespace, read from the start of its stream. */
  async function readEvents(subject: string): Promise<{ id: string; data: any }[]> {
    const jsm = await nc.jetstreamManager();
    const stream = `${mesh.namespace.toUpperCase()}_${subject.split('.')[0]!.toUpperCase()}`;
    const info = await jsm.streams.info(stream).catch(() => null);
    if (!info || info.state.messages === 0) return [];
    const out: { id: string; data: any }[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const msg = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
      if (msg?.subject === `${mesh.namespace}.${subject}`) out.push(msg.json());
    }
    return out;
  }

  /** A transaction's status events: its opening (status 0, `checkout.transaction.opened`) and its changes. */
  const statusEvents = async (transactionId: string) =>
    [...(await readEvents('checkout.transaction.opened')), ...(await readEvents('checkout.transaction.status_changed'))]
      .filter((e) => e.data.transactionId === transactionId)
      .sort((a, b) => a.data.sequence - b.data.sequence);

  async function publishPaymentStatus(data: Record<string, unknown>): Promise<void> {
    const subject = 'payments.payment.status_reported';
    const id = `test-${randomBytes(8).toString('hex')}`;
    const envelope = { id, type: subject, version: 1, occurredAt: new Date().toISOString(), data };
    await nc.jetstream().publish(`${mesh.namespace}.${subject}`, JSON.stringify(envelope), { msgID: id });
  }

  async function sandboxCall(method: string, path: string, form?: Record<string, string>) {
    const res = await fetch(`${sandbox}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${provider.secretKey}`,
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  const payAtProvider = (paymentId: string, card: string) =>
    sandboxCall('POST', `/v1/payment_intents/${paymentId}/confirm`, { payment_method: card });
  const statusOf = async (transactionId: string) =>
    (await api('GET', `${pub}/transactions/${transactionId}/status`)).body.status as number;

  const createCheckout = (body: Record<string, unknown>, siteId = boot.siteId, token = boot.apiKey) =>
    api('POST', `${admin}/checkouts/${siteId}/create`, { token, body });
  const validCheckout = {
    amount: 4990,
    currency: 'EUR',
    externalReference: 'order-1001',
    returnUrl: 'https://shop.example/thanks/{transactionId}',
  };

  async function payableTransaction(extra: Record<string, unknown> = {}) {
    const c = await createCheckout({ ...validCheckout, ...extra });
    expect(c.status).toBe(200);
    const t = await api('POST', `${pub}/transactions/create`, {
      body: { sessionPublicId: c.body.sessionPublicId, providerId: provider.id, billingAddress: billing },
      headers: { origin: MAIN_FRONTEND },
    });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    return { checkout: c.body, transactionId: t.body.transactionId as string, created: t.body };
  }

  beforeAll(async () => {
    const resolver = await dns.start();
    mesh = await startTestMesh({
      env: { MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND, DNS_RESOLVERS: resolver, CUSTOM_DOMAIN_CNAME_TARGET: CNAME_TARGET },
    });
    admin = mesh.adminBaseUrl;
    pub = mesh.publicBaseUrl;
    sandbox = mesh.sandboxUrls['sandbox-provider-a']!;
    ipnBase = await receiver.start();
    nc = await connect({ servers: NATS_URL });
    boot = await mesh.bootstrap();
    provider = boot.providers!.provider_a!;
  });

  afterAll(async () => {
    await nc?.close();
    await receiver.stop();
    await mesh?.dispose();
    await dns.stop();
  });

  describe('Admin checkout creation', () => {
    it.each([
      ['amount missing', { amount: undefined }, /amount/],
      ['amount zero', { amount: 0 }, /amount/],
      ['amount fractional', { amount: 10.5 }, /amount/],
      ['amount as string', { amount: '4990' }, /amount/],
      ['unknown currency', { currency: 'EURO' }, /currency/],
      ['currency not ISO 4217', { currency: 'ABC' }, /currency/],
      ['no reference', { externalReference: undefined }, /externalReference or invoiceNumber/],
      ['bad email', { email: 'nobody' }, /email/],
      ['relative returnUrl', { returnUrl: '/thanks' }, /returnUrl/],
      ['javascript cancelUrl', { cancelUrl: 'javascript:alert(1)' }, /cancelUrl/],
      ['non-http ipnUrl', { ipnUrl: 'ftp://shop.example/ipn' }, /ipnUrl/],
      ['clientId not 24-hex', { clientId: 'client-1' }, /clientId/],
      ['item quantity 0', { items: [{ name: 'A', quantity: 0, unitPrice: 100 }] }, /items\[0\]\.quantity/],
      [
        'item vatRate over 100',
        { items: [{ name: 'A', quantity: 1, unitPrice: 100, vatRate: 120 }] },
        /items\[0\]\.vatRate/,
      ],
      [
        'item type unknown',
        { items: [{ name: 'A', quantity: 1, unitPrice: 100, itemType: 'gift' }] },
        /items\[0\]\.itemType/,
      ],
      ['item without name', { items: [{ quantity: 1, unitPrice: 100 }] }, /items/],
      ['expiry in the past', { expiresAt: '2020-01-01T00:00:00Z' }, /expiresAt/],
      ['unknown field', { colour: 'red' }, /colour|Unrecognized/],
    ])('rejects %s with 400 naming the field', async (_name, patch, message) => {
      const before = (await api('GET', `${admin}/checkouts?limit=100`, { token: boot.apiKey })).body.total;
      const res = await createCheckout({ ...validCheckout, ...patch });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(message);
      expect((await api('GET', `${admin}/checkouts?limit=100`, { token: boot.apiKey })).body.total).toBe(before);
    });

    it('creates a checkout with every field and answers id, sessionPublicId, shortCode, paymentUrl', async () => {
      const res = await createCheckout({
        ...validCheckout,
        email: 'buyer@example.com',
        cancelUrl: 'https://shop.example/cancel?tx={transactionId}',
        ipnUrl: `${ipnBase}/ipn/full`,
        invoiceNumber: 'INV-2026-7',
        clientId: '0123456789abcdef01234567',
        items: [
          {
            name: 'Pro plan',
            description: 'monthly',
            quantity: 1,
            unitPrice: 4990,
            vatRate: 19,
            itemType: 'digital_service',
          },
        ],
        metadata: { cart: 'c-9' },
      });
      expect(res.status).toBe(200);
      expect(res.body.id).toMatch(/^[0-9a-f]{24}$/);
      expect(res.body.sessionPublicId).toMatch(/^cs_[A-Za-z0-9_-]{32}$/);
      expect(res.body.shortCode).toMatch(/^[2-9A-HJKMNP-Z]{10}$/);
      expect(res.body.paymentUrl).toBe(`${mesh.publicRootUrl}/c/${res.body.sessionPublicId}`);
      const got = await api('GET', `${admin}/checkouts/${res.body.id}`, { token: boot.apiKey });
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({
        id: res.body.id,
        siteId: boot.siteId,
        status: 'pending',
        amount: 4990,
        currency: 'EUR',
        email: 'buyer@example.com',
        returnUrl: 'https://shop.example/thanks/{transactionId}',
        cancelUrl: 'https://shop.example/cancel?tx={transactionId}',
        ipnUrl: `${ipnBase}/ipn/full`,
        externalReference: 'order-1001',
        invoiceNumber: 'INV-2026-7',
        clientId: '0123456789abcdef01234567',
        items: [
          {
            name: 'Pro plan',
            description: 'monthly',
            quantity: 1,
            unitPrice: 4990,
            vatRate: 19,
            itemType: 'digital_service',
          },
        ],
        metadata: { cart: 'c-9' },
        transactions: [],
      });
    });

    it('answers 404 for a site or checkout of another organization', async () => {
      const other = await mesh.bootstrap();
      expect((await createCheckout(validCheckout, other.siteId)).status).toBe(404);
      const theirs = await createCheckout(validCheckout, other.siteId, other.apiKey);
      expect(theirs.status).toBe(200);
      expect((await api('GET', `${admin}/checkouts/${theirs.body.id}`, { token: boot.apiKey })).status).toBe(404);
      expect(
        (await api('PATCH', `${admin}/checkouts/${theirs.body.id}`, { token: boot.apiKey, body: { metadata: {} } }))
          .status,
      ).toBe(404);
    });

    it('lists, filters and patches checkouts', async () => {
      const c = await createCheckout({ ...validCheckout, externalReference: 'order-patch' });
      const list = await api('GET', `${admin}/checkouts?externalReference=order-patch`, { token: boot.apiKey });
      expect(list.status).toBe(200);
      expect(list.body.items.map((x: { id: string }) => x.id)).toEqual([c.body.id]);
      expect((await api('GET', `${admin}/checkouts?status=expired`, { token: boot.apiKey })).body.total).toBe(0);
      expect((await api('GET', `${admin}/checkouts?status=unknown`, { token: boot.apiKey })).status).toBe(400);
      const patched = await api('PATCH', `${admin}/checkouts/${c.body.id}`, {
        token: boot.apiKey,
        body: { returnUrl: null, metadata: { note: 'x' }, expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ returnUrl: null, metadata: { note: 'x' } });
      expect(
        (await api('PATCH', `${admin}/checkouts/${c.body.id}`, { token: boot.apiKey, body: { amount: 1 } })).status,
      ).toBe(400);
    });
  });

  describe('Main Backend checkout view and handoff', () => {
    it('serves the public view to allowed origins and to server-to-server calls, 403 to others', async () => {
      const c = await createCheckout({ ...validCheckout, items: [{ name: 'Pro plan', quantity: 2, unitPrice: 2495 }] });
      const url = `${pub}/checkouts/${c.body.sessionPublicId}`;
      const allowed = await api('GET', url, { headers: { origin: 'https://shop.example' } });
      expect(allowed.status).toBe(200);
      expect(allowed.body).toEqual({
        id: c.body.sessionPublicId,
        currency: 'EUR',
        amount: 4990,
        status: 'pending',
        lineItems: [{ name: 'Pro plan', quantity: 2, unitAmount: 2495 }],
        // One type per enabled record: bootstrap connects the provider_a, provider_b, provider_c and provider_d sandboxes.
        providers: expect.arrayContaining(['provider_a', 'provider_b', 'provider_c', 'provider_d']),
        branding: {},
        expiresAt: expect.any(String),
        checkoutSettings: { vatIdValidation: 'format' },
      });
      expect(allowed.body.providers).toHaveLength(4);
      expect((await api('GET', url, { headers: { origin: MAIN_FRONTEND } })).status).toBe(200);
      expect((await api('GET', url, { headers: { referer: 'https://shop.example/cart' } })).status).toBe(200);
      expect((await api('GET', url)).status).toBe(200);
      const foreign = await api('GET', url, { headers: { origin: 'https://evil.example' } });
      expect(foreign.status).toBe(403);
      expect(typeof foreign.body.error).toBe('string');
      expect((await api('GET', url, { headers: { referer: 'https://evil.example/x' } })).status).toBe(403);
      expect((await api('GET', url, { headers: { origin: 'null' } })).status).toBe(403);
      expect((await api('GET', `${pub}/checkouts/cs_doesnotexist`)).status).toBe(404);
    });

    it('lists only enabled providers', async () => {
      const created = await api('POST', `${admin}/providers`, {
        token: boot.apiKey,
        body: {
          type: 'provider_a',
          name: 'Switched off',
          credentials: {
            secretKey: `sk_live_${randomBytes(12).toString('hex')}`,
            webhookSecret: `whsec_${randomBytes(24).toString('hex')}`,
          },
        },
      });
      expect(created.status).toBe(201);
      expect(
        (
          await api('PUT', `${admin}/providers/${created.body.id}/toggle`, {
            token: boot.apiKey,
            body: { enabled: false },
          })
        ).status,
      ).toBe(200);
      const c = await createCheckout(validCheckout);
      expect([...(await api('GET', `${pub}/checkouts/${c.body.sessionPublicId}`)).body.providers].sort()).toEqual([
        'provider_a',
        'provider_b',
        'provider_c',
        'provider_d',
      ]);
      const t = await api('POST', `${pub}/transactions/create`, {
        body: { sessionPublicId: c.body.sessionPublicId, providerId: created.body.id, billingAddress: billing },
      });
      expect(t.status).toBe(400);
      expect(t.body.error).toMatch(/providerId/);
    });

    it('hands off the provider choice exactly once', async () => {
      const c = await createCheckout(validCheckout);
      const base = `${pub}/checkouts/${c.body.sessionPublicId}/handoff`;
      const created = await api('POST', base, {
        body: { providerId: provider.id, billingAddress: billing },
        headers: { origin: MAIN_FRONTEND },
      });
      expect(created.status).toBe(200);
      expect(created.body).toEqual({ handoffToken: expect.stringMatching(/^ho_/), expiresInSeconds: 600 });
      const consume = `${base}/${created.body.handoffToken}/consume`;
      const first = await api('POST', consume, { headers: { origin: 'https://shop.example' } });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ providerId: provider.id, billingAddress: billing, createdAt: expect.any(String) });
      const second = await api('POST', consume);
      expect(second.status).toBe(404);
      const noAddress = await api('POST', base, { body: { providerId: provider.id } });
      const consumed = await api('POST', `${base}/${noAddress.body.handoffToken}/consume`);
      expect(consumed.status).toBe(200);
      expect(consumed.body.billingAddress).toBeUndefined();
      expect((await api('POST', base, { body: {} })).status).toBe(400);
      expect(
        (await api('POST', base, { body: { providerId: provider.id }, headers: { origin: 'https://evil.example' } }))
          .status,
      ).toBe(403);
    });
  });

  describe('merchant presentation: custom domains, branding, VAT ID mode, CORS', () => {
    const adminCall = (method: string, path: string, body?: unknown) =>
      api(method, `${admin}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });

    it('allows a verified custom domain of the organization as origin, not an unverified one', async () => {
      expect((await adminCall('POST', '/domains', { hostname: 'pay.mesh-shop.example' })).status).toBe(201);
      expect((await adminCall('POST', '/domains', { hostname: 'pay.mesh-pending.example' })).status).toBe(201);
      dns.zone.set('pay.mesh-shop.example', { cname: `${CNAME_TARGET}.` });
      dns.zone.set('pay.mesh-pending.example', { cname: 'elsewhere.example.' });
      expect((await adminCall('GET', '/domains/verify-cname?domain=pay.mesh-shop.example')).body).toMatchObject({
        verified: true,
      });
      expect((await adminCall('GET', '/domains/verify-cname?domain=pay.mesh-pending.example')).body).toMatchObject({
        verified: false,
      });

      const c = await createCheckout(validCheckout);
      const url = `${pub}/checkouts/${c.body.sessionPublicId}`;
      const viaDomain = await api('GET', url, { headers: { origin: 'https://pay.mesh-shop.example' } });
      expect(viaDomain.status).toBe(200);
      expect(viaDomain.body.id).toBe(c.body.sessionPublicId);
      expect(viaDomain.headers.get('access-control-allow-origin')).toBe('https://pay.mesh-shop.example');
      expect((await api('GET', url, { headers: { origin: 'https://pay.mesh-pending.example' } })).status).toBe(403);
      const handoff = await api('POST', `${url}/handoff`, {
        body: { providerId: provider.id },
        headers: { origin: 'https://pay.mesh-shop.example' },
      });
      expect(handoff.status).toBe(200);
      const refused = await api('POST', `${url}/handoff`, {
        body: { providerId: provider.id },
        headers: { origin: 'https://pay.mesh-pending.example' },
      });
      expect(refused.status).toBe(403);
    });

    it('shows the site branding and downgrades vies to format until the tax settings allow VIES', async () => {
      const bad = await adminCall('POST', '/sites', {
        name: 'Bad',
        url: 'https://bad.example',
        branding: { logo: 'http://cdn.bad.example/l.png' },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/branding\.logo/);
      const badMode = await adminCall('POST', '/sites', {
        name: 'Bad',
        url: 'https://bad.example',
        checkoutSettings: { vatIdValidation: 'strict' },
      });
      expect(badMode.status).toBe(400);
      expect(badMode.body.error).toMatch(/vatIdValidation/);

      const site = await adminCall('POST', '/sites', {
        name: 'Branded shop',
        url: 'https://branded.example',
        frontendDomains: ['branded.example'],
        branding: { logo: 'https://cdn.branded.example/logo.png', primaryColor: '#0A84FF' },
        checkoutSettings: { vatIdValidation: 'vies' },
      });
      expect(site.status).toBe(201);
      expect(site.body).toMatchObject({
        branding: { logo: 'https://cdn.branded.example/logo.png', primaryColor: '#0a84ff' },
        checkoutSettings: { vatIdValidation: 'vies' },
      });
      expect((await adminCall('GET', `/sites/${boot.siteId}`)).body).toMatchObject({
        branding: { logo: null, primaryColor: null },
        checkoutSettings: { vatIdValidation: 'format' },
      });
      const c = await createCheckout(validCheckout, site.body.id);
      expect(c.status).toBe(200);
      const view = async () =>
        (
          await api('GET', `${pub}/checkouts/${c.body.sessionPublicId}`, {
            headers: { origin: 'https://branded.example' },
          })
        ).body;

      const before = await view();
      expect(before.branding).toEqual({ logo: 'https://cdn.branded.example/logo.png', primaryColor: '#0a84ff' });
      expect(before.checkoutSettings).toEqual({ vatIdValidation: 'format' });

      const tax = await adminCall('PUT', '/organizations/settings/tax', { viesEnabled: true });
      expect(tax.status, JSON.stringify(tax.body)).toBe(200);
      expect((await view()).checkoutSettings).toEqual({ vatIdValidation: 'vies' });

      const upd = await adminCall('PUT', `/sites/${site.body.id}`, {
        branding: { logo: null },
        checkoutSettings: { vatIdValidation: 'none' },
      });
      expect(upd.status).toBe(200);
      expect(upd.body).toMatchObject({
        branding: { logo: null, primaryColor: '#0a84ff' },
        checkoutSettings: { vatIdValidation: 'none' },
      });
      const after = await view();
      expect(after.branding).toEqual({ primaryColor: '#0a84ff' });
      expect(after.checkoutSettings).toEqual({ vatIdValidation: 'none' });

      // Back to vies with tax down: the view still answers, with format.
      expect(
        (await adminCall('PUT', `/sites/${site.body.id}`, { checkoutSettings: { vatIdValidation: 'vies' } })).status,
      ).toBe(200);
      await mesh.kill('tax');
      try {
        const degraded = await api('GET', `${pub}/checkouts/${c.body.sessionPublicId}`, {
          headers: { origin: 'https://branded.example' },
        });
        expect(degraded.status).toBe(200);
        expect(degraded.body.checkoutSettings).toEqual({ vatIdValidation: 'format' });
        // The log line is written by the service's own stream: wait for it rather than race it.
        await eventually(() => mesh.logs('checkout').some((l) => l.includes('tax settings unavailable')));
      } finally {
        await mesh.restart('tax');
      }
      await eventually(async () => (await view()).checkoutSettings.vatIdValidation === 'vies');
    });

    it('answers CORS preflights of the buyer routes; the real request from a foreign origin stays 403', async () => {
      const c = await createCheckout(validCheckout);
      const url = `${pub}/checkouts/${c.body.sessionPublicId}`;
      const pre = await api('OPTIONS', url, {
        headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('https://shop.example');
      expect(pre.headers.get('access-control-allow-methods')).toMatch(/POST/);
      const preTx = await api('OPTIONS', `${pub}/transactions/create`, {
        headers: {
          origin: 'https://shop.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(preTx.status).toBe(204);
      expect(preTx.headers.get('access-control-allow-headers')).toMatch(/Content-Type/i);
      const ok = await api('GET', url, { headers: { origin: 'https://shop.example' } });
      expect(ok.headers.get('access-control-allow-origin')).toBe('https://shop.example');
      expect(ok.headers.get('access-control-expose-headers')).toMatch(/X-Request-ID/i);
      expect((await api('GET', url, { headers: { origin: 'https://evil.example' } })).status).toBe(403);
    });
  });

  describe('transactions', () => {
    it('creates a transaction in status 0 and sends the buyer to the provider', async () => {
      paid = await payableTransaction({ ipnUrl: `${ipnBase}/ipn/paid` });
      expect(paid.created).toEqual({
        transactionId: expect.stringMatching(/^[0-9a-f]{24}$/),
        status: 0,
        providerType: 'provider_a',
        redirectUrl: expect.stringMatching(new RegExp(`^${sandbox}/pay/pi_`)),
        clientSecret: expect.stringMatching(/^pi_/),
      });
      const status = await api('GET', `${pub}/transactions/${paid.transactionId}/status`);
      expect(status.body).toEqual({
        status: 0,
        externalReference: 'order-1001',
        amount: 4990,
        currency: 'EUR',
        returnUrl: `https://shop.example/thanks/${paid.transactionId}`,
        createdAt: expect.any(String),
      });
      const record = await api('GET', `${admin}/transactions/${paid.transactionId}`, { token: boot.apiKey });
      expect(record.body).toMatchObject({
        status: 0,
        providerId: provider.id,
        providerType: 'provider_a',
        providerPayment: { state: 'created' },
      });
      const intent = await sandboxCall('GET', `/v1/payment_intents/${record.body.providerPaymentId}`);
      expect(intent.body).toMatchObject({ amount: 4990, currency: 'eur', status: 'requires_payment_method' });
    });

    it('rejects transaction input it cannot use', async () => {
      const c = await createCheckout(validCheckout);
      const post = (body: unknown, headers: Record<string, string> = {}) =>
        api('POST', `${pub}/transactions/create`, { body, headers });
      const sessionPublicId = c.body.sessionPublicId;
      expect((await post({ sessionPublicId, providerId: provider.id })).status).toBe(400);
      expect(
        (await post({ sessionPublicId, providerId: provider.id, billingAddress: { ...billing, country: 'Germany' } }))
          .status,
      ).toBe(400);
      expect(
        (await post({ sessionPublicId, providerId: '0123456789abcdef01234567', billingAddress: billing })).status,
      ).toBe(400);
      expect(
        (await post({ sessionPublicId: 'cs_missing', providerId: provider.id, billingAddress: billing })).status,
      ).toBe(404);
      expect(
        (
          await post(
            { sessionPublicId, providerId: provider.id, billingAddress: billing },
            { origin: 'https://evil.example' },
          )
        ).status,
      ).toBe(403);
    });

    it('completes on the provider webhook, announces the change once and delivers a signed IPN', async () => {
      const record = await api('GET', `${admin}/transactions/${paid.transactionId}`, { token: boot.apiKey });
      const paymentId = record.body.providerPaymentId as string;
      expect((await payAtProvider(paymentId, 'pm_card_visa')).body.status).toBe('succeeded');
      await eventually(async () => (await statusOf(paid.transactionId)) === 1, 20_000);

      const events = await eventually(async () => {
        const mine = await statusEvents(paid.transactionId);
        return mine.length >= 2 ? mine : undefined;
      });
      expect(events.map((e) => [e.data.previousStatus, e.data.status, e.data.sequence])).toEqual([
        [null, 0, 1],
        [0, 1, 2],
      ]);
      expect(events[1]!.data).toMatchObject({
        organizationId: boot.organizationId,
        siteId: boot.siteId,
        mode: 'live',
        externalReference: 'order-1001',
      });

      // The merchant receives the completed status, signed with the site's secret.
      const ipn = await eventually(
        () => receiver.at('/ipn/paid').find((r) => JSON.parse(r.rawBody.toString()).status === 1),
        20_000,
      );
      expect(JSON.parse(ipn.rawBody.toString())).toEqual({
        id: paid.transactionId,
        externalReference: 'order-1001',
        status: 1,
      });
      const ts = String(ipn.headers['x-signature-timestamp']);
      const expected = createHmac('sha256', boot.webhookSigningSecret)
        .update(`${ts}.`)
        .update(ipn.rawBody)
        .digest('hex');
      expect(ipn.headers['x-signature-hmac-sha256']).toBe(expected);

      const after = await eventually(async () => {
        const r = await api('GET', `${admin}/transactions/${paid.transactionId}`, { token: boot.apiKey });
        return r.body.ipn?.lastHttpStatus === 200 ? r : undefined;
      }, 20_000);
      expect(after.body.statusHistory.map((h: any) => [h.from, h.to, h.trigger])).toEqual([
        [null, 0, 'create'],
        [0, 1, 'provider_succeeded'],
      ]);
      expect(after.body.ipn.deliveries.map((d: any) => d.status)).toContain(1);

      // The paid session takes no further payment.
      const again = await api('POST', `${pub}/transactions/create`, {
        body: { sessionPublicId: paid.checkout.sessionPublicId, providerId: provider.id, billingAddress: billing },
      });
      expect(again.status).toBe(409);
      expect((await api('GET', `${admin}/checkouts/${paid.checkout.id}`, { token: boot.apiKey })).body).toMatchObject({
        status: 'completed',
        completedTransactionId: paid.transactionId,
      });
    });

    it('ignores a replayed provider event: status unchanged, no second status_changed', async () => {
      const [report] = (await readEvents('payments.payment.status_reported')).filter(
        (e) => e.data.transactionId === paid.transactionId,
      );
      expect(report?.data).toMatchObject({ outcome: 'succeeded', providerId: provider.id });
      // The same provider event again, in a new envelope (so JetStream does not drop it as a duplicate).
      await publishPaymentStatus(report!.data);
      await eventually(
        () =>
          mesh
            .logs('checkout')
            .some((l) => l.includes('provider event already applied') && l.includes(report!.data.providerEventId)),
        15_000,
      );
      // A late failure report for the completed transaction is stale: rejected, never applied.
      await publishPaymentStatus({
        ...report!.data,
        outcome: 'failed',
        providerEventId: `evt_late_${paid.transactionId}`,
      });
      await eventually(
        () =>
          mesh
            .logs('checkout')
            .some((l) => l.includes('illegal transaction transition rejected') && l.includes(paid.transactionId)),
        15_000,
      );
      expect(await statusOf(paid.transactionId)).toBe(1);
      expect((await statusEvents(paid.transactionId)).map((e) => e.data.status)).toEqual([0, 1]);
    });

    it('fails on a declined card and completes when the buyer retries at the provider', async () => {
      const t = await payableTransaction();
      const paymentId = (await api('GET', `${admin}/transactions/${t.transactionId}`, { token: boot.apiKey })).body
        .providerPaymentId;
      await payAtProvider(paymentId, 'pm_card_chargeDeclined');
      await eventually(async () => (await statusOf(t.transactionId)) === 2, 20_000);
      expect((await payAtProvider(paymentId, 'pm_card_visa')).body.status).toBe('succeeded');
      await eventually(async () => (await statusOf(t.transactionId)) === 1, 20_000);
      const events = await eventually(async () => {
        const mine = await statusEvents(t.transactionId);
        return mine.length >= 3 ? mine : undefined;
      });
      expect(events.map((e) => e.data.status)).toEqual([0, 2, 1]);
    });

    it('omits an empty external reference and return URL from the status view', async () => {
      const { transactionId } = await payableTransaction({
        externalReference: undefined,
        invoiceNumber: 'INV-88',
        returnUrl: undefined,
      });
      const status = await api('GET', `${pub}/transactions/${transactionId}/status`);
      expect(status.status).toBe(200);
      expect(Object.keys(status.body).sort()).toEqual(['amount', 'createdAt', 'currency', 'status']);
    });

    it('cancels a pending transaction at the provider; refuses to cancel a completed one', async () => {
      const { transactionId, checkout } = await payableTransaction();
      const session = { sessionPublicId: checkout.sessionPublicId as string };
      // Without the session (transaction IDs are guessable): 400 when missing, 404 when wrong.
      expect((await api('POST', `${pub}/transactions/${transactionId}/cancel`)).status).toBe(400);
      expect(
        (
          await api('POST', `${pub}/transactions/${transactionId}/cancel`, {
            body: { sessionPublicId: paid.checkout.sessionPublicId },
          })
        ).status,
      ).toBe(404);
      const res = await api('POST', `${pub}/transactions/${transactionId}/cancel`, {
        headers: { origin: MAIN_FRONTEND },
        body: session,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ transactionId, status: -2 });
      const paymentId = (await api('GET', `${admin}/transactions/${transactionId}`, { token: boot.apiKey })).body
        .providerPaymentId;
      expect((await sandboxCall('GET', `/v1/payment_intents/${paymentId}`)).body.status).toBe('canceled');
      // The provider's own cancellation webhook arrives too; it changes nothing.
      await eventually(
        async () =>
          (await readEvents('payments.payment.status_reported')).some((e) => e.data.transactionId === transactionId),
        20_000,
      );
      await meshQuiet(PG_URL, NATS_URL, mesh.namespace);
      expect((await statusEvents(transactionId)).map((e) => e.data.status)).toEqual([0, -2]);
      expect((await api('POST', `${pub}/transactions/${transactionId}/cancel`, { body: session })).body).toEqual({
        transactionId,
        status: -2,
      });
      const completed = await api('POST', `${pub}/transactions/${paid.transactionId}/cancel`, {
        body: { sessionPublicId: paid.checkout.sessionPublicId },
      });
      expect(completed.status).toBe(409);
      expect((await api('POST', `${pub}/transactions/${transactionId}/mark-pending`, { body: session })).status).toBe(
        409,
      );
      expect(
        (
          await api('POST', `${pub}/transactions/${transactionId}/cancel`, {
            headers: { origin: 'https://evil.example' },
            body: session,
          })
        ).status,
      ).toBe(403);
    });

    it('marks a pending transaction pending_provider without changing its status or announcing it', async () => {
      const { transactionId, checkout } = await payableTransaction();
      const res = await api('POST', `${pub}/transactions/${transactionId}/mark-pending`, {
        body: { sessionPublicId: checkout.sessionPublicId },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ transactionId, status: 0, subState: 'pending_provider' });
      expect(await statusOf(transactionId)).toBe(0);
      const record = await api('GET', `${admin}/transactions/${transactionId}`, { token: boot.apiKey });
      expect(record.body).toMatchObject({ status: 0, subState: 'pending_provider' });
      await meshQuiet(PG_URL, NATS_URL, mesh.namespace);
      expect((await statusEvents(transactionId)).map((e) => e.data.status)).toEqual([0]);
    });
  });

  describe('Admin transactions', () => {
    it('filters the list and validates limit and filters', async () => {
      const list = (q: string) => api('GET', `${admin}/transactions${q}`, { token: boot.apiKey });
      const all = await list('');
      expect(all.status).toBe(200);
      expect(all.body).toMatchObject({ page: 1, limit: 10 });
      expect(all.body.total).toBeGreaterThanOrEqual(5);
      const completed = await list('?statuses[]=1');
      expect(completed.body.items.map((t: { id: string }) => t.id)).toContain(paid.transactionId);
      expect(completed.body.items.every((t: { status: number }) => t.status === 1)).toBe(true);
      const mixed = await list('?statuses=0,-2&currency=eur');
      expect(mixed.body.total).toBeGreaterThanOrEqual(2);
      expect(new Set(mixed.body.items.map((t: { status: number }) => t.status))).toEqual(new Set([0, -2]));
      expect((await list('?statuses[]=0&statuses[]=-2')).body.total).toBe(mixed.body.total);
      expect((await list('?statuses=0&statuses=-2')).body.total).toBe(mixed.body.total);
      const today = new Date().toISOString().slice(0, 10);
      expect((await list(`?startDate=${today}&endDate=${today}`)).body.total).toBe(all.body.total);
      expect((await list('?endDate=2020-01-01')).body.total).toBe(0);
      expect(
        (await list(`?startDate=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).body.total,
      ).toBe(0);
      expect((await list(`?siteIds[]=${boot.siteId}&providerIds=${provider.id}`)).body.total).toBe(all.body.total);
      expect((await list(`?providerIds[]=0123456789abcdef01234567`)).body.total).toBe(0);
      const paged = await list('?limit=2&page=2');
      expect(paged.body).toMatchObject({ page: 2, limit: 2 });
      expect(paged.body.items).toHaveLength(2);
      for (const q of [
        '?limit=101',
        '?limit=0',
        '?page=0',
        '?statuses[]=9',
        '?statuses=paid',
        '?startDate=yesterday',
        '?siteIds[]=abc',
        '?currency=EURO',
      ]) {
        const res = await list(q);
        expect(res.status, q).toBe(400);
        expect(typeof res.body.error).toBe('string');
      }
    });

    it('records manual transactions, moves them along legal transitions and deletes only quiet ones', async () => {
      const created = await api('POST', `${admin}/transactions/manual`, {
        token: boot.apiKey,
        body: {
          siteId: boot.siteId,
          amount: 12000,
          currency: 'EUR',
          externalReference: 'wire-7',
          status: -1,
          reason: 'awaiting bank transfer',
          ipnUrl: `${ipnBase}/ipn/manual`,
        },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        status: -1,
        manual: true,
        manualReason: 'awaiting bank transfer',
        providerId: null,
      });
      const id = created.body.id as string;
      const providerBacked = await api('PUT', `${admin}/transactions/${paid.transactionId}`, {
        token: boot.apiKey,
        body: { status: 2, reason: 'x' },
      });
      expect(providerBacked.status).toBe(409);
      const done = await api('PUT', `${admin}/transactions/${id}`, {
        token: boot.apiKey,
        body: { status: 1, reason: 'transfer received', notes: 'ok' },
      });
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ status: 1, notes: 'ok' });
      const events = await eventually(async () => {
        const mine = await statusEvents(id);
        return mine.length >= 2 ? mine : undefined;
      });
      expect(events.map((e) => e.data.status)).toEqual([-1, 1]);
      // IPN announces changes only: the status the operator created it with (-1) sends none, the move to 1 does.
      const ipn = await eventually(
        () => receiver.at('/ipn/manual').find((r) => JSON.parse(r.rawBody.toString()).id === id),
        20_000,
      );
      expect(JSON.parse(ipn.rawBody.toString())).toEqual({ id, externalReference: 'wire-7', status: 1 });
      const record = await eventually(async () => {
        const r = await api('GET', `${admin}/transactions/${id}`, { token: boot.apiKey });
        return r.body.ipn?.lastHttpStatus === 200 ? r : undefined;
      }, 20_000);
      expect(record.body.ipn.deliveries.map((d: any) => d.status)).toEqual([1]);
      expect(receiver.at('/ipn/manual').map((r) => JSON.parse(r.rawBody.toString()).status)).toEqual([1]);
      expect((await api('DELETE', `${admin}/transactions/${id}`, { token: boot.apiKey })).status).toBe(409);
      expect((await api('DELETE', `${admin}/transactions/${paid.transactionId}`, { token: boot.apiKey })).status).toBe(
        409,
      );
      const draft = await api('POST', `${admin}/transactions/manual`, {
        token: boot.apiKey,
        body: { siteId: boot.siteId, amount: 1, currency: 'EUR', invoiceNumber: 'INV-x', status: -1, reason: 'draft' },
      });
      const del = await api('DELETE', `${admin}/transactions/${draft.body.id}`, { token: boot.apiKey });
      expect(del.status).toBe(200);
      expect((await api('GET', `${admin}/transactions/${draft.body.id}`, { token: boot.apiKey })).status).toBe(404);
      const badStatus = await api('POST', `${admin}/transactions/manual`, {
        token: boot.apiKey,
        body: { siteId: boot.siteId, amount: 1, currency: 'EUR', externalReference: 'x', status: 0, reason: 'r' },
      });
      expect(badStatus.status).toBe(400);
    });

    it('keeps other tenants out', async () => {
      const other = await mesh.bootstrap();
      expect((await api('GET', `${admin}/transactions/${paid.transactionId}`, { token: other.apiKey })).status).toBe(
        404,
      );
      expect((await api('GET', `${admin}/transactions`, { token: other.apiKey })).body.total).toBe(0);
      const res = await api('POST', `${admin}/transactions/manual`, {
        token: other.apiKey,
        body: { siteId: boot.siteId, amount: 1, currency: 'EUR', externalReference: 'x', status: 1, reason: 'r' },
      });
      expect(res.status).toBe(404);
    });
  });

  it('documents the money-path routes in the OpenAPI description', async () => {
    const doc = await api('GET', `${admin}/docs/json`);
    expect(doc.status).toBe(200);
    for (const path of [
      '/api/v1/checkouts/{siteId}/create',
      '/api/v1/checkouts/{checkoutId}',
      '/api/v1/transactions',
      '/api/v1/transactions/manual',
    ]) {
      expect(doc.body.paths[path], path).toBeDefined();
    }
  });

  describe('licence', () => {
    it('refuses checkout get and transaction create for a blocked merchant', async () => {
      const org = await api('POST', `${admin}/system/organizations`, {
        token: mesh.systemApiKey,
        body: {
          name: 'Blocked Ltd',
          admin: { email: `blocked-${Date.now()}@example.com` },
          licenseState: 'BLOCKED',
          apiKey: { name: 'k' },
        },
      });
      expect(org.status).toBe(201);
      const key = org.body.apiKey.token as string;
      const site = await api('POST', `${admin}/sites`, { token: key, body: { name: 'B', url: 'https://b.example' } });
      const c = await createCheckout(validCheckout, site.body.id, key);
      expect(c.status).toBe(200);
      const view = await eventually(async () => {
        const r = await api('GET', `${pub}/checkouts/${c.body.sessionPublicId}`);
        return r.status === 403 ? r : undefined;
      }, 15_000);
      expect(view.body.error).toMatch(/blocked/);
      const tx = await api('POST', `${pub}/transactions/create`, {
        body: { sessionPublicId: c.body.sessionPublicId, providerId: 'provider_a', billingAddress: billing },
      });
      expect(tx.status).toBe(403);
    });
  });
});
