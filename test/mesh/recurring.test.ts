import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, jsonCaller, makeClient } from '../../libs/grpc/src/index';
import { recurringRpc } from '../../libs/contracts/src/index';
import { billing, recurring } from '../../libs/proto/src/index';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';

const item = {
  description: 'Hosting plan',
  quantity: 1,
  unitPrice: 11900,
  amountType: 'gross',
  itemType: 'digital_service',
};

/**
 * Recurring schedules end to end: the Admin routes, the due processor's exactly-once generation
 * under concurrent calls and a SIGKILL mid-run, future-cycle cancellation finalized only when due
 * (in the schedule's time zone), and the portal's subscription RPCs. The processor runs with the
 * test-only `now` so cycles in 2027 are due without waiting.
 */
describe('recurring schedules', () => {
  let mesh: TestMesh;
  let A: BootstrapResult;
  let B: BootstrapResult;
  let rc: recurring.RecurringServiceClient;
  const adm = (path: string) => `${mesh.adminBaseUrl}${path}`;
  /** Every answer of this suite: the superseded name `nextRunAt` never appears. */
  const checked = async (res: Awaited<ReturnType<typeof api>>) => {
    expect(JSON.stringify(res.body ?? '')).not.toContain('nextRunAt');
    return res;
  };
  const as = (token: string) => ({
    get: (p: string) => api('GET', adm(p), { token }).then(checked),
    post: (p: string, body?: unknown) =>
      api('POST', adm(p), { token, ...(body !== undefined ? { body } : {}) }).then(checked),
    put: (p: string, body: unknown) => api('PUT', adm(p), { token, body }).then(checked),
  });
  let a: ReturnType<typeof as>;
  let sys: ReturnType<typeof as>;
  const process = (now: string, extra: Record<string, unknown> = {}) =>
    sys.post('/system/recurring/process', { now, ...extra });
  const invoicesOf = async (clientId: string) =>
    (await a.get(`/invoices?clientId=${clientId}&limit=100`)).body.items as { id: string; status: string }[];
  const newClient = async (email: string) => {
    const res = await a.post('/clients', {
      name: `Buyer ${email}`,
      email,
      address: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  };
  const schedule = (clientId: string, over: Record<string, unknown> = {}) => ({
    startDate: '2027-01-31',
    interval: 'month',
    template: { siteId: A.siteId, clientId, currency: 'EUR', items: [item], paymentTermsDays: 14 },
    ...over,
  });
  type PortalMethod = 'countPortalSubscriptions' | 'listPortalSubscriptions' | 'portalUpcoming' | 'portalCancel';
  const portal = (method: PortalMethod, email: string, id = '', body: Record<string, unknown> = {}) =>
    jsonCaller(rc, recurringRpc, { deadlineMs: 20_000, target: 'recurring' })
      .json(method, { organizationId: A.organizationId, testMode: false }, { email, id, body })
      .then((answer) => answer as Record<string, any>);

  beforeAll(async () => {
    mesh = await startTestMesh({ env: { RECURRING_TEST_HOOKS: 'true', RECURRING_CLAIM_LEASE_MS: '1500' } });
    A = await mesh.bootstrap();
    B = await mesh.bootstrap();
    a = as(A.apiKey);
    sys = as(mesh.systemApiKey);
    expect((await a.put('/organizations/settings/tax', { homeCountry: 'DE' })).status).toBe(200);
    rc = makeClient(recurring.RecurringServiceClient, `127.0.0.1:${mesh.ports.recurring}`);
  });
  afterAll(async () => {
    rc?.close();
    await mesh?.dispose();
  });

  let s1: string;
  let c1: string;

  it('creates a monthly schedule from Jan 31 and refuses bad ones without writing', async () => {
    c1 = await newClient('Anna.Buyer@example.com');
    const bad = [
      schedule(c1, { autoSendInvoices: true }),
      schedule(c1, { startDate: '2027-02-30' }),
      schedule(c1, { timezone: 'Mars/Olympus' }),
      schedule(c1, {
        template: { siteId: A.siteId, clientId: c1, currency: 'EUR', items: [item], issueDate: '2027-01-31' },
      }),
      schedule('0123456789abcdef01234567'),
      schedule(c1, { template: { siteId: '0123456789abcdef01234567', clientId: c1, currency: 'EUR', items: [item] } }),
    ];
    for (const body of bad) {
      const res = await a.post('/invoices/recurring', body);
      expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body.error).toBeTypeOf('string');
    }
    expect((await a.get('/invoices/recurring')).body.total).toBe(0);

    const res = await a.post('/invoices/recurring', schedule(c1, { name: 'Hosting' }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      status: 'active',
      startDate: '2027-01-31',
      nextRunDate: '2027-01-31',
      cadence: 'every 1 month',
      timezone: 'UTC',
      invoicesGenerated: 0,
    });
    expect(JSON.stringify(res.body)).not.toContain('nextRunAt');
    s1 = res.body.id;
    const list = await a.get(`/invoices/recurring?clientId=${c1}&status=active`);
    expect(list.body).toMatchObject({ total: 1, page: 1, limit: 20 });
    expect(list.body.items[0].id).toBe(s1);
    expect((await as(B.apiKey).get(`/invoices/recurring/${s1}`)).status).toBe(404);
  });

  it('generates one cycle now, then projects Feb 28, Mar 31, Apr 30 with the tax estimate', async () => {
    const gen = await a.post(`/invoices/recurring/${s1}/generate`);
    expect(gen.status, JSON.stringify(gen.body)).toBe(200);
    expect(gen.body).toMatchObject({ cycle: 0, scheduledDate: '2027-01-31', invoiceStatus: 'draft', created: true });
    expect(gen.body.schedule).toMatchObject({
      nextRunDate: '2027-02-28',
      invoicesGenerated: 1,
      lastInvoiceId: gen.body.invoiceId,
    });
    const invoices = await invoicesOf(c1);
    expect(invoices.map((i) => i.id)).toEqual([gen.body.invoiceId]);

    const up = await a.get(`/invoices/recurring/${s1}/upcoming?count=3`);
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body.upcoming.map((u: { scheduledDate: string }) => u.scheduledDate)).toEqual([
      '2027-02-28',
      '2027-03-31',
      '2027-04-30',
    ]);
    for (const u of up.body.upcoming) {
      expect(u.taxEstimate).toBe(1900);
      expect(u.baseAmount).toBe(10000);
      expect(u.estimatedTotal).toBe(11900);
    }
    expect(up.body.upcoming[0].dueDate).toBe('2027-03-14');
    expect((await a.get(`/invoices/recurring/${s1}/upcoming?count=13`)).status).toBe(400);
    expect((await a.get(`/invoices/recurring/${s1}/upcoming`)).body.upcoming).toHaveLength(3);
  });

  it('the portal RPCs list the buyer’s subscriptions only', async () => {
    expect(await portal('countPortalSubscriptions', 'anna.buyer@example.com')).toEqual({ count: 1 });
    expect(await portal('countPortalSubscriptions', 'someone@example.com')).toEqual({ count: 0 });
    const list = await portal('listPortalSubscriptions', 'anna.buyer@example.com', '', { page: 1, limit: 10 });
    expect(list).toEqual({
      subscriptions: [
        {
          id: s1,
          name: 'Hosting',
          status: 'active',
          cadence: 'every 1 month',
          currency: 'EUR',
          nextChargeDate: '2027-02-28T00:00:00.000Z',
          effectiveAt: null,
          estimatedNextAmount: 11900,
          upcomingChargesCount: 3,
        },
      ],
      total: 1,
      page: 1,
      limit: 10,
    });
    const up = await portal('portalUpcoming', 'anna.buyer@example.com', s1, { count: 2 });
    expect(Object.keys(up).sort()).toEqual(
      [
        'subscriptionId',
        'name',
        'status',
        'cadence',
        'currency',
        'nextChargeDate',
        'effectiveAt',
        'cancellationReason',
        'cancellationRequestedAt',
        'upcoming',
      ].sort(),
    );
    expect(Object.keys(up.upcoming[0]).sort()).toEqual(
      [
        'id',
        'cycle',
        'scheduledDate',
        'dueDate',
        'currency',
        'baseAmount',
        'usageAmount',
        'taxEstimate',
        'estimatedTotal',
        'proformaAvailable',
        'proformaPreviewId',
        'proformaPreviewLabel',
      ].sort(),
    );
    await expect(portal('portalUpcoming', 'someone@example.com', s1)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(portal('portalCancel', 'someone@example.com', s1)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('PUT startDate after invoices: onto or before nextRunDate is 400, after it moves the plan', async () => {
    for (const startDate of ['2027-02-28', '2027-01-15', '2027-02-01']) {
      const res = await a.put(`/invoices/recurring/${s1}`, { startDate });
      expect(res.status, startDate).toBe(400);
    }
    expect((await a.get(`/invoices/recurring/${s1}`)).body.nextRunDate).toBe('2027-02-28');
    const ok = await a.put(`/invoices/recurring/${s1}`, { startDate: '2027-03-15' });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ startDate: '2027-03-15', nextRunDate: '2027-03-15', invoicesGenerated: 1 });
    expect((await a.put(`/invoices/recurring/${s1}`, { autoSendInvoices: true })).status).toBe(400);
    // Before any invoice the start date simply moves the next run.
    const c = await newClient('early@example.com');
    const s = (await a.post('/invoices/recurring', schedule(c, { startDate: '2028-05-01' }))).body.id;
    const moved = await a.put(`/invoices/recurring/${s}`, {
      startDate: '2028-04-01',
      interval: 'week',
      intervalCount: 2,
    });
    expect(moved.body).toMatchObject({ nextRunDate: '2028-04-01', cadence: 'every 2 weeks' });
    expect((await a.post(`/invoices/recurring/${s}/pause`)).body.status).toBe('paused');
    expect((await a.post(`/invoices/recurring/${s1}/pause`)).body).toMatchObject({ status: 'paused' });
    expect((await a.post(`/invoices/recurring/${s1}/pause`)).body).toMatchObject({ status: 'paused' });
    expect(await portal('countPortalSubscriptions', 'anna.buyer@example.com')).toEqual({ count: 0 });
  });

  it('resume skips the cycles whose dates passed while paused', async () => {
    const c = await newClient('resume@example.com');
    // Weekly from a date long past (the service's own clock is real time).
    const created = await a.post('/invoices/recurring', schedule(c, { startDate: '2020-01-06', interval: 'week' }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const s = created.body.id as string;
    expect((await a.post(`/invoices/recurring/${s}/pause`)).body).toMatchObject({
      status: 'paused',
      nextRunDate: '2020-01-06',
    });
    const resumed = (await a.post(`/invoices/recurring/${s}/resume`)).body;
    const today = new Date().toISOString().slice(0, 10);
    expect(resumed.status).toBe('active');
    expect(resumed.nextRunDate >= today).toBe(true);
    // Still a Monday of the plan, less than a week from today.
    expect(new Date(`${resumed.nextRunDate}T00:00:00Z`).getUTCDay()).toBe(1);
    expect(Date.parse(resumed.nextRunDate) - Date.parse(today)).toBeLessThan(7 * 86_400_000);
    expect(resumed.invoicesGenerated).toBe(0);
    expect((await a.post(`/invoices/recurring/${s}/cancel`)).body.status).toBe('cancel_requested');
    expect((await a.post(`/invoices/recurring/${s}/resume`)).status).toBe(409);
  });

  it('two processors at once on a due schedule make one invoice; a repeat makes none', async () => {
    const c2 = await newClient('two@example.com');
    const s2 = (await a.post('/invoices/recurring', schedule(c2))).body.id;
    const now = '2027-01-31T12:00:00.000Z';
    const [r1, r2] = await Promise.all([process(now), process(now)]);
    expect(r1.status, JSON.stringify(r1.body)).toBe(200);
    expect(r2.status, JSON.stringify(r2.body)).toBe(200);
    expect(r1.body.completed + r2.body.completed).toBe(1);
    expect(await invoicesOf(c2)).toHaveLength(1);
    const again = await process(now);
    expect(again.body).toMatchObject({ completed: 0, failed: 0 });
    expect(await invoicesOf(c2)).toHaveLength(1);
    const got = (await a.get(`/invoices/recurring/${s2}`)).body;
    expect(got).toMatchObject({ nextRunDate: '2027-02-28', invoicesGenerated: 1 });
    const status = await sys.get('/system/recurring/status');
    expect(status.status, JSON.stringify(status.body)).toBe(200);
    expect(status.body.lastRuns.length).toBeGreaterThanOrEqual(3);
    expect((await a.post(`/invoices/recurring/${s2}/pause`)).status).toBe(200);
  });

  it('a processor killed mid-run (SIGKILL) and run again still makes one invoice per cycle', async () => {
    const c3 = await newClient('three@example.com');
    const s3 = (
      await a.post('/invoices/recurring', schedule(c3, { startDate: '2027-06-30', autoFinalizeInvoices: true }))
    ).body.id;
    const now = '2027-06-30T12:00:00.000Z';
    const hanging = process(now, { holdAfter: 'invoice' }).catch(() => null);
    await eventually(() => mesh.logs('recurring').some((l) => l.includes('recurring run holding')), 20_000);
    await mesh.kill('recurring');
    await hanging;
    await mesh.restart('recurring');
    const before = await invoicesOf(c3);
    expect(before).toHaveLength(1);
    expect(before[0]?.status).toBe('draft');
    // The crashed run's claim is resumed once its lease ends (no fixed wait: poll the processor).
    await eventually(async () => (await process(now)).body.completed === 1, 20_000, 300);
    const after = await invoicesOf(c3);
    expect(after.map((i) => i.id)).toEqual(before.map((i) => i.id));
    expect(after[0]?.status).toBe('issued');
    expect((await a.get(`/invoices/recurring/${s3}`)).body).toMatchObject({
      nextRunDate: '2027-07-30',
      invoicesGenerated: 1,
    });
    expect((await process(now)).body.completed).toBe(0);
    expect(await invoicesOf(c3)).toHaveLength(1);
    expect((await a.post(`/invoices/recurring/${s3}/pause`)).status).toBe(200);
  });

  it('cancel is future-cycle: cancel_requested until its cycle is due in the schedule’s zone, then cancelled', async () => {
    const c4 = await newClient('four@example.com');
    const s4 = (
      await a.post('/invoices/recurring', schedule(c4, { startDate: '2027-09-30', timezone: 'Pacific/Auckland' }))
    ).body.id;
    const reason = `  ${'x'.repeat(600)}  `;
    const first = await a.post(`/invoices/recurring/${s4}/cancel`, { reason });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({
      status: 'cancel_requested',
      effectiveFromCycle: 0,
      effectiveAt: '2027-09-30',
      nextRunDate: '2027-09-30',
    });
    expect(first.body.cancellationReason).toBe('x'.repeat(500));
    expect(first.body.cancelledBy).toMatch(/^api_key:/);
    expect(first.body.cancellationRequestedAt).toBeTypeOf('string');
    const repeat = await a.post(`/invoices/recurring/${s4}/cancel`);
    expect(repeat.body).toMatchObject({
      status: 'cancel_requested',
      cancellationReason: first.body.cancellationReason,
      cancellationRequestedAt: first.body.cancellationRequestedAt,
    });
    // 2027-09-30 begins at 2027-09-29T11:00Z in Auckland (NZDT, UTC+13).
    const early = await process('2027-09-29T10:59:59.000Z');
    expect(early.body.cancellationsFinalized).toBe(0);
    expect((await a.get(`/invoices/recurring/${s4}`)).body.status).toBe('cancel_requested');
    const due = await process('2027-09-29T11:00:00.000Z');
    expect(due.body.cancellationsFinalized).toBe(1);
    expect((await a.get(`/invoices/recurring/${s4}`)).body).toMatchObject({ status: 'cancelled', nextRunDate: null });
    expect(await invoicesOf(c4)).toHaveLength(0);
    // A schedule without a next run (cancelled) stays as it is on a repeat.
    expect((await a.post(`/invoices/recurring/${s4}/cancel`, {})).body.status).toBe('cancelled');
  });

  it('the portal cancels idempotently with the spec’s response', async () => {
    const c5 = await newClient('Portal.Buyer@example.com');
    const s5 = (await a.post('/invoices/recurring', schedule(c5, { startDate: '2028-01-31', name: 'Support' }))).body
      .id;
    const res = await portal('portalCancel', 'portal.buyer@example.com', s5, { reason: ` ${'y'.repeat(700)} ` });
    expect(res).toMatchObject({
      subscriptionId: s5,
      status: 'cancel_requested',
      alreadyCancelled: false,
      effectiveAt: '2028-01-31T00:00:00.000Z',
      cancellationReason: 'y'.repeat(500),
    });
    expect(res.message).toBeTypeOf('string');
    const again = await portal('portalCancel', 'portal.buyer@example.com', s5, {});
    expect(again).toMatchObject({
      alreadyCancelled: true,
      cancellationReason: 'y'.repeat(500),
      cancellationRequestedAt: res.cancellationRequestedAt,
    });
    const admin = (await a.get(`/invoices/recurring/${s5}`)).body;
    expect(admin.cancelledBy).toBe('portal:portal.buyer@example.com');
    const list = await portal('listPortalSubscriptions', 'portal.buyer@example.com');
    expect(list.subscriptions[0]).toMatchObject({
      id: s5,
      status: 'cancel_requested',
      nextChargeDate: null,
      effectiveAt: '2028-01-31T00:00:00.000Z',
      upcomingChargesCount: 0,
    });
  });

  it('autoFinalizeInvoices issues and autoSendInvoices e-mails the generated invoice, once', async () => {
    const c6 = await newClient('six@example.com');
    const s6 = (
      await a.post(
        '/invoices/recurring',
        schedule(c6, { startDate: '2028-03-31', autoFinalizeInvoices: true, autoSendInvoices: true }),
      )
    ).body.id;
    const gen = await a.post(`/invoices/recurring/${s6}/generate`);
    expect(gen.status, JSON.stringify(gen.body)).toBe(200);
    expect(gen.body.invoiceStatus).toBe('issued');
    const invoice = (await a.get(`/invoices/${gen.body.invoiceId}`)).body;
    expect(invoice.number).toMatch(/\d/);
    expect(invoice.servicePeriod).toEqual({ start: '2028-03-31', end: '2028-04-29' });
    expect(invoice.emails.map((e: { to: string[] }) => e.to)).toEqual([['six@example.com']]);
    expect(invoice.transactionId).toBeNull();
    expect(invoice.amountPaid).toBe(0);
    expect((await a.get(`/invoices/recurring/${s6}`)).body.nextRunDate).toBe('2028-04-30');
  });

  it('billing answers the same invoice for a repeated or concurrent idempotency key', async () => {
    const c7 = await newClient('seven@example.com');
    const bc = makeClient(billing.BillingServiceClient, `127.0.0.1:${mesh.ports.billing}`);
    try {
      const req = {
        organizationId: A.organizationId,
        testMode: false,
        id: '',
        bodyJson: JSON.stringify({ siteId: A.siteId, clientId: c7, currency: 'EUR', items: [item] }),
        actor: 'test',
        idempotencyKey: 'recurring:test:2027-01-01',
      };
      const create = () =>
        call(bc, bc.createInvoice, req, { deadlineMs: 20_000, target: 'billing' }).then(
          (r) => JSON.parse(r.json).id as string,
        );
      const ids = await Promise.all([create(), create(), create()]);
      expect(new Set(ids).size).toBe(1);
      expect(await create()).toBe(ids[0]);
      expect(await invoicesOf(c7)).toHaveLength(1);
    } finally {
      bc.close();
    }
  });

  it('the process route refuses organization keys and bad bodies', async () => {
    expect((await a.post('/system/recurring/process', {})).status).toBe(403);
    expect((await sys.post('/system/recurring/process', { limit: 0 })).status).toBe(400);
    expect((await sys.post('/system/recurring/process', { nope: 1 })).status).toBe(400);
  });
});
