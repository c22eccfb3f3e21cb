import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from 'nats';
import { api, eventually, NATS_URL, startTestMesh, type TestMesh } from '../support/mesh';
import { calc } from '../../services/tax/test/fixtures';
import { consumerBacklogs } from '../support/mesh-checks';

type BootstrapResult = Awaited<ReturnType<TestMesh['bootstrap']>>;

const MAIN_FRONTEND = 'https://checkout.paymesh.test';
/** A buyer in another member state than the seller (DE): an intra-EU distance sale. */
const billing = {
  name: 'Nora Buyer',
  email: 'nora@example.com',
  line1: 'Damrak 1',
  city: 'Amsterdam',
  postalCode: '1012',
  country: 'NL',
};
const hex24 = () => randomBytes(12).toString('hex');
const today = () => new Date().toISOString().slice(0, 10);

/**
 * The tax-record ledger end to end: checkout's status events and billing's document events go over
 * NATS to the tax service, which keeps one immutable entry per event, answers the Admin routes and
 * rebuilds the ledger from what it consumed.
 */
describe('tax-record ledger', () => {
  let mesh: TestMesh;
  let nc: NatsConnection;
  let boot: BootstrapResult;
  let admin: string;
  let pub: string;
  let sandbox: string;
  let provider: { id: string; secretKey: string };
  /** The transaction paid through the provider sandbox, and its completed status event. */
  let paid: {
    transactionId: string;
    event: { id: string; type: string; version: number; occurredAt: string; data: any };
  };
  const invoiceId = hex24();

  const get = (path: string) => api('GET', `${admin}${path}`, { token: boot.apiKey });
  const records = async (query = '') => (await get(`/tax/records?limit=100${query}`)).body;

  /** Every event of a subject in the mesh's namespace, read from the start of its stream. */
  async function readEvents(
    subject: string,
  ): Promise<{ id: string; type: string; version: number; occurredAt: string; data: any }[]> {
    const jsm = await nc.jetstreamManager();
    const stream = `${mesh.namespace.toUpperCase()}_${subject.split('.')[0]!.toUpperCase()}`;
    const info = await jsm.streams.info(stream).catch(() => null);
    if (!info || info.state.messages === 0) return [];
    const out = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const msg = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
      if (msg?.subject === `${mesh.namespace}.${subject}`) out.push(msg.json<any>());
    }
    return out;
  }

  /** Publishes an envelope as a producer would; a fresh message id gets past JetStream's deduplication (a redelivery). */
  async function publish(envelope: {
    id: string;
    type: string;
    version: number;
    occurredAt: string;
    data: unknown;
  }): Promise<void> {
    await nc
      .jetstream()
      .publish(`${mesh.namespace}.${envelope.type}`, JSON.stringify(envelope), { msgID: `${envelope.id}/${hex24()}` });
  }

  const billingEvent = (type: string, data: Record<string, unknown>) => ({
    id: `test-${hex24()}`,
    type,
    version: 1,
    occurredAt: new Date().toISOString(),
    data,
  });

  /** Count and content hash of every entry of the organization, as the Admin API shows them. */
  async function fingerprint(): Promise<{ count: number; hash: string }> {
    const all = await records();
    const hash = createHash('sha256');
    for (const r of [...all.items].sort((a: any, b: any) => a.id.localeCompare(b.id)))
      hash.update(`${JSON.stringify(r)}\n`);
    return { count: all.total, hash: hash.digest('hex') };
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

  beforeAll(async () => {
    mesh = await startTestMesh({ env: { MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND } });
    admin = mesh.adminBaseUrl;
    pub = mesh.publicBaseUrl;
    sandbox = mesh.sandboxUrls['sandbox-provider-a']!;
    nc = await connect({ servers: NATS_URL });
    boot = await mesh.bootstrap();
    provider = boot.providers!.provider_a!;
    const settings = await api('PUT', `${admin}/organizations/settings/tax`, {
      token: boot.apiKey,
      body: { homeCountry: 'DE', ossEnabled: true },
    });
    expect(settings.status).toBe(200);
  });

  afterAll(async () => {
    await nc?.close();
    await mesh?.dispose();
  });

  it('answers 404 for the latest rebuild before any was started', async () => {
    const res = await get('/tax/records/rebuild');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatch(/no tax record rebuild/);
  });

  it("records a payment completed at the provider once, with the transaction's tax", async () => {
    const c = await api('POST', `${admin}/checkouts/${boot.siteId}/create`, {
      token: boot.apiKey,
      body: { amount: 12100, currency: 'EUR', externalReference: 'ledger-1', returnUrl: 'https://shop.example/thanks' },
    });
    expect(c.status).toBe(200);
    const t = await api('POST', `${pub}/transactions/create`, {
      body: { sessionPublicId: c.body.sessionPublicId, providerId: provider.id, billingAddress: billing },
      headers: { origin: MAIN_FRONTEND },
    });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    const transactionId = t.body.transactionId as string;
    const record = await get(`/transactions/${transactionId}`);
    expect(
      (
        await sandboxCall('POST', `/v1/payment_intents/${record.body.providerPaymentId}/confirm`, {
          payment_method: 'pm_card_visa',
        })
      ).body.status,
    ).toBe('succeeded');

    const event = await eventually(
      async () =>
        (await readEvents('checkout.transaction.status_changed')).find(
          (e) => e.data.transactionId === transactionId && e.data.status === 1,
        ),
      20_000,
    );
    expect(event.data).toMatchObject({ amount: 12100, currency: 'EUR' });
    // The event carries the tax computed when the transaction was created.
    const tax = event.data.tax;
    expect(tax, 'the completed status event carries the transaction tax').toBeTruthy();
    expect(tax.totalGross).toBe(12100);
    paid = { transactionId, event };

    const list = await eventually(async () => {
      const r = await get(`/transactions/${transactionId}/tax-records`);
      return r.status === 200 && r.body.total >= 1 ? r.body : undefined;
    }, 20_000);
    expect(list.total).toBe(1);
    const entry = list.items[0];
    expect(entry).toMatchObject({
      organizationId: boot.organizationId,
      testMode: false,
      siteId: boot.siteId,
      sourceKind: 'transaction',
      sourceId: transactionId,
      sourceEventId: event.id,
      entryType: 'sale',
      recognitionMode: 'cash',
      taxPointDate: event.data.changedAt.slice(0, 10),
      currency: 'EUR',
      totals: { net: tax.totalNet, tax: tax.totalTax, gross: tax.totalGross },
      buyer: { country: 'NL', type: 'consumer' },
      seller: { homeCountry: 'DE', ossEnabled: true },
      eur: { rate: 1, net: tax.totalNet, tax: tax.totalTax },
      correctsRecordId: null,
      linkedTransactionId: transactionId,
    });
    expect(entry.lines.map((l: any) => [l.taxCountry, l.decision, l.net, l.tax])).toEqual(
      tax.lines.map((l: any) => [l.taxCountry, l.decision, l.net, l.tax]),
    );
    expect((await get(`/tax/records/${entry.id}`)).body).toEqual(entry);
  });

  it('writes nothing new when the same event is delivered again', async () => {
    const before = await fingerprint();
    await publish(paid.event);
    await publish(paid.event);
    // Both redeliveries were consumed (and acknowledged) by the ledger's durable consumer.
    await eventually(async () => {
      const ledger = (await consumerBacklogs(NATS_URL, mesh.namespace)).find((c) =>
        c.consumer.endsWith('_TAX_TAX_LEDGER_TRANSACTIONS'),
      );
      return ledger && ledger.numPending === 0 && ledger.numAckPending === 0;
    }, 20_000);
    expect(await fingerprint()).toEqual(before);
    expect((await get(`/transactions/${paid.transactionId}/tax-records`)).body.total).toBe(1);
  });

  it('records an issued invoice as an accrual sale and its credit note as a linked credit', async () => {
    const issued = billingEvent('billing.invoice.issued', {
      organizationId: boot.organizationId,
      mode: 'live',
      siteId: boot.siteId,
      invoiceId,
      number: 'INV-2026-0001',
      issueDate: today(),
      currency: 'EUR',
      taxCalculation: calc(),
      transactionId: null,
      occurredAt: new Date().toISOString(),
    });
    await publish(issued);
    const sale = await eventually(
      async () => (await get(`/tax/records?linkedInvoiceId=${invoiceId}`)).body.items?.[0],
      20_000,
    );
    expect(sale).toMatchObject({
      sourceKind: 'invoice',
      sourceId: invoiceId,
      sourceEventId: issued.id,
      entryType: 'sale',
      recognitionMode: 'accrual',
      taxPointDate: today(),
      totals: { net: 8264, tax: 1736, gross: 10000 },
      linkedInvoiceId: invoiceId,
    });

    const creditNoteId = hex24();
    const half = calc({ totalNet: 4132, totalTax: 868, totalGross: 5000 });
    await publish(
      billingEvent('billing.credit_note.issued', {
        organizationId: boot.organizationId,
        mode: 'live',
        siteId: boot.siteId,
        creditNoteId,
        invoiceId,
        number: 'CN-2026-0001',
        issueDate: today(),
        currency: 'EUR',
        taxCalculation: half,
        transactionId: null,
        occurredAt: new Date().toISOString(),
      }),
    );
    const both = await eventually(async () => {
      const r = (await get(`/tax/records?linkedInvoiceId=${invoiceId}`)).body;
      return r.total === 2 ? r : undefined;
    }, 20_000);
    const credit = both.items.find((e: any) => e.entryType === 'credit');
    expect(credit).toMatchObject({
      sourceKind: 'credit_note',
      sourceId: creditNoteId,
      correctsRecordId: sale.id,
      totals: { net: -4132, tax: -868, gross: -5000 },
    });
    // The events name an invoice billing does not hold: its entries are found by the filter, and
    // the invoice's own route does not know it.
    expect((await get(`/invoices/${invoiceId}/tax-records`)).status).toBe(404);
    expect((await get(`/tax/records?linkedInvoiceId=${hex24()}`)).body).toMatchObject({ items: [], total: 0 });
  });

  it('filters records by tax point, kind, recognition mode and entry type', async () => {
    expect((await records('&sourceKind=invoice')).items.map((e: any) => e.entryType)).toEqual(['sale']);
    expect((await records('&sourceKind=credit_note')).total).toBe(1);
    expect((await records('&recognitionMode=cash')).items.map((e: any) => e.sourceId)).toEqual([paid.transactionId]);
    expect((await records('&recognitionMode=accrual')).total).toBe(2);
    expect((await records('&entryType=credit')).total).toBe(1);
    expect((await records(`&sourceId=${invoiceId}`)).total).toBe(1);
    expect((await records(`&startDate=${today()}&endDate=${today()}`)).total).toBe(3);
    expect((await records('&endDate=2021-12-31')).total).toBe(0);
    const page = await get('/tax/records?limit=1&page=2');
    expect(page.body).toMatchObject({ total: 3, page: 2, limit: 1 });
    expect(page.body.items).toHaveLength(1);
  });

  it('reflects cross-border sales in the OSS threshold status, counting other currencies apart', async () => {
    const status = (await get('/organizations/settings/tax/oss-threshold-status')).body;
    const all = (await records()).items as any[];
    const expected = all
      .flatMap((e) =>
        e.lines
          .filter((l: any) => l.decision === 'oss_destination' || l.decision === 'below_threshold_origin')
          .map((l: any) => l.net),
      )
      .reduce((a, b) => a + b, 0);
    // The NL sale of the payment, the NL invoice and half of it credited.
    expect(expected).toBeGreaterThan(8264 - 4132);
    expect(status).toMatchObject({
      year: new Date().getUTCFullYear(),
      currency: 'EUR',
      currentTotal: expected,
      unconvertedEntries: 0,
    });

    await publish(
      billingEvent('billing.invoice.issued', {
        organizationId: boot.organizationId,
        mode: 'live',
        siteId: boot.siteId,
        invoiceId: hex24(),
        number: 'INV-USD-1',
        issueDate: today(),
        currency: 'USD',
        taxCalculation: calc({ currency: 'USD' }),
        transactionId: null,
        occurredAt: new Date().toISOString(),
      }),
    );
    const after = await eventually(async () => {
      const s = (await get('/organizations/settings/tax/oss-threshold-status')).body;
      return s.unconvertedEntries === 1 ? s : undefined;
    }, 20_000);
    expect(after.currentTotal).toBe(expected);
  });

  it('rebuilds the ledger without changing it', async () => {
    const before = await fingerprint();
    const started = await api('POST', `${admin}/tax/records/rebuild`, { token: boot.apiKey });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ organizationId: boot.organizationId, testMode: false });
    expect(['queued', 'running', 'completed']).toContain(started.body.status);
    const done = await eventually(async () => {
      const r = await get(`/tax/records/rebuild/${started.body.id}`);
      return r.body.status === 'completed' ? r.body : undefined;
    }, 30_000);
    expect(done.progress).toMatchObject({ created: 0, mismatched: 0, failed: 0, pending: 0, existing: before.count });
    expect(done.progress.processed).toBe(done.progress.sourceEvents);
    expect(done.finishedAt).toEqual(expect.any(String));
    expect((await get('/tax/records/rebuild')).body.id).toBe(started.body.id);
    expect(await fingerprint()).toEqual(before);
  });

  it('rejects bad input with 400 and unknown ids with 404, changing nothing', async () => {
    const before = await fingerprint();
    for (const [path, message] of [
      ['/tax/records?startDate=2026-13-01', /startDate/],
      ['/tax/records?startDate=2026-02-30', /startDate/],
      ['/tax/records?endDate=yesterday', /endDate/],
      [`/tax/records?startDate=${today()}&endDate=2021-01-01`, /startDate/],
      ['/tax/records?limit=101', /limit/],
      ['/tax/records?limit=0', /limit/],
      ['/tax/records?sourceKind=refund', /sourceKind/],
      ['/tax/records?recognitionMode=invoice', /recognitionMode/],
      ['/tax/records?sourceId=tx-1', /sourceId/],
      ['/tax/records?linkedInvoiceId=inv-1', /linkedInvoiceId/],
      ['/tax/records/not-an-id', /id/],
      ['/tax/records/rebuild/123', /jobId/],
      ['/transactions/xyz/tax-records', /id/],
      ['/invoices/xyz/tax-records', /id/],
      [`/transactions/${paid.transactionId}/tax-records?limit=101`, /limit/],
    ] as const) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      expect(res.body.error, path).toMatch(message);
      expect(res.headers.get('x-request-id'), path).toBeTruthy();
    }
    for (const path of [
      `/tax/records/${hex24()}`,
      `/tax/records/rebuild/${hex24()}`,
      `/transactions/${hex24()}/tax-records`,
      `/invoices/${hex24()}/tax-records`,
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.body.error, path).toEqual(expect.any(String));
    }
    // Another organization sees none of these entries.
    const other = await mesh.bootstrap();
    const entryId = (await records()).items[0].id;
    expect((await api('GET', `${admin}/tax/records/${entryId}`, { token: other.apiKey })).status).toBe(404);
    expect((await api('GET', `${admin}/tax/records`, { token: other.apiKey })).body.total).toBe(0);
    expect(
      (await api('GET', `${admin}/transactions/${paid.transactionId}/tax-records`, { token: other.apiKey })).status,
    ).toBe(404);
    expect(await fingerprint()).toEqual(before);
  });
});
