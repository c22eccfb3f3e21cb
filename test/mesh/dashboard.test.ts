import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { connect } from 'nats';
import { api, eventually, NATS_URL, startTestMesh, type TestMesh } from '../support/mesh';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';

const MAIN_FRONTEND = 'https://checkout.paymesh.test';
const billing = (email: string) => ({
  name: 'Erika Buyer',
  email,
  line1: 'Hauptstr. 1',
  city: 'Berlin',
  postalCode: '10115',
  country: 'DE',
});
const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/**
 * The dashboard after a scripted set of payments through the provider_a sandbox (paid, declined,
 * refunded, a lost dispute, two currencies) and manual transactions: every figure is the script's,
 * and the sum of completed payments equals the one the transaction list gives. Repeated webhooks
 * change nothing.
 */
describe('dashboard', () => {
  let mesh: TestMesh;
  let boot: BootstrapResult;
  let provider: { id: string; secretKey: string };
  let sandbox: string;
  let admin: string;
  let pub: string;
  const created: string[] = [];
  let refundPi = '';
  let paidPi = '';

  const adminCall = (method: string, path: string, body?: unknown) =>
    api(method, `${admin}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });

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

  const record = async (id: string) => (await adminCall('GET', `/transactions/${id}`)).body;
  const statusOf = async (id: string) => (await api('GET', `${pub}/transactions/${id}/status`)).body.status as number;
  const waitStatus = (id: string, status: number) => eventually(async () => (await statusOf(id)) === status, 20_000);

  /** A checkout and the buyer's transaction at provider_a (pending, not paid yet). */
  async function start(
    amount: number,
    currency: string,
    email = 'erika@example.com',
  ): Promise<{ transactionId: string; pi: string }> {
    const c = await adminCall('POST', `/checkouts/${boot.siteId}/create`, {
      amount,
      currency,
      externalReference: `order-${created.length + 1}`,
      returnUrl: 'https://shop.example/thanks',
    });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    const t = await api('POST', `${pub}/transactions/create`, {
      body: { sessionPublicId: c.body.sessionPublicId, providerId: provider.id, billingAddress: billing(email) },
      headers: { origin: MAIN_FRONTEND },
    });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    const transactionId = t.body.transactionId as string;
    created.push(transactionId);
    return { transactionId, pi: (await record(transactionId)).providerPaymentId as string };
  }

  async function pay(
    amount: number,
    currency: string,
    email?: string,
  ): Promise<{ transactionId: string; pi: string; charge: string }> {
    const t = await start(amount, currency, email);
    const paid = await sandboxCall('POST', `/v1/payment_intents/${t.pi}/confirm`, { payment_method: 'pm_card_visa' });
    expect(paid.status).toBe(200);
    await waitStatus(t.transactionId, 1);
    return { ...t, charge: paid.body.latest_charge as string };
  }

  async function decline(amount: number, currency: string): Promise<void> {
    const t = await start(amount, currency);
    await sandboxCall('POST', `/v1/payment_intents/${t.pi}/confirm`, { payment_method: 'pm_card_chargeDeclined' });
    await waitStatus(t.transactionId, 2);
  }

  const dashboard = (query: string) => adminCall('GET', `/dashboard?${query}`);
  const around = `startDate=${day(-1)}&endDate=${day(1)}`;

  /** The newest event of a type about a payment intent. */
  async function eventAbout(type: string, pi: string): Promise<string> {
    return eventually(async () => {
      const list = (await sandboxCall('GET', `/v1/events?type=${type}&limit=100`)).body.data as any[];
      return list.find((e) => e.data.object.payment_intent === pi || e.data.object.id === pi)?.id as string | undefined;
    }, 10_000);
  }

  async function resend(eventId: string, times: number): Promise<void> {
    for (let i = 0; i < times; i++)
      expect((await sandboxCall('POST', `/_sandbox/events/${eventId}/resend`)).status).toBe(200);
    await eventually(
      () =>
        mesh
          .logs('payments-webhooks')
          .filter((l) => l.includes(eventId) && l.includes('duplicate provider event delivery')).length >= times,
      20_000,
    );
  }

  beforeAll(async () => {
    mesh = await startTestMesh({ env: { MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND } });
    admin = mesh.adminBaseUrl;
    pub = mesh.publicBaseUrl;
    sandbox = mesh.sandboxUrls['sandbox-provider-a']!;
    boot = await mesh.bootstrap();
    provider = boot.providers!.provider_a!;

    // EUR: 10.00 paid; 25.00 paid then 7.00 refunded; 40.00 paid then lost in a dispute; 15.00
    // declined; 8.00 left pending; 6.00 completed manually; a manual draft deleted again.
    await pay(1000, 'EUR');
    const refunded = await pay(2500, 'EUR');
    refundPi = refunded.pi;
    expect((await sandboxCall('POST', '/v1/refunds', { payment_intent: refunded.pi, amount: '700' })).status).toBe(200);
    await eventually(async () => ((await record(refunded.transactionId)).refunds ?? []).length === 1, 20_000);
    // The disputing buyer gets a hold; another e-mail keeps the others' checkouts open.
    const disputed = await pay(4000, 'EUR', 'disputer@example.com');
    const dispute = await sandboxCall('POST', `/_sandbox/charges/${disputed.charge}/dispute`, { reason: 'fraudulent' });
    expect(dispute.status).toBe(200);
    await waitStatus(disputed.transactionId, 4);
    expect((await sandboxCall('POST', `/_sandbox/disputes/${dispute.body.id}/close`, { outcome: 'lost' })).status).toBe(
      200,
    );
    await eventually(async () => (await record(disputed.transactionId)).chargebacks?.[0]?.status === 'lost', 20_000);
    await decline(1500, 'EUR');
    await start(800, 'EUR');
    const manual = await adminCall('POST', '/transactions/manual', {
      siteId: boot.siteId,
      amount: 600,
      currency: 'EUR',
      externalReference: 'wire-1',
      status: 1,
      reason: 'paid by bank transfer',
    });
    expect(manual.status, JSON.stringify(manual.body)).toBe(201);
    created.push(manual.body.id);
    const draft = await adminCall('POST', '/transactions/manual', {
      siteId: boot.siteId,
      amount: 99,
      currency: 'EUR',
      externalReference: 'wire-2',
      status: -1,
      reason: 'draft',
    });
    expect((await adminCall('DELETE', `/transactions/${draft.body.id}`)).status).toBe(200);
    // USD: 30.00 paid, 12.00 declined.
    paidPi = (await pay(3000, 'USD')).pi;
    await decline(1200, 'USD');
  }, 240_000);

  afterAll(async () => {
    await mesh?.dispose();
  });

  it('gross volume, net revenue, counts, failure ratios and providers are the script’s', async () => {
    const res = await dashboard(around);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const d = res.body;
    expect(d).toMatchObject({
      mode: 'live',
      siteId: null,
      currency: null,
      period: { startDate: day(-1), endDate: day(1), timezone: 'UTC', preset: null },
    });
    expect(d.transactionCounts).toEqual({
      total: 8,
      canceled: 0,
      initiated: 0,
      pending: 1,
      completed: 4,
      failed: 2,
      refunded: 0,
      disputed: 1,
    });
    expect(d.failureRatio).toBeCloseTo(2 / 7, 10);
    const [eur, usd] = d.currencies;
    expect(eur).toMatchObject({
      currency: 'EUR',
      grossVolume: 1000 + 2500 + 4000 + 600,
      refundedAmount: 700,
      disputeLostAmount: 4000,
      netRevenue: 8100 - 700 - 4000,
      completedPayments: 4,
      transactionCounts: { total: 6, pending: 1, completed: 3, failed: 1, disputed: 1 },
      failureRatio: 1 / 5,
    });
    expect(eur.topProvidersByVolume).toEqual([
      {
        providerId: provider.id,
        providerType: 'provider_a',
        grossVolume: 7500,
        completedPayments: 3,
        transactionCount: 5,
        failedCount: 1,
      },
      {
        providerId: null,
        providerType: 'manual',
        grossVolume: 600,
        completedPayments: 1,
        transactionCount: 1,
        failedCount: 0,
      },
    ]);
    expect(usd).toMatchObject({
      currency: 'USD',
      grossVolume: 3000,
      refundedAmount: 0,
      disputeLostAmount: 0,
      netRevenue: 3000,
      completedPayments: 1,
      failureRatio: 0.5,
    });
    expect(d.topProvidersByCount).toEqual([
      {
        providerId: provider.id,
        providerType: 'provider_a',
        transactionCount: 7,
        completedPayments: 4,
        failedCount: 2,
        failureRatio: 2 / 6,
      },
      {
        providerId: null,
        providerType: 'manual',
        transactionCount: 1,
        completedPayments: 1,
        failedCount: 0,
        failureRatio: 0,
      },
    ]);

    // Gross volume per currency equals the completed payments the transaction list shows.
    const list = (await adminCall('GET', '/transactions?limit=100')).body.items as any[];
    for (const c of d.currencies) {
      const completed = list.filter((t) => t.currency === c.currency && [1, 3, 4].includes(t.status));
      expect(c.grossVolume).toBe(completed.reduce((n, t) => n + t.amount, 0));
      expect(c.completedPayments).toBe(completed.length);
    }
  });

  it('lists the newest transactions first, and filters by currency, site and zone', async () => {
    const recent = (await dashboard(`${around}&recentLimit=3`)).body.recentTransactions as any[];
    expect(recent.map((t) => t.id)).toEqual(created.slice(-3).reverse());
    expect(recent[0]).toMatchObject({
      status: 2,
      amount: 1200,
      currency: 'USD',
      providerType: 'provider_a',
      providerId: provider.id,
      siteId: boot.siteId,
    });
    expect((await dashboard(`${around}&recentLimit=100`)).body.recentTransactions.map((t: any) => t.id)).toEqual(
      [...created].reverse(),
    );

    const eur = (await dashboard(`${around}&currency=EUR&recentLimit=2`)).body;
    expect(eur.currencies.map((c: any) => c.currency)).toEqual(['EUR']);
    expect(eur.transactionCounts.total).toBe(6);
    expect(eur.recentTransactions.every((t: any) => t.currency === 'EUR')).toBe(true);

    const all = (await dashboard(around)).body;
    const site = (await dashboard(`${around}&siteId=${boot.siteId}`)).body;
    expect({ ...site, siteId: null }).toEqual(all);
    // A site that is not the caller's (unknown, or another organization's) is 404 like every other foreign id.
    const other = await mesh.bootstrap();
    for (const siteId of ['0'.repeat(24), other.siteId]) {
      const res = await dashboard(`${around}&siteId=${siteId}`);
      expect(res.status, siteId).toBe(404);
      expect(res.body, siteId).toEqual({ error: expect.stringContaining('site') });
      expect(res.headers.get('x-request-id'), siteId).toBeTruthy();
    }
    // ...and the other organization's own key sees its (empty) site.
    const theirs = await api('GET', `${admin}/dashboard?${around}&siteId=${other.siteId}`, { token: other.apiKey });
    expect(theirs.status).toBe(200);
    expect(theirs.body).toMatchObject({
      siteId: other.siteId,
      transactionCounts: { total: 0 },
      currencies: [],
      recentTransactions: [],
    });
    // Local days of a +05:30 zone: the period's ends fall on quarter hours, the figures are the same.
    const kolkata = (await dashboard(`${around}&timezone=Asia/Kolkata`)).body;
    expect(kolkata.period).toMatchObject({
      timezone: 'Asia/Kolkata',
      startAt: `${day(-2)}T18:30:00.000Z`,
      endAt: `${day(1)}T18:30:00.000Z`,
    });
    // Its series has the same local days, each from local midnight (18:30 UTC the day before), and
    // over all of them the same figures (which day a payment falls on depends on the time of day).
    const points = (body: any) => body.series.points as { label: string; start: string; currencies: any[] }[];
    const completed = (body: any) =>
      points(body).reduce(
        (n, p) => n + p.currencies.reduce((m: number, c: any) => m + (c.completedPayments ?? 0), 0),
        0,
      );
    expect(kolkata.series.granularity).toBe(all.series.granularity);
    expect(points(kolkata).map((p) => p.label)).toEqual(points(all).map((p) => p.label));
    for (const p of points(kolkata)) expect(p.start).toMatch(/T18:30:00\.000Z$/);
    expect(completed(kolkata)).toBe(completed(all));
    expect(completed(all)).toBeGreaterThan(0);
    expect({ ...kolkata, period: all.period, series: all.series }).toEqual(all);
    // A period that ended before the script started is empty.
    const before = (await dashboard(`startDate=${day(-9)}&endDate=${day(-2)}`)).body;
    expect(before.transactionCounts.total).toBe(0);
    expect((await dashboard('period=last_7_days')).body.transactionCounts.total).toBe(8);
  });

  it('repeated webhooks change nothing', async () => {
    const first = (await dashboard(around)).body;
    await resend(await eventAbout('payment_intent.succeeded', paidPi), 2);
    await resend(await eventAbout('charge.refunded', refundPi), 2);
    expect((await dashboard(around)).body).toEqual(first);
    // The last refund or dispute report reaches checkout again (a redelivery after a lost ack).
    const nc = await connect({ servers: NATS_URL });
    try {
      const subject = `${mesh.namespace}.payments.payment.adjustment_reported`;
      const stored = await (
        await nc.jetstreamManager()
      ).streams.getMessage(`${mesh.namespace.toUpperCase()}_PAYMENTS`, { last_by_subj: subject });
      const envelope = JSON.parse(new TextDecoder().decode(stored.data));
      await nc
        .jetstream()
        .publish(subject, stored.data, { msgID: `${envelope.id}-again-${randomBytes(4).toString('hex')}` });
      const providerEventId = envelope.data.providerEventId as string;
      await eventually(
        () =>
          mesh
            .logs('checkout')
            .some((l) => l.includes(providerEventId) && l.includes('provider event already applied')),
        20_000,
      );
    } finally {
      await nc.close();
    }
    expect((await dashboard(around)).body).toEqual(first);
  });

  it('rejects bad parameters with 400 and a request id', async () => {
    for (const q of [
      'timezone=Mars/Olympus',
      `startDate=${day(0)}`,
      `startDate=${day(1)}&endDate=${day(0)}`,
      'startDate=2026-02-30&endDate=2026-03-01',
      `period=today&startDate=${day(0)}&endDate=${day(0)}`,
      'period=forever',
      'currency=eur',
      'siteId=nope',
      'recentLimit=101',
      'startDate=2020-01-01&endDate=2026-01-01',
      'colour=blue',
    ]) {
      const res = await dashboard(q);
      expect(res.status, q).toBe(400);
      expect(res.body.error, q).toEqual(expect.any(String));
      expect(res.headers.get('x-request-id'), q).toBeTruthy();
    }
  });
});
