import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from 'nats';
import { api, eventually, NATS_URL, startTestMesh, type TestMesh } from '../support/mesh';
import { FakePaymentsWebhooks } from '../support/fake-payments-webhooks';

const MAIN_FRONTEND = 'https://checkout.paymesh.test';
const billing = { name: 'Ada Buyer', email: 'ada@example.com', line1: 'Main 1', city: 'Berlin', postalCode: '10115', country: 'DE' };

describe('money path: checkout -> transaction -> provider outcome -> status event', () => {
  let mesh: TestMesh;
  let nc: NatsConnection;
  let boot: Awaited<ReturnType<TestMesh['bootstrap']>>;
  const fake = new FakePaymentsWebhooks();
  let providerId: string;
  let admin: string;
  let pub: string;
  /** The transaction the provider completes (created in the transactions block). */
  let paid: { checkout: any; transactionId: string; created: any };

  /** Every event of a subject in the mesh's namespace, read from the start of its stream. */
  async function readEvents(subject: string): Promise<{ id: string; data: any }[]> {
    const js = nc.jetstream();
    const domain = subject.split('.')[0]!;
    // An unfiltered ordered consumer: subject filters on ordered consumers need NATS 2.10.
    const consumer = await js.consumers.get(`${mesh.namespace.toUpperCase()}_${domain.toUpperCase()}`);
    const out: { id: string; data: any }[] = [];
    const batch = await consumer.fetch({ max_messages: 1000, expires: 1500 });
    for await (const m of batch) if (m.subject === `${mesh.namespace}.${subject}`) out.push(m.json());
    return out;
  }

  async function publishPaymentStatus(data: Record<string, unknown>, envelopeId = `test-${randomBytes(8).toString('hex')}`): Promise<void> {
    const subject = 'payments.payment.status_reported';
    const envelope = { id: envelopeId, type: subject, version: 1, occurredAt: new Date().toISOString(), data };
    await nc.jetstream().publish(`${mesh.namespace}.${subject}`, JSON.stringify(envelope), { msgID: envelopeId });
  }

  const createCheckout = (body: Record<string, unknown>, siteId = boot.siteId, token = boot.apiKey) =>
    api('POST', `${admin}/checkouts/${siteId}/create`, { token, body });
  const validCheckout = { amount: 4990, currency: 'EUR', externalReference: 'order-1001', returnUrl: 'https://shop.example/thanks/{transactionId}' };

  async function payableTransaction(extra: Record<string, unknown> = {}) {
    const c = await createCheckout({ ...validCheckout, ...extra });
    expect(c.status).toBe(200);
    const t = await api('POST', `${pub}/transactions/create`, {
      body: { sessionPublicId: c.body.sessionPublicId, providerId, billingAddress: billing },
    });
    expect(t.status).toBe(200);
    return { checkout: c.body, transactionId: t.body.transactionId as string, created: t.body };
  }

  beforeAll(async () => {
    mesh = await startTestMesh({ env: { MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND, ALLOW_HTTP_IPN: 'false' } });
    admin = mesh.adminBaseUrl;
    pub = mesh.publicBaseUrl;
    // Provider records and payments come from payments-webhooks; stand in for it on its port.
    await mesh.kill('payments-webhooks');
    await fake.start(`127.0.0.1:${mesh.ports['payments-webhooks']}`);
    nc = await connect({ servers: NATS_URL });
    boot = await mesh.bootstrap();
    providerId = fake.addProvider(boot.organizationId, 'provider_a').id;
    fake.addProvider(boot.organizationId, 'provider_b', { enabled: false });
    fake.addProvider(boot.organizationId, 'provider_c', { testMode: true });
  });

  afterAll(async () => {
    await nc?.close();
    await fake.stop();
    await mesh?.dispose();
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
      ['http ipnUrl outside development', { ipnUrl: 'http://shop.example/ipn' }, /ipnUrl must use https/],
      ['clientId not 24-hex', { clientId: 'client-1' }, /clientId/],
      ['item quantity 0', { items: [{ name: 'A', quantity: 0, unitPrice: 100 }] }, /items\[0\]\.quantity/],
      ['item vatRate over 100', { items: [{ name: 'A', quantity: 1, unitPrice: 100, vatRate: 120 }] }, /items\[0\]\.vatRate/],
      ['item without name', { items: [{ quantity: 1, unitPrice: 100 }] }, /items/],
      ['expiry in the past', { expiresAt: '2020-01-01T00:00:00Z' }, /expiresAt/],
      ['unknown field', { colour: 'red' }, /colour|Unrecognized/],
    ])('rejects %s with 400 naming the field', async (_name, patch, message) => {
      const res = await createCheckout({ ...validCheckout, ...patch });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(message);
    });

    it('creates a checkout with every field and answers id, sessionPublicId, shortCode, paymentUrl', async () => {
      const res = await createCheckout({
        ...validCheckout,
        email: 'buyer@example.com',
        cancelUrl: 'https://shop.example/cancel?tx={transactionId}',
        ipnUrl: 'https://shop.example/ipn',
        invoiceNumber: 'INV-2026-7',
        clientId: '0123456789abcdef01234567',
        items: [{ name: 'Pro plan', description: 'monthly', quantity: 1, unitPrice: 4990, vatRate: 19, itemType: 'digital_service' }],
        metadata: { cart: 'c-9' },
      });
      expect(res.status).toBe(200);
      expect(res.body.id).toMatch(/^[0-9a-f]{24}$/);
      expect(res.body.sessionPublicId).toMatch(/^cs_[A-Za-z0-9_-]{32}$/);
      expect(res.body.shortCode).toMatch(/^[2-9A-HJKMNP-Z]{10}$/);
      expect(res.body.paymentUrl).toBe(`http://localhost:3000/c/${res.body.sessionPublicId}`);
      const got = await api('GET', `${admin}/checkouts/${res.body.id}`, { token: boot.apiKey });
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({
        id: res.body.id,
        siteId: boot.siteId,
        status: 'pending',
        amount: 4990,
        currency: 'EUR',
        returnUrl: 'https://shop.example/thanks/{transactionId}',
        ipnUrl: 'https://shop.example/ipn',
        items: [{ name: 'Pro plan', description: 'monthly', quantity: 1, unitPrice: 4990, vatRate: 19, itemType: 'digital_service' }],
        metadata: { cart: 'c-9' },
        transactions: [],
      });
    });

    it('answers 404 for a site of another organization', async () => {
      const other = await mesh.bootstrap();
      const res = await createCheckout(validCheckout, other.siteId);
      expect(res.status).toBe(404);
      const read = await api('GET', `${admin}/checkouts/${(await createCheckout(validCheckout, other.siteId, other.apiKey)).body.id}`, { token: boot.apiKey });
      expect(read.status).toBe(404);
    });

    it('lists, filters and patches checkouts', async () => {
      const c = await createCheckout({ ...validCheckout, externalReference: 'order-patch' });
      const list = await api('GET', `${admin}/checkouts?externalReference=order-patch`, { token: boot.apiKey });
      expect(list.status).toBe(200);
      expect(list.body.items.map((x: { id: string }) => x.id)).toEqual([c.body.id]);
      const patched = await api('PATCH', `${admin}/checkouts/${c.body.id}`, {
        token: boot.apiKey,
        body: { returnUrl: null, metadata: { note: 'x' } },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ returnUrl: null, metadata: { note: 'x' } });
      const bad = await api('PATCH', `${admin}/checkouts/${c.body.id}`, { token: boot.apiKey, body: { amount: 1 } });
      expect(bad.status).toBe(400);
    });
  });

  describe('Main Backend checkout view', () => {
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
        providers: ['provider_a'],
        branding: {},
        expiresAt: expect.any(String),
        checkoutSettings: { vatIdValidation: 'format' },
      });
      expect((await api('GET', url, { headers: { origin: MAIN_FRONTEND } })).status).toBe(200);
      expect((await api('GET', url, { headers: { referer: 'https://shop.example/cart' } })).status).toBe(200);
      expect((await api('GET', url)).status).toBe(200);
      const foreign = await api('GET', url, { headers: { origin: 'https://evil.example' } });
      expect(foreign.status).toBe(403);
      expect(typeof foreign.body.error).toBe('string');
      expect((await api('GET', url, { headers: { referer: 'https://evil.example/x' } })).status).toBe(403);
      expect((await api('GET', `${pub}/checkouts/cs_doesnotexist`)).status).toBe(404);
    });

    it('hands off the provider choice exactly once', async () => {
      const c = await createCheckout(validCheckout);
      const base = `${pub}/checkouts/${c.body.sessionPublicId}/handoff`;
      const created = await api('POST', base, { body: { providerId, billingAddress: billing }, headers: { origin: MAIN_FRONTEND } });
      expect(created.status).toBe(200);
      expect(created.body).toEqual({ handoffToken: expect.stringMatching(/^ho_/), expiresInSeconds: 600 });
      const consume = `${base}/${created.body.handoffToken}/consume`;
      const first = await api('POST', consume, { headers: { origin: 'https://shop.example' } });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ providerId, billingAddress: billing, createdAt: expect.any(String) });
      const second = await api('POST', consume);
      expect(second.status).toBe(404);
      const noAddress = await api('POST', base, { body: { providerId } });
      const consumed = await api('POST', `${base}/${noAddress.body.handoffToken}/consume`);
      expect(consumed.body.billingAddress).toBeUndefined();
      expect((await api('POST', base, { body: {} })).status).toBe(400);
    });
  });

  describe('transactions', () => {

    it('creates a transaction in status 0 and sends the buyer to the provider', async () => {
      paid = await payableTransaction();
      expect(paid.created).toEqual({
        transactionId: expect.stringMatching(/^[0-9a-f]{24}$/),
        status: 0,
        providerType: 'provider_a',
        redirectUrl: `https://provider.test/pay/pi_${paid.transactionId}`,
        clientSecret: `pi_${paid.transactionId}_secret`,
      });
      const call = fake.createCalls.find((c) => c.transactionId === paid.transactionId);
      expect(call).toMatchObject({ organizationId: boot.organizationId, siteId: boot.siteId, amount: 4990, currency: 'EUR', buyerEmail: billing.email });
      expect(call?.returnUrl).toBe(`https://shop.example/thanks/${paid.transactionId}`);
      const status = await api('GET', `${pub}/transactions/${paid.transactionId}/status`);
      expect(status.body).toEqual({
        status: 0,
        externalReference: 'order-1001',
        amount: 4990,
        currency: 'EUR',
        returnUrl: `https://shop.example/thanks/${paid.transactionId}`,
        createdAt: expect.any(String),
      });
    });

    it('rejects transaction input it cannot use', async () => {
      const c = await createCheckout(validCheckout);
      const post = (body: unknown, headers: Record<string, string> = {}) => api('POST', `${pub}/transactions/create`, { body, headers });
      expect((await post({ sessionPublicId: c.body.sessionPublicId, providerId })).status).toBe(400);
      expect((await post({ sessionPublicId: c.body.sessionPublicId, providerId, billingAddress: { ...billing, country: 'Germany' } })).status).toBe(400);
      expect((await post({ sessionPublicId: c.body.sessionPublicId, providerId: '0123456789abcdef01234567', billingAddress: billing })).status).toBe(400);
      expect((await post({ sessionPublicId: 'cs_missing', providerId, billingAddress: billing })).status).toBe(404);
      expect((await post({ sessionPublicId: c.body.sessionPublicId, providerId, billingAddress: billing }, { origin: 'https://evil.example' })).status).toBe(403);
    });

    it('applies a provider success once: status 1, replay unchanged, one status_changed event', async () => {
      const report = {
        organizationId: boot.organizationId,
        siteId: boot.siteId,
        transactionId: paid.transactionId,
        providerId,
        providerType: 'provider_a',
        providerPaymentId: `pi_${paid.transactionId}`,
        outcome: 'succeeded',
        providerEventId: `evt_${paid.transactionId}`,
        providerEventType: 'payment_intent.succeeded',
        occurredAt: new Date().toISOString(),
      };
      await publishPaymentStatus(report);
      await eventually(async () => (await api('GET', `${pub}/transactions/${paid.transactionId}/status`)).body.status === 1, 15_000);
      // The same provider event again, in a new envelope (so JetStream does not drop it as a duplicate).
      await publishPaymentStatus(report);
      await eventually(
        () =>
          mesh.logs('checkout').some((l) => l.includes('provider event already applied') && l.includes(report.providerEventId)),
        15_000,
      );
      expect((await api('GET', `${pub}/transactions/${paid.transactionId}/status`)).body.status).toBe(1);
      const events = await eventually(async () => {
        const mine = (await readEvents('checkout.transaction.status_changed')).filter((e) => e.data.transactionId === paid.transactionId);
        return mine.length >= 2 ? mine : undefined;
      });
      expect(events.map((e) => [e.data.previousStatus, e.data.status, e.data.sequence])).toEqual([
        [null, 0, 1],
        [0, 1, 2],
      ]);
      expect(events[1]!.data).toMatchObject({ organizationId: boot.organizationId, siteId: boot.siteId, mode: 'live', externalReference: 'order-1001' });
      const record = await api('GET', `${admin}/transactions/${paid.transactionId}`, { token: boot.apiKey });
      expect(record.status).toBe(200);
      expect(record.body.statusHistory.map((h: any) => [h.from, h.to, h.trigger, h.providerEventId])).toEqual([
        [null, 0, 'create', null],
        [0, 1, 'provider_succeeded', report.providerEventId],
      ]);
      expect('ipn' in record.body).toBe(true);
      expect(record.body.ipn === null || Array.isArray(record.body.ipn.deliveries)).toBe(true);
      // The paid session takes no further payment.
      const again = await api('POST', `${pub}/transactions/create`, { body: { sessionPublicId: paid.checkout.sessionPublicId, providerId, billingAddress: billing } });
      expect(again.status).toBe(409);
    });

    it('omits an empty external reference and return URL from the status view', async () => {
      const { transactionId } = await payableTransaction({ externalReference: undefined, invoiceNumber: 'INV-88', returnUrl: undefined });
      const status = await api('GET', `${pub}/transactions/${transactionId}/status`);
      expect(status.status).toBe(200);
      expect(Object.keys(status.body).sort()).toEqual(['amount', 'createdAt', 'currency', 'status']);
    });

    it('cancels a pending transaction through the provider; refuses to cancel a completed one', async () => {
      const { transactionId } = await payableTransaction();
      const res = await api('POST', `${pub}/transactions/${transactionId}/cancel`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ transactionId, status: -2 });
      expect(fake.cancelCalls.filter((c) => c.transactionId === transactionId)).toHaveLength(1);
      expect((await api('GET', `${pub}/transactions/${transactionId}/status`)).body.status).toBe(-2);
      expect((await api('POST', `${pub}/transactions/${paid.transactionId}/cancel`)).status).toBe(409);
      expect((await api('POST', `${pub}/transactions/${transactionId}/mark-pending`)).status).toBe(409);
    });

    it('keeps the transaction pending when the provider will not cancel', async () => {
      const { transactionId } = await payableTransaction();
      fake.cancelResult = false;
      try {
        const res = await api('POST', `${pub}/transactions/${transactionId}/cancel`);
        expect(res.status).toBe(409);
      } finally {
        fake.cancelResult = true;
      }
      expect((await api('GET', `${pub}/transactions/${transactionId}/status`)).body.status).toBe(0);
    });

    it('marks a pending transaction pending_provider without changing its status or announcing it', async () => {
      const { transactionId } = await payableTransaction();
      const res = await api('POST', `${pub}/transactions/${transactionId}/mark-pending`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ transactionId, status: 0, subState: 'pending_provider' });
      expect((await api('GET', `${pub}/transactions/${transactionId}/status`)).body.status).toBe(0);
      const record = await api('GET', `${admin}/transactions/${transactionId}`, { token: boot.apiKey });
      expect(record.body).toMatchObject({ status: 0, subState: 'pending_provider' });
      await new Promise((r) => setTimeout(r, 1000));
      const events = (await readEvents('checkout.transaction.status_changed')).filter((e) => e.data.transactionId === transactionId);
      expect(events.map((e) => e.data.status)).toEqual([0]);
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
      expect(completed.body.items.length).toBeGreaterThanOrEqual(1);
      expect(completed.body.items.every((t: { status: number }) => t.status === 1)).toBe(true);
      const mixed = await list('?statuses=0,-2&currency=eur');
      expect(mixed.body.items.length).toBeGreaterThanOrEqual(2);
      expect(new Set(mixed.body.items.map((t: { status: number }) => t.status))).toEqual(new Set([0, -2]));
      const repeated = await list('?statuses[]=0&statuses[]=-2');
      expect(repeated.body.total).toBe(mixed.body.total);
      const today = new Date().toISOString().slice(0, 10);
      expect((await list(`?startDate=${today}&endDate=${today}`)).body.total).toBe(all.body.total);
      expect((await list('?endDate=2020-01-01')).body.total).toBe(0);
      expect((await list(`?siteIds[]=${boot.siteId}&providerIds=${providerId}`)).body.total).toBe(all.body.total);
      const paged = await list('?limit=2&page=2');
      expect(paged.body).toMatchObject({ page: 2, limit: 2 });
      expect(paged.body.items).toHaveLength(2);
      for (const q of ['?limit=101', '?limit=0', '?page=0', '?statuses[]=9', '?statuses=paid', '?startDate=yesterday', '?siteIds[]=abc', '?currency=EURO']) {
        const res = await list(q);
        expect(res.status, q).toBe(400);
        expect(typeof res.body.error).toBe('string');
      }
    });

    it('records manual transactions, moves them along legal transitions and deletes only quiet ones', async () => {
      const created = await api('POST', `${admin}/transactions/manual`, {
        token: boot.apiKey,
        body: { siteId: boot.siteId, amount: 12000, currency: 'EUR', externalReference: 'wire-7', status: -1, reason: 'awaiting bank transfer' },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ status: -1, manual: true, manualReason: 'awaiting bank transfer', providerId: null });
      const id = created.body.id as string;
      const illegal = await api('PUT', `${admin}/transactions/${paid.transactionId}`, { token: boot.apiKey, body: { status: 2, reason: 'x' } });
      expect(illegal.status).toBe(409);
      const done = await api('PUT', `${admin}/transactions/${id}`, { token: boot.apiKey, body: { status: 1, reason: 'transfer received', notes: 'ok' } });
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ status: 1, notes: 'ok' });
      const events = await eventually(async () => {
        const mine = (await readEvents('checkout.transaction.status_changed')).filter((e) => e.data.transactionId === id);
        return mine.length >= 2 ? mine : undefined;
      });
      expect(events.map((e) => e.data.status)).toEqual([-1, 1]);
      expect((await api('DELETE', `${admin}/transactions/${id}`, { token: boot.apiKey })).status).toBe(409);
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
  });

  it('documents the money-path routes in the OpenAPI description', async () => {
    const doc = await api('GET', `${admin}/docs/json`);
    expect(doc.status).toBe(200);
    for (const path of ['/api/v1/checkouts/{siteId}/create', '/api/v1/checkouts/{checkoutId}', '/api/v1/transactions', '/api/v1/transactions/manual']) {
      expect(doc.body.paths[path], path).toBeDefined();
    }
  });

  describe('licence', () => {
    it('refuses checkout get and transaction create for a blocked merchant', async () => {
      const org = await api('POST', `${admin}/system/organizations`, {
        token: mesh.systemApiKey,
        body: { name: 'Blocked Ltd', admin: { email: `blocked-${Date.now()}@example.com` }, licenseState: 'BLOCKED', apiKey: { name: 'k' } },
      });
      expect(org.status).toBe(201);
      const key = org.body.apiKey.token as string;
      const site = await api('POST', `${admin}/sites`, { token: key, body: { name: 'B', url: 'https://b.example' } });
      fake.addProvider(org.body.organization.id, 'provider_a');
      const c = await createCheckout(validCheckout, site.body.id, key);
      expect(c.status).toBe(200);
      const view = await eventually(async () => {
        const r = await api('GET', `${pub}/checkouts/${c.body.sessionPublicId}`);
        return r.status === 403 ? r : undefined;
      }, 15_000);
      expect(view.body.error).toMatch(/blocked/);
      const tx = await api('POST', `${pub}/transactions/create`, { body: { sessionPublicId: c.body.sessionPublicId, providerId: 'provider_a', billingAddress: billing } });
      expect(tx.status).toBe(403);
    });
  });
});
