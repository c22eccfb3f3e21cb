import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from 'nats';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { api, eventually, NATS_URL, startTestMesh, type TestMesh } from '../support/mesh';
import { consumerBacklogs } from '../support/mesh-checks';

const LEITWEG = '992-90009-96';
const NEW_LEITWEG = '991-12345-67';
const MAIN_FRONTEND = 'https://checkout.paymesh.test';

/** The Done-when layout: fiscal years from April, labelled by the year they end in, five digits. */
const FISCAL_LAYOUT = {
  prefix: 'INV',
  periodType: 'fiscal',
  fiscalYearStartMonth: 4,
  fiscalYearLabelMode: 'end_year',
  periodGranularity: 'year',
  periodSeparator: 'dash',
  sequenceDigits: 5,
  resetPolicy: 'fiscal_year',
} as const;

/** The label of today's fiscal year (April to March, named by its end year), organization time zone UTC. */
function fiscalLabelToday(): number {
  const now = new Date();
  return now.getUTCMonth() + 1 >= 4 ? now.getUTCFullYear() + 1 : now.getUTCFullYear();
}

/** A buyer in another member state than the seller (DE). */
const billingAddress = {
  name: 'Nora Buyer',
  email: 'nora@example.com',
  line1: 'Damrak 1',
  city: 'Amsterdam',
  postalCode: '1012',
  country: 'NL',
};

const item = (over: Record<string, unknown> = {}) => ({
  description: 'Consulting hour',
  quantity: 2,
  unitPrice: 11900,
  amountType: 'gross',
  itemType: 'service',
  ...over,
});

/**
 * Invoices end to end over the Admin API: legal numbering under parallel issuing, the lifecycle
 * (issue, snapshot correction, void with its credit note), refusals that write nothing, the ledger's
 * accrual entry, and invoices generated from paid transactions.
 */
describe('invoices over the Admin API', () => {
  let mesh: TestMesh;
  let A: BootstrapResult;
  let B: BootstrapResult;
  let clientId: string;
  const adm = (path: string) => `${mesh.adminBaseUrl}${path}`;
  const as = (token: string) => ({
    get: (p: string) => api('GET', adm(p), { token }),
    post: (p: string, body?: unknown) => api('POST', adm(p), { token, ...(body !== undefined ? { body } : {}) }),
    put: (p: string, body: unknown) => api('PUT', adm(p), { token, body }),
    del: (p: string) => api('DELETE', adm(p), { token }),
  });
  let a: ReturnType<typeof as>;
  const draftBody = (over: Record<string, unknown> = {}) => ({
    siteId: A.siteId,
    clientId,
    currency: 'EUR',
    items: [item()],
    ...over,
  });
  const invoiceTotal = async () => (await a.get('/invoices?limit=100')).body.total as number;

  beforeAll(async () => {
    mesh = await startTestMesh({ env: { MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND } });
    A = await mesh.bootstrap();
    B = await mesh.bootstrap();
    a = as(A.apiKey);
    expect((await a.put('/organizations/settings/tax', { homeCountry: 'DE' })).status).toBe(200);
    const settings = await a.put('/organizations/settings/invoicing', {
      companyName: 'Muster GmbH',
      invoiceNumberLayout: FISCAL_LAYOUT,
    });
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
    expect(settings.body.invoiceNumberLayout).toMatchObject(FISCAL_LAYOUT);
    const client = await a.post('/clients', {
      name: 'Stadt Musterhausen',
      email: 'rechnung@musterhausen.example',
      address: { street: 'Rathausplatz 1', city: 'Musterhausen', postalCode: '12345', country: 'DE' },
      taxInfo: {
        taxCountry: 'DE',
        peppolRoutingAddress: { schemeId: '0204', value: { plaintext: LEITWEG }, confirmedByBuyer: true },
      },
    });
    expect(client.status, JSON.stringify(client.body)).toBe(201);
    clientId = client.body.id as string;
    nc = await connect({ servers: NATS_URL });
  });
  afterAll(async () => {
    await nc?.close();
    await mesh?.dispose();
  });

  let nc: NatsConnection;

  /** A checkout and its transaction through the provider_a sandbox; `pay` confirms the payment and waits for status 1. */
  async function transaction(
    opts: {
      amount?: number;
      currency?: string;
      clientId?: string;
      pay?: boolean;
      org?: BootstrapResult;
      billing?: typeof billingAddress;
    } = {},
  ): Promise<string> {
    const org = opts.org ?? A;
    const provider = org.providers!.provider_a!;
    const c = await api('POST', adm(`/checkouts/${org.siteId}/create`), {
      token: org.apiKey,
      body: {
        amount: opts.amount ?? 12100,
        currency: opts.currency ?? 'EUR',
        externalReference: `order-${randomBytes(3).toString('hex')}`,
        returnUrl: 'https://shop.example/thanks',
        ...(opts.clientId ? { clientId: opts.clientId } : {}),
      },
    });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    const t = await api('POST', `${mesh.publicBaseUrl}/transactions/create`, {
      body: {
        sessionPublicId: c.body.sessionPublicId,
        providerId: provider.id,
        billingAddress: opts.billing ?? billingAddress,
      },
      headers: { origin: MAIN_FRONTEND },
    });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    const id = t.body.transactionId as string;
    if (opts.pay ?? true) {
      const record = await api('GET', adm(`/transactions/${id}`), { token: org.apiKey });
      const confirm = await fetch(
        `${mesh.sandboxUrls['sandbox-provider-a']}/v1/payment_intents/${record.body.providerPaymentId}/confirm`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${provider.secretKey}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({ payment_method: 'pm_card_visa' }).toString(),
        },
      );
      expect(((await confirm.json()) as { status: string }).status).toBe('succeeded');
      await eventually(
        async () => (await api('GET', adm(`/transactions/${id}`), { token: org.apiKey })).body.status === 1,
        20_000,
      );
    }
    return id;
  }

  /** Waits until billing's transaction-status consumer (automatic invoices among its work) has handled every event it was given. */
  const autoInvoicesDrained = () =>
    eventually(async () => {
      const c = (await consumerBacklogs(NATS_URL, mesh.namespace)).find((b) =>
        b.consumer.endsWith('_BILLING_TRANSACTION_STATUS'),
      );
      return c && c.numPending === 0 && c.numAckPending === 0;
    }, 20_000);
  const invoicesOfTransaction = async (transactionId: string) =>
    ((await a.get('/invoices?limit=100')).body.items as { sourceTransactionId: string | null }[]).filter(
      (i) => i.sourceTransactionId === transactionId,
    );

  it('issues 50 drafts in parallel with 50 distinct consecutive numbers of the fiscal year', async () => {
    // Drafts in small batches (the machine's PostgreSQL is shared); the issuing is what races.
    const drafts = [];
    for (let batch = 0; batch < 5; batch++) {
      drafts.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            a.post('/invoices', draftBody({ items: [item({ description: `Hour ${batch * 10 + i + 1}` })] })),
          ),
        )),
      );
    }
    for (const d of drafts) {
      expect(d.status, JSON.stringify(d.body)).toBe(201);
      expect(d.body).toMatchObject({
        status: 'draft',
        number: null,
        proformaNumber: expect.stringMatching(/^PROFORMA-/),
      });
    }
    const issued = await Promise.all(drafts.map((d) => a.post(`/invoices/${d.body.id}/issue`)));
    for (const r of issued) expect(r.status, JSON.stringify(r.body)).toBe(200);
    const numbers = issued.map((r) => r.body.number as string).sort();
    const label = fiscalLabelToday();
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => `INV-${label}-${String(i + 1).padStart(5, '0')}`));
    // Each issued invoice carries its number in its frozen snapshot, and the list shows them all.
    for (const r of issued)
      expect(r.body).toMatchObject({ status: 'issued', proformaNumber: null, snapshot: { number: r.body.number } });
    const listed = await a.get(`/invoices?status=issued&number=INV-${label}-*&limit=100`);
    expect(listed.body.total).toBe(50);
  });

  it('runs the lifecycle: issue, correct the Peppol address on the snapshot only, void with a credit note, keep issued ones', async () => {
    const draft = await a.post('/invoices', draftBody());
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const id = draft.body.id as string;
    const issued = await a.post(`/invoices/${id}/issue`);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    expect(issued.body.snapshot.buyer.peppolRoutingAddress).toEqual({ schemeId: '0204', value: LEITWEG });
    // Issuing again answers the same invoice.
    expect((await a.post(`/invoices/${id}/issue`)).body.number).toBe(issued.body.number);

    const clientBefore = (await a.get(`/clients/${clientId}`)).body;
    const corrected = await a.post(`/invoices/${id}/correct`, {
      reason: 'buyer sent a new Leitweg-ID',
      changes: { client: { peppolRoutingAddress: { schemeId: '0204', value: NEW_LEITWEG } } },
    });
    expect(corrected.status, JSON.stringify(corrected.body)).toBe(200);
    const after = (await a.get(`/invoices/${id}`)).body;
    expect(after.snapshot.buyer.peppolRoutingAddress).toEqual({ schemeId: '0204', value: NEW_LEITWEG });
    expect(after.number).toBe(issued.body.number);
    expect(after.corrections).toHaveLength(1);
    expect(after.corrections[0]).toMatchObject({ reason: 'buyer sent a new Leitweg-ID' });
    expect((await a.get(`/clients/${clientId}`)).body).toEqual(clientBefore);

    const deleted = await a.del(`/invoices/${id}`);
    expect(deleted.status).toBe(409);
    expect(deleted.body.error).toMatch(/void/);
    expect((await a.get(`/invoices/${id}`)).status).toBe(200);

    const voided = await a.post(`/invoices/${id}/void`, { reason: 'ordered twice' });
    expect(voided.status, JSON.stringify(voided.body)).toBe(200);
    expect(voided.body).toMatchObject({ status: 'void', amountDue: 0, voidReason: 'ordered twice' });
    expect(voided.body.creditNoteIds).toHaveLength(1);
    const notes = await a.get(`/credit-notes?invoiceId=${id}`);
    expect(notes.status).toBe(200);
    expect(notes.body.total).toBe(1);
    expect(notes.body.items[0]).toMatchObject({
      id: voided.body.creditNoteIds[0],
      invoiceId: id,
      invoiceNumber: issued.body.number,
      kind: 'void',
    });
    // The credit note states the reversed amounts as its own (positive) totals.
    expect(notes.body.items[0].totals).toEqual(issued.body.totals);
    expect((await a.get(`/credit-notes/${voided.body.creditNoteIds[0]}`)).body.number).toBe(notes.body.items[0].number);
    // Repeating the void answers the void invoice and writes no second credit note.
    expect((await a.post(`/invoices/${id}/void`)).body.creditNoteIds).toEqual(voided.body.creditNoteIds);
    expect((await a.get(`/credit-notes?invoiceId=${id}`)).body.total).toBe(1);

    // A draft is deleted, not voided.
    const other = await a.post('/invoices', draftBody());
    expect((await a.post(`/invoices/${other.body.id}/void`)).status).toBe(409);
    expect((await a.del(`/invoices/${other.body.id}`)).status).toBe(200);
    expect((await a.get(`/invoices/${other.body.id}`)).status).toBe(404);
  });

  it('refuses bad input with a 4xx naming the field and writes no invoice', async () => {
    const foreign = await as(B.apiKey).post('/clients', {
      name: 'Other org buyer',
      address: { street: 'Weg 2', city: 'Köln', postalCode: '50667', country: 'DE' },
    });
    expect(foreign.status).toBe(201);
    const before = await invoiceTotal();
    const unknownId = 'aaaaaaaaaaaaaaaaaaaaaaaa';
    for (const [body, status, field] of [
      [draftBody({ clientId: unknownId }), 404, /clientId/],
      [draftBody({ siteId: unknownId }), 404, /siteId/],
      [draftBody({ clientId: foreign.body.id }), 404, /clientId/],
      [draftBody({ items: [item({ quantity: -1 })] }), 400, /quantity/],
      [draftBody({ items: [item({ unitPrice: -100 })] }), 400, /unitPrice/],
      [draftBody({ items: Array.from({ length: 501 }, () => item()) }), 400, /items/],
    ] as const) {
      const res = await a.post('/invoices', body);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body.error).toMatch(field);
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
    expect(await invoiceTotal()).toBe(before);
    // Another organization sees none of A's invoices.
    const mine = (await a.get('/invoices?limit=1')).body.items[0].id;
    expect((await as(B.apiKey).get(`/invoices/${mine}`)).status).toBe(404);
  });

  it('gives the tax-record ledger an accrual sale for an issued invoice', async () => {
    const draft = await a.post('/invoices', draftBody());
    const issued = await a.post(`/invoices/${draft.body.id}/issue`);
    expect(issued.status).toBe(200);
    const entries = await eventually(async () => {
      const r = await a.get(`/invoices/${draft.body.id}/tax-records`);
      return r.status === 200 && r.body.total >= 1 ? r.body : undefined;
    }, 20_000);
    expect(entries.total).toBe(1);
    expect(entries.items[0]).toMatchObject({
      sourceKind: 'invoice',
      sourceId: draft.body.id,
      entryType: 'sale',
      recognitionMode: 'accrual',
      taxPointDate: issued.body.issueDate,
      currency: 'EUR',
      totals: { net: issued.body.totals.net, tax: issued.body.totals.tax, gross: issued.body.totals.gross },
      linkedInvoiceId: draft.body.id,
    });
  });
  it('creates the invoice of a transaction from its stored tax, once, and issues it with that tax', async () => {
    const txId = await transaction({ clientId });
    const stored = await a.get(`/transactions/${txId}/tax`);
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    expect(stored.body.status).toBe('computed');

    const created = await a.post(`/invoices/from-transaction/${txId}`, { paymentTermsDays: 14 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      status: 'draft',
      clientId,
      siteId: A.siteId,
      currency: 'EUR',
      transactionId: txId,
      sourceTransactionId: txId,
      paymentTermsDays: 14,
    });
    // The transaction's tax is reused as it was computed (NL buyer of the checkout), not recomputed for the client.
    expect(created.body.taxCalculation).toEqual(stored.body.tax);
    expect(created.body.totals.gross).toBe(12100);
    expect(created.body.items.map((i: { quantity: number; unitPrice: number }) => [i.quantity, i.unitPrice])).toEqual(
      stored.body.input.lines.map((l: { quantity: number; unitPrice: number }) => [l.quantity, l.unitPrice]),
    );
    const issued = await a.post(`/invoices/${created.body.id}/issue`);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    expect(issued.body.snapshot.taxCalculation).toEqual(stored.body.tax);
    expect(issued.body.snapshot.buyer.clientId).toBe(clientId);

    const again = await a.post(`/invoices/from-transaction/${txId}`, {});
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(new RegExp(`transactionId: .*already has invoice ${created.body.id}`));
    expect(await invoicesOfTransaction(txId)).toHaveLength(1);
  });

  it('takes the client from the body when the transaction has none, and refuses what it cannot invoice', async () => {
    const txId = await transaction({ pay: false });
    const before = await invoiceTotal();
    const noClient = await a.post(`/invoices/from-transaction/${txId}`);
    expect(noClient.status, JSON.stringify(noClient.body)).toBe(400);
    expect(noClient.body.error).toMatch(/clientId/);
    const unknown = await a.post(`/invoices/from-transaction/${'b'.repeat(24)}`, { clientId });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/transactionId/);
    const foreign = await as(B.apiKey).post(`/invoices/from-transaction/${txId}`, {});
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatch(/transactionId/);
    expect((await a.post(`/invoices/from-transaction/not-an-id`, { clientId })).status).toBe(400);
    expect((await a.post(`/invoices/from-transaction/${txId}`, { clientId: 'c'.repeat(24) })).status).toBe(404);
    expect(await invoiceTotal()).toBe(before);

    const created = await a.post(`/invoices/from-transaction/${txId}`, { clientId });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ clientId, sourceTransactionId: txId });
  });

  it('links a payment transaction of the same organization and currency', async () => {
    const draft = await a.post('/invoices', draftBody());
    const id = draft.body.id as string;
    const eur = await transaction({ pay: false });
    const usd = await transaction({ pay: false, currency: 'USD' });
    const foreign = await transaction({ pay: false, org: B });

    const mismatch = await a.put(`/invoices/${id}/transaction`, { transactionId: usd });
    expect(mismatch.status, JSON.stringify(mismatch.body)).toBe(409);
    expect(mismatch.body.error).toMatch(/transactionId: .*USD.*EUR/);
    const other = await a.put(`/invoices/${id}/transaction`, { transactionId: foreign });
    expect(other.status).toBe(404);
    expect(other.body.error).toMatch(/transactionId/);
    expect((await a.put(`/invoices/${id}/transaction`, { transactionId: 'nope' })).status).toBe(400);
    expect((await a.get(`/invoices/${id}`)).body.transactionId).toBeNull();

    const linked = await a.put(`/invoices/${id}/transaction`, { transactionId: eur });
    expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    expect(linked.body).toMatchObject({ transactionId: eur, sourceTransactionId: null, status: 'draft' });
    expect((await a.put(`/invoices/${id}/transaction`, { transactionId: eur })).body.updatedAt).toBe(
      linked.body.updatedAt,
    );
    expect((await a.get(`/invoices/${id}`)).body.transactionId).toBe(eur);
  });

  it('generates and issues the invoice of a completed transaction once when autoGenerateInvoice is on', async () => {
    // Events of the earlier payments are handled while the setting is still off.
    await autoInvoicesDrained();
    const off = await transaction({ clientId });
    await autoInvoicesDrained();
    expect(await invoicesOfTransaction(off)).toHaveLength(0);

    expect((await a.put('/organizations/settings/invoicing', { autoGenerateInvoice: true })).status).toBe(200);
    const txId = await transaction({ clientId });
    const invoice = await eventually(
      async () => (await invoicesOfTransaction(txId))[0] as Record<string, any> | undefined,
      20_000,
    );
    // Issued and paid by the transaction it was made for (whichever of the invoice and the
    // payment's event comes first).
    const full = await eventually(async () => {
      const r = (await a.get(`/invoices/${invoice.id}`)).body;
      return r.status === 'paid' ? r : undefined;
    }, 20_000);
    const stored = (await a.get(`/transactions/${txId}/tax`)).body;
    expect(full).toMatchObject({
      clientId,
      transactionId: txId,
      sourceTransactionId: txId,
      number: expect.stringMatching(/^INV-\d{4}-\d{5}$/),
    });
    expect(full).toMatchObject({
      amountPaid: full.totals.gross,
      amountDue: 0,
      payments: [{ transactionId: txId, amount: full.totals.gross }],
    });
    expect(full.snapshot.taxCalculation).toEqual(stored.tax);

    // Redeliveries of the completed event write no second invoice and draw no second number.
    const events = await readEvents('checkout.transaction.status_changed');
    const completed = events.find((e) => e.data.transactionId === txId && e.data.status === 1);
    expect(completed).toBeTruthy();
    for (let i = 0; i < 2; i++) {
      await nc.jetstream().publish(`${mesh.namespace}.${completed!.type}`, JSON.stringify(completed), {
        msgID: `${completed!.id}/${randomBytes(6).toString('hex')}`,
      });
    }
    await autoInvoicesDrained();
    const after = await invoicesOfTransaction(txId);
    expect(after).toHaveLength(1);
    const again = (await a.get(`/invoices/${invoice.id}`)).body;
    expect(again.number).toBe(full.number);
    expect(again).toMatchObject({ status: 'paid', amountPaid: full.amountPaid, payments: [{ transactionId: txId }] });
    expect(again.payments).toHaveLength(1);
  });

  it('issues the automatic invoice of a transaction without a client to the client of its billing e-mail, created once', async () => {
    expect((await a.put('/organizations/settings/invoicing', { autoGenerateInvoice: true })).status).toBe(200);
    const tag = randomBytes(4).toString('hex');
    const buyer = { ...billingAddress, name: 'Jan Koper', email: `jan.${tag}@example.com` };
    // Issued, and paid by the completed transaction it was made for.
    const issuedOf = (transactionId: string) =>
      eventually(async () => {
        const found = (await invoicesOfTransaction(transactionId))[0] as { id: string } | undefined;
        const full = found && (await a.get(`/invoices/${found.id}`)).body;
        return full?.status === 'paid' ? full : undefined;
      }, 20_000);
    const clientsOf = async (email: string) =>
      ((await a.get('/clients?limit=100')).body.items as any[]).filter(
        (c) => c.email?.toLowerCase() === email.toLowerCase(),
      );

    const first = await transaction({ billing: buyer });
    const invoice = await issuedOf(first);
    const created = await clientsOf(buyer.email);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({
      name: 'Jan Koper',
      email: buyer.email,
      address: { street: 'Damrak 1', city: 'Amsterdam', postalCode: '1012', country: 'NL' },
    });
    expect(invoice).toMatchObject({
      clientId: created[0].id,
      transactionId: first,
      sourceTransactionId: first,
      snapshot: { buyer: { name: 'Jan Koper', email: buyer.email } },
    });
    const history = (await a.get(`/clients/${created[0].id}/history`)).body.items;
    expect(history.map((h: any) => [h.action, h.actor])).toEqual([['create', `auto-invoice:${first}`]]);

    // The same buyer (the e-mail in other letter case) pays again: same client, no second one.
    const again = await transaction({
      billing: { ...buyer, name: 'J. Koper', email: ` JAN.${tag.toUpperCase()}@Example.COM` },
    });
    expect(await issuedOf(again)).toMatchObject({ clientId: created[0].id });
    expect(await clientsOf(buyer.email)).toHaveLength(1);

    // A client the merchant keeps for the e-mail is that buyer's client.
    const own = await a.post('/clients', { name: 'Koper Holding BV', email: `ops.${tag}@example.com` });
    expect(own.status).toBe(201);
    const third = await transaction({ billing: { ...buyer, email: `Ops.${tag}@example.com` } });
    expect(await issuedOf(third)).toMatchObject({
      clientId: own.body.id,
      snapshot: { buyer: { name: 'Koper Holding BV' } },
    });
    expect(await clientsOf(`ops.${tag}@example.com`)).toHaveLength(1);
  });

  /** Every event of a subject in the mesh's namespace, read from the start of its stream. */
  async function readEvents(subject: string): Promise<{ id: string; type: string; data: any }[]> {
    const jsm = await nc.jetstreamManager();
    const stream = `${mesh.namespace.toUpperCase()}_${subject.split('.')[0]!.toUpperCase()}`;
    const info = await jsm.streams.info(stream);
    const out = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const msg = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
      if (msg?.subject === `${mesh.namespace}.${subject}`)
        out.push(msg.json<{ id: string; type: string; data: any }>());
    }
    return out;
  }
});
