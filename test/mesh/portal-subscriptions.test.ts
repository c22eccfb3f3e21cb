import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newObjectId } from '../../libs/core/src/index';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { validateEInvoices } from '../support/einvoice-kit';
import { MailCatcherClient } from '../support/mail-catcher';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';

const run = promisify(execFile);
const SELLER_VAT = 'DE136695976';
const BUYER_VAT = 'DE812345673';

/**
 * A subscription as its buyer lives it, over the real Admin, system and portal APIs: a monthly
 * schedule from Jan 31 billed on Feb 28, Mar 31 and Apr 30 by the processor (test clock), one
 * invoice for two processors at once, sign-in by an e-mailed code, the generated invoice's PDF and
 * XRechnung, the next three charges with tax estimates, a future-cycle cancellation finalized only
 * when its cycle is due, and another buyer kept out.
 */
describe('portal subscriptions end to end (mesh)', () => {
  let mesh: TestMesh;
  let A: BootstrapResult;
  let catcher: MailCatcherClient;
  let dir: string;
  const adm = (p: string) => `${mesh.adminBaseUrl}${p}`;
  const pub = (p: string) => `${mesh.publicBaseUrl}${p}`;
  const admin = (method: string, p: string, body?: unknown) =>
    api(method, adm(p), { token: A.apiKey, ...(body !== undefined ? { body } : {}) });
  const portal = (method: string, p: string, opts: { token?: string; body?: unknown } = {}) =>
    api(method, pub(p), {
      ...(opts.token ? { token: opts.token } : {}),
      ...(opts.body !== undefined ? { body: opts.body } : {}),
    });
  const file = async (p: string, token: string) => {
    const res = await fetch(pub(p), { headers: { authorization: `Bearer ${token}` } });
    return {
      status: res.status,
      type: res.headers.get('content-type') ?? '',
      bytes: Buffer.from(await res.arrayBuffer()),
    };
  };
  const process = (now: string) =>
    api('POST', adm('/system/recurring/process'), { token: mesh.systemApiKey, body: { now } });
  /** The client's invoices with the cycle each bills (its service period starts on the cycle's date). */
  const invoicesOf = async (clientId: string) => {
    const items = (await admin('GET', `/invoices?clientId=${clientId}&limit=100`)).body.items as { id: string }[];
    return Promise.all(
      items.map(async ({ id }) => {
        const inv = (await admin('GET', `/invoices/${id}`)).body as {
          id: string;
          status: string;
          number: string;
          servicePeriod: { start: string; end: string };
        };
        return { ...inv, cycleDate: inv.servicePeriod.start };
      }),
    );
  };

  async function client(email: string): Promise<string> {
    const res = await admin('POST', '/clients', {
      name: 'Käufer AG',
      email,
      address: { street: 'Marktplatz 5', city: 'München', postalCode: '80331', country: 'DE' },
      taxInfo: {
        taxId: { plaintext: BUYER_VAT },
        taxIdType: 'vat',
        taxCountry: 'DE',
        peppolRoutingAddress: { schemeId: '9930', value: { plaintext: BUYER_VAT }, confirmedByBuyer: true },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  }
  const item = { description: 'Hosting plan', quantity: 1, unitPrice: 10000, amountType: 'net', itemType: 'service' };
  async function schedule(clientId: string, startDate: string, name: string): Promise<string> {
    const res = await admin('POST', '/invoices/recurring', {
      name,
      startDate,
      interval: 'month',
      autoFinalizeInvoices: true,
      template: { siteId: A.siteId, clientId, currency: 'EUR', items: [item], paymentTermsDays: 14 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  }

  const tenant = () => ({ organizationId: A.organizationId });
  async function otp(email: string): Promise<string> {
    const before = (await catcher.to(email)).length;
    const res = await portal('POST', '/portal/auth/request-otp', { body: { email, ...tenant() } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const messages = await eventually(async () => {
      const got = await catcher.to(email);
      return got.length > before ? got : undefined;
    }, 20_000);
    const m = /code is (\d{6})/.exec(messages[0]!.text);
    if (!m) throw new Error(`no code in: ${messages[0]!.text}`);
    return m[1]!;
  }
  async function signIn(email: string): Promise<string> {
    const code = await otp(email);
    const res = await portal('POST', '/portal/auth/verify-otp', { body: { email, code, ...tenant() } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.token as string;
  }

  const buyer = `sub-${newObjectId()}@example.test`;
  /** A buyer whose only portal-visible item is a subscription (no invoice yet). */
  const other = `other-${newObjectId()}@example.test`;
  let buyerClient: string;
  let sub: string;
  let otherSub: string;
  let token: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portal-subs-'));
    mesh = await startTestMesh({ env: { RECURRING_TEST_HOOKS: 'true', EMAIL_POLL_INTERVAL_MS: '100' } });
    const url = mesh.sandboxUrls['sandbox-mail'];
    if (!url) throw new Error('the mail catcher did not start with the mesh');
    catcher = new MailCatcherClient(url);
    A = await mesh.bootstrap();
    expect(
      (await admin('PUT', '/organizations/settings/tax', { homeCountry: 'DE', vatId: SELLER_VAT, viesEnabled: false }))
        .status,
    ).toBe(200);
    const settings = await admin('PUT', '/organizations/settings/invoicing', {
      companyName: 'Muster Software GmbH',
      companyAddress: { street: 'Hauptstraße 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
      companyEmail: 'billing@muster.example',
      companyPhone: '+49 30 1234567',
      bankIBAN: { plaintext: 'DE89370400440532013000' },
      eInvoice: {
        enabled: true,
        allowedFormats: ['xrechnung', 'peppol', 'zugferd'],
        strictValidation: true,
        sellerPeppolRoutingAddress: { schemeId: '9930', value: { plaintext: SELLER_VAT } },
      },
    });
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
    expect(
      (await admin('PUT', '/organizations/settings/portal', { enabled: true, magicLinksEnabled: true })).status,
    ).toBe(200);
    buyerClient = await client(buyer);
    sub = await schedule(buyerClient, '2027-01-31', 'Hosting');
    otherSub = await schedule(await client(other), '2031-01-31', 'Other hosting');
  });
  afterAll(async () => {
    await mesh?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('two processors at once on the due Jan 31 cycle make one invoice', async () => {
    const now = '2027-01-31T09:00:00.000Z';
    const [r1, r2] = await Promise.all([process(now), process(now)]);
    expect(r1.status, JSON.stringify(r1.body)).toBe(200);
    expect(r2.status, JSON.stringify(r2.body)).toBe(200);
    expect(r1.body.completed + r2.body.completed).toBe(1);
    const invoices = await invoicesOf(buyerClient);
    expect(invoices).toHaveLength(1);
    expect(invoices[0]).toMatchObject({ status: 'issued', servicePeriod: { start: '2027-01-31', end: '2027-02-27' } });
    expect((await admin('GET', `/invoices/recurring/${sub}`)).body).toMatchObject({
      nextRunDate: '2027-02-28',
      invoicesGenerated: 1,
    });
  });

  it('runs on Feb 28, Mar 31 and Apr 30, never the day before', async () => {
    for (const [dayBefore, day] of [
      ['2027-02-27', '2027-02-28'],
      ['2027-03-30', '2027-03-31'],
      ['2027-04-29', '2027-04-30'],
    ] as const) {
      const early = await process(`${dayBefore}T23:59:59.000Z`);
      expect(early.body, dayBefore).toMatchObject({ completed: 0, failed: 0 });
      const due = await process(`${day}T00:00:00.000Z`);
      expect(due.body, day).toMatchObject({ completed: 1, failed: 0 });
      expect((await admin('GET', `/invoices/recurring/${sub}`)).body.lastInvoiceId).toBeTypeOf('string');
    }
    const invoices = await invoicesOf(buyerClient);
    expect(invoices.map((i) => i.cycleDate).sort()).toEqual(['2027-01-31', '2027-02-28', '2027-03-31', '2027-04-30']);
    expect(invoices.every((i) => i.status === 'issued')).toBe(true);
    expect((await admin('GET', `/invoices/recurring/${sub}`)).body).toMatchObject({
      status: 'active',
      nextRunDate: '2027-05-31',
      invoicesGenerated: 4,
    });
  });

  it('the buyer signs in with the e-mailed code, sees the generated invoices, a PDF and an XRechnung', async () => {
    token = await signIn(buyer);
    const me = await portal('GET', '/portal/session', { token });
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body).toEqual({ email: buyer, hasSubscriptions: true });

    const generated = await invoicesOf(buyerClient);
    const docs = await portal('GET', '/portal/documents', { token });
    expect(docs.status, JSON.stringify(docs.body)).toBe(200);
    expect(docs.body).toMatchObject({ total: 4, page: 1, limit: 20 });
    expect(new Set(docs.body.items.map((d: { id: string }) => d.id))).toEqual(new Set(generated.map((i) => i.id)));
    const april = generated.find((i) => i.cycleDate === '2027-04-30')!;
    expect(docs.body.items.find((d: { id: string }) => d.id === april.id)).toMatchObject({
      type: 'invoice',
      status: 'issued',
      number: april.number,
      currency: 'EUR',
      total: 11900,
      pdfAvailable: true,
    });

    const pdf = await file(`/portal/documents/${april.id}/pdf`, token);
    expect(pdf.status, pdf.bytes.toString().slice(0, 300)).toBe(200);
    expect(pdf.type).toBe('application/pdf');
    expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-');

    const xml = await file(`/portal/documents/${april.id}/einvoice?format=xrechnung`, token);
    expect(xml.status, xml.bytes.toString()).toBe(200);
    expect(xml.bytes.toString()).toContain(april.number);
    const path = join(dir, 'subscription-xrechnung.xml');
    await writeFile(path, xml.bytes);
    const verdicts = await validateEInvoices('xrechnung-ubl', [path]);
    expect(verdicts.map((r) => r.valid)).toEqual([true]);
  });

  it('lists the subscription and its next three charges with tax estimates', async () => {
    const list = await portal('GET', '/portal/subscriptions', { token });
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body).toEqual({
      subscriptions: [
        {
          id: sub,
          name: 'Hosting',
          status: 'active',
          cadence: 'every 1 month',
          currency: 'EUR',
          nextChargeDate: '2027-05-31T00:00:00.000Z',
          effectiveAt: null,
          estimatedNextAmount: 11900,
          upcomingChargesCount: 3,
        },
      ],
      total: 1,
      page: 1,
      limit: 20,
    });
    const up = await portal('GET', `/portal/subscriptions/${sub}/upcoming?count=3`, { token });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    const charge = (cycle: number, scheduledDate: string, dueDate: string) => ({
      id: `${sub}-${cycle}`,
      cycle,
      scheduledDate,
      dueDate,
      currency: 'EUR',
      baseAmount: 10000,
      usageAmount: 0,
      taxEstimate: 1900,
      estimatedTotal: 11900,
      proformaAvailable: false,
      proformaPreviewId: '',
      proformaPreviewLabel: '',
    });
    expect(up.body).toEqual({
      subscriptionId: sub,
      name: 'Hosting',
      status: 'active',
      cadence: 'every 1 month',
      currency: 'EUR',
      nextChargeDate: '2027-05-31T00:00:00.000Z',
      effectiveAt: null,
      cancellationReason: null,
      cancellationRequestedAt: null,
      upcoming: [
        charge(4, '2027-05-31', '2027-06-14'),
        charge(5, '2027-06-30', '2027-07-14'),
        charge(6, '2027-07-31', '2027-08-14'),
      ],
    });
    // One bound for the gateway and the recurring service behind it (the Admin API's too): 1 to 12.
    const most = await portal('GET', `/portal/subscriptions/${sub}/upcoming?count=12`, { token });
    expect(most.status, JSON.stringify(most.body)).toBe(200);
    expect(most.body.upcoming).toHaveLength(12);
    for (const count of ['13', '24', '0', 'two']) {
      const refused = await portal('GET', `/portal/subscriptions/${sub}/upcoming?count=${count}`, { token });
      expect(refused.status, count).toBe(400);
      expect(refused.body, count).toEqual({ error: expect.stringContaining('count') });
      expect(refused.headers.get('x-request-id'), count).toBeTruthy();
      expect((await admin('GET', `/invoices/recurring/${sub}/upcoming?count=${count}`)).status, count).toBe(400);
    }
  });

  it('offers a pro forma PDF of the first upcoming charge once the organization enables previews, storing nothing', async () => {
    const preview = (upcomingId: string) =>
      file(`/portal/subscriptions/${sub}/upcoming/${upcomingId}/proforma/pdf`, token);
    // Off by default: nothing offered, the route answers 404.
    expect((await preview(`${sub}-4`)).status).toBe(404);
    const on = await admin('PUT', '/organizations/settings/portal', { proformaPreviewsEnabled: true });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body).toMatchObject({ enabled: true, magicLinksEnabled: true, proformaPreviewsEnabled: true });

    const label = `PROFORMA-${sub.slice(-8).toUpperCase()}-4`;
    const up = await portal('GET', `/portal/subscriptions/${sub}/upcoming?count=3`, { token });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(
      up.body.upcoming.map(
        (u: { proformaAvailable: boolean; proformaPreviewId: string; proformaPreviewLabel: string }) => [
          u.proformaAvailable,
          u.proformaPreviewId,
          u.proformaPreviewLabel,
        ],
      ),
    ).toEqual([
      [true, `${sub}-4`, `Pro forma ${label} for the charge of 2027-05-31`],
      [false, '', ''],
      [false, '', ''],
    ]);
    // The Admin API's projection has no preview route: it offers none.
    const adminUp = await admin('GET', `/invoices/recurring/${sub}/upcoming?count=3`);
    expect(adminUp.body.upcoming.map((u: { proformaAvailable: boolean }) => u.proformaAvailable)).toEqual([
      false,
      false,
      false,
    ]);

    const invoicesBefore = (await admin('GET', '/invoices?limit=100')).body.total as number;
    const pdf = await preview(`${sub}-4`);
    expect(pdf.status, pdf.bytes.toString().slice(0, 300)).toBe(200);
    expect(pdf.type).toBe('application/pdf');
    expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const path = join(dir, 'preview.pdf');
    await writeFile(path, pdf.bytes);
    const text = (await run('pdftotext', ['-layout', path, '-'])).stdout;
    for (const s of [
      'Pro forma invoice',
      label,
      'not a tax invoice',
      'Muster Software GmbH',
      'Käufer AG',
      'Hosting plan',
      '2027-05-31',
      '2027-06-14',
      '€119.00',
    ])
      expect(text, s).toContain(s);
    // Nothing became an invoice or a portal document.
    expect((await admin('GET', '/invoices?limit=100')).body.total).toBe(invoicesBefore);
    expect((await portal('GET', '/portal/documents', { token })).body.total).toBe(4);

    // Only the first upcoming charge has a preview; bad ids are refused.
    for (const other of [`${sub}-5`, `${sub}-3`, 'nope']) expect((await preview(other)).status, other).toBe(404);
    const long = await preview('x'.repeat(101));
    expect(long.status).toBeGreaterThanOrEqual(400);
    expect(long.status).toBeLessThan(500);
  });

  it('another buyer, signed in by a subscription alone, can neither see nor cancel this one (404)', async () => {
    // Their only portal-visible item is a subscription: a code and a magic link are still theirs.
    const otherToken = await signIn(other);
    expect((await portal('GET', '/portal/session', { token: otherToken })).body).toEqual({
      email: other,
      hasSubscriptions: true,
    });
    expect((await portal('GET', '/portal/documents', { token: otherToken })).body).toMatchObject({
      items: [],
      total: 0,
    });
    const made = await admin('POST', '/organizations/settings/portal/magic-links', { email: other });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const linkToken = (made.body.url as string).split('#token=')[1]!;
    const exchanged = await portal('POST', '/portal/auth/magic-link', { body: { token: linkToken } });
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    const replay = await portal('POST', '/portal/auth/magic-link', { body: { token: linkToken } });
    expect(replay.status).toBe(401);
    expect(replay.body.error).toBeTypeOf('string');

    const theirs = await portal('GET', '/portal/subscriptions', { token: otherToken });
    expect(theirs.body.subscriptions.map((s: { id: string }) => s.id)).toEqual([otherSub]);
    expect((await portal('GET', `/portal/subscriptions/${sub}/upcoming?count=3`, { token: otherToken })).status).toBe(
      404,
    );
    expect(
      (await portal('GET', `/portal/subscriptions/${sub}/upcoming/${sub}-4/proforma/pdf`, { token: otherToken }))
        .status,
    ).toBe(404);
    const cancel = await portal('POST', `/portal/subscriptions/${sub}/cancel`, {
      token: otherToken,
      body: { reason: 'not mine' },
    });
    expect(cancel.status).toBe(404);
    expect(cancel.body.error).toBeTypeOf('string');
    expect((await admin('GET', `/invoices/recurring/${sub}`)).body).toMatchObject({
      status: 'active',
      cancellationReason: null,
    });
    expect((await portal('GET', `/portal/subscriptions/${otherSub}/upcoming`, { token })).status).toBe(404);
  });

  let cancelled: Record<string, unknown>;
  it('cancels from the next cycle with a 600-character reason (kept as 500), and again answers the first values', async () => {
    const reason = `  ${'r'.repeat(600)}  `;
    const res = await portal('POST', `/portal/subscriptions/${sub}/cancel`, { token, body: { reason } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      'alreadyCancelled',
      'cancellationReason',
      'cancellationRequestedAt',
      'effectiveAt',
      'message',
      'status',
      'subscriptionId',
    ]);
    expect(res.body).toMatchObject({
      subscriptionId: sub,
      status: 'cancel_requested',
      alreadyCancelled: false,
      effectiveAt: '2027-05-31T00:00:00.000Z',
      cancellationReason: 'r'.repeat(500),
    });
    expect(res.body.message).toBeTypeOf('string');
    expect(Date.parse(res.body.cancellationRequestedAt)).not.toBeNaN();
    cancelled = res.body;

    const again = await portal('POST', `/portal/subscriptions/${sub}/cancel`, {
      token,
      body: { reason: 'changed my mind' },
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      subscriptionId: sub,
      status: 'cancel_requested',
      alreadyCancelled: true,
      effectiveAt: cancelled.effectiveAt,
      cancellationReason: cancelled.cancellationReason,
      cancellationRequestedAt: cancelled.cancellationRequestedAt,
    });

    const list = await portal('GET', '/portal/subscriptions', { token });
    expect(list.body.subscriptions).toEqual([
      expect.objectContaining({
        id: sub,
        status: 'cancel_requested',
        nextChargeDate: null,
        effectiveAt: '2027-05-31T00:00:00.000Z',
        upcomingChargesCount: 0,
        estimatedNextAmount: 0,
      }),
    ]);
    const up = await portal('GET', `/portal/subscriptions/${sub}/upcoming?count=3`, { token });
    expect(up.body).toMatchObject({
      status: 'cancel_requested',
      cancellationReason: 'r'.repeat(500),
      cancellationRequestedAt: cancelled.cancellationRequestedAt,
      upcoming: [],
    });
    // No charge is coming: no preview either.
    expect((await file(`/portal/subscriptions/${sub}/upcoming/${sub}-4/proforma/pdf`, token)).status).toBe(404);
    expect((await admin('GET', `/invoices/recurring/${sub}`)).body).toMatchObject({
      status: 'cancel_requested',
      effectiveFromCycle: 4,
      cancelledBy: `portal:${buyer}`,
    });
  });

  it('the processor finalizes the cancellation only once its cycle is due, and bills nothing for it', async () => {
    const early = await process('2027-05-30T23:59:59.000Z');
    expect(early.body).toMatchObject({ cancellationsFinalized: 0, completed: 0 });
    expect((await admin('GET', `/invoices/recurring/${sub}`)).body.status).toBe('cancel_requested');
    const due = await process('2027-05-31T00:00:00.000Z');
    expect(due.body).toMatchObject({ cancellationsFinalized: 1, completed: 0 });
    expect((await admin('GET', `/invoices/recurring/${sub}`)).body).toMatchObject({
      status: 'cancelled',
      nextRunDate: null,
      invoicesGenerated: 4,
    });
    expect(await invoicesOf(buyerClient)).toHaveLength(4);
    // Cancelled is no longer portal-visible; the buyer still has their invoices.
    expect((await portal('GET', '/portal/subscriptions', { token })).body).toMatchObject({
      subscriptions: [],
      total: 0,
    });
    expect((await portal('GET', '/portal/session', { token })).body).toEqual({ email: buyer, hasSubscriptions: false });
    expect((await portal('GET', `/portal/subscriptions/${sub}/upcoming`, { token })).status).toBe(404);
    expect((await portal('POST', `/portal/subscriptions/${sub}/cancel`, { token, body: {} })).status).toBe(404);
    expect((await portal('GET', '/portal/documents', { token })).body.total).toBe(4);
  });
});
