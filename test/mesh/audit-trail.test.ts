import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../deploy/local/supervisor.mjs';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { databaseName } from '../../libs/runtime/src/services';
import { api, eventually, PG_URL, startTestMesh, type TestMesh } from '../support/mesh';

const run = promisify(execFile);
const MAIN_FRONTEND = 'https://checkout.paymesh.test';
const billingAddress = {
  name: 'Erika Buyer',
  email: 'erika@example.com',
  line1: 'Hauptstr. 1',
  city: 'Berlin',
  postalCode: '10115',
  country: 'DE',
};

interface AuditEvent {
  id: string;
  at: string;
  requestId: string;
  actor: { type: string; id: string; name?: string };
  initiator?: { type: string; id: string; name?: string };
  operation: string;
  action: 'create' | 'update' | 'delete';
  resourceType: string;
  resourceId: string;
  changes: Array<{ path: string; before?: unknown; after?: unknown }>;
}

/**
 * The issue's "Done when": after a walk-through (pay, invoice, refund, correct, void) the audit
 * trail shows each step with its actor and request ID, the integrity check of the issued documents
 * passes and, once one stored snapshot is altered by hand in PostgreSQL, fails naming it (online
 * and with the offline verifier); documents within retention keep what they depend on.
 */
describe('audit trail, tamper-evident documents and retention', () => {
  let mesh: TestMesh;
  let boot: BootstrapResult;
  let provider: { id: string; secretKey: string };
  let sandbox: string;
  let dir: string;
  let n = 0;
  /** A fresh, recognizable request ID per step. */
  const rid = (step: string) => `audit-${step}-${Date.now().toString(36)}-${++n}`;

  const admin = (method: string, path: string, requestId: string, body?: unknown) =>
    api(method, `${mesh.adminBaseUrl}${path}`, {
      token: boot.apiKey,
      headers: { 'x-request-id': requestId },
      ...(body !== undefined ? { body } : {}),
    });

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

  /** Every audit event matching the query, walking the cursor pages. */
  async function auditEvents(query = '', pageSize = 100): Promise<AuditEvent[]> {
    const out: AuditEvent[] = [];
    let cursor: string | null = null;
    do {
      const qs = `limit=${pageSize}${query ? `&${query}` : ''}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await admin('GET', `/audit-events?${qs}`, rid('list'));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      out.push(...(res.body.items as AuditEvent[]));
      cursor = res.body.nextCursor as string | null;
    } while (cursor);
    return out;
  }

  /** Waits for an audit event of the request (projection is asynchronous) and answers them all. */
  const eventsOf = (requestId: string, pred: (e: AuditEvent) => boolean = () => true) =>
    eventually(async () => {
      const all = (await auditEvents()).filter((e) => e.requestId === requestId);
      return all.some(pred) ? all : undefined;
    }, 20_000);

  beforeAll(async () => {
    mesh = await startTestMesh({ env: { MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND } });
    sandbox = mesh.sandboxUrls['sandbox-provider-a']!;
    boot = await mesh.bootstrap();
    provider = boot.providers!.provider_a!;
    dir = await mkdtemp(join(tmpdir(), 'paymesh-integrity-'));
    expect((await admin('PUT', '/organizations/settings/tax', rid('tax'), { homeCountry: 'DE' })).status).toBe(200);
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    await mesh?.dispose();
  });

  it('records every step of pay, invoice, refund, correct and void with its actor and request ID; the chain passes, then names the altered snapshot', async () => {
    // Invoice: a client, a draft, issued.
    const clientRid = rid('client');
    const client = await admin('POST', '/clients', clientRid, {
      name: 'Erika Buyer',
      email: 'erika@example.com',
      taxInfo: { taxCountry: 'DE', taxId: { plaintext: 'DE136695976' }, taxIdType: 'vat' },
      address: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
    });
    expect(client.status, JSON.stringify(client.body)).toBe(201);
    const draftRid = rid('draft');
    const draft = await admin('POST', '/invoices', draftRid, {
      siteId: boot.siteId,
      clientId: client.body.id,
      currency: 'EUR',
      items: [{ description: 'Consulting', quantity: 1, unitPrice: 11900, amountType: 'gross', itemType: 'service' }],
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const invoiceId = draft.body.id as string;
    const issueRid = rid('issue');
    const issued = await admin('POST', `/invoices/${invoiceId}/issue`, issueRid);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);

    // Pay: a payment link, the buyer's transaction on the Main Backend, paid on the provider's side.
    const link = await admin('POST', `/invoices/${invoiceId}/payment-checkout`, rid('link'), {});
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    const payRid = rid('pay');
    const tx = await api('POST', `${mesh.publicBaseUrl}/transactions/create`, {
      body: { sessionPublicId: link.body.sessionPublicId, providerId: provider.id, billingAddress },
      headers: { origin: MAIN_FRONTEND, 'x-request-id': payRid },
    });
    expect(tx.status, JSON.stringify(tx.body)).toBe(200);
    const transactionId = tx.body.transactionId as string;
    const pi = (await admin('GET', `/transactions/${transactionId}`, rid('read'))).body.providerPaymentId as string;
    expect(
      (await sandboxCall('POST', `/v1/payment_intents/${pi}/confirm`, { payment_method: 'pm_card_visa' })).status,
    ).toBe(200);
    await eventually(
      async () => (await admin('GET', `/invoices/${invoiceId}`, rid('read'))).body.status === 'paid',
      20_000,
    );

    // Refund at the provider: its webhook reaches checkout, billing issues a refund credit note.
    expect((await sandboxCall('POST', '/v1/refunds', { payment_intent: pi, amount: '1900' })).status).toBe(200);
    const refundNote = await eventually(async () => {
      const notes = (await admin('GET', `/credit-notes?invoiceId=${invoiceId}&limit=100`, rid('read'))).body.items;
      return (notes as any[]).find((c) => c.kind === 'refund');
    }, 20_000);

    // Correct the issued snapshot's buyer, then void the invoice.
    const correctRid = rid('correct');
    const corrected = await admin('POST', `/invoices/${invoiceId}/correct`, correctRid, {
      reason: 'buyer renamed',
      changes: { client: { name: 'Erika Buyer-Muster' } },
    });
    expect(corrected.status, JSON.stringify(corrected.body)).toBe(200);
    const voidRid = rid('void');
    const voided = await admin('POST', `/invoices/${invoiceId}/void`, voidRid, { reason: 'cancelled order' });
    expect(voided.status, JSON.stringify(voided.body)).toBe(200);

    // Each step in the audit trail, with the API key (id and name) or the buyer, provider or
    // automatic process that did it, and the request ID it was done under.
    const [created] = await eventsOf(clientRid, (e) => e.resourceType === 'client');
    expect(created).toMatchObject({
      operation: 'createClient',
      action: 'create',
      resourceType: 'client',
      resourceId: client.body.id,
      actor: { type: 'api_key' },
    });
    const apiKey = created!.actor;
    expect(apiKey.name).toEqual(expect.any(String));
    // Encrypted values never appear: the sealed tax ID is masked.
    expect(JSON.stringify(created!.changes)).not.toContain('DE136695976');

    expect(await eventsOf(draftRid, (e) => e.resourceType === 'invoice')).toContainEqual(
      expect.objectContaining({ operation: 'createInvoice', action: 'create', resourceId: invoiceId, actor: apiKey }),
    );
    const issue = (await eventsOf(issueRid, (e) => e.resourceType === 'invoice')).find(
      (e) => e.resourceId === invoiceId,
    )!;
    expect(issue).toMatchObject({ operation: 'issueInvoice', action: 'update', actor: apiKey });
    expect(issue.changes).toContainEqual({ path: 'status', before: 'draft', after: 'issued' });

    const pay = await eventsOf(payRid, (e) => e.resourceType === 'transaction');
    expect(pay).toContainEqual(
      expect.objectContaining({
        resourceType: 'transaction',
        resourceId: transactionId,
        action: 'create',
        actor: { type: 'buyer', id: `checkout:${link.body.sessionPublicId}` },
        operation: 'createTransaction',
      }),
    );
    const transactionTrail = await eventually(async () => {
      const all = await auditEvents(`resource=transaction&id=${transactionId}`);
      return all.some((e) => e.changes.some((c) => c.path === 'status' && c.after === 1)) ? all : undefined;
    }, 20_000);
    const paid = transactionTrail.find((e) => e.changes.some((c) => c.path === 'status' && c.after === 1))!;
    // The provider's webhook (verified by payments-webhooks) moved it, through checkout's consumer.
    expect(paid.actor).toEqual({ type: 'process', id: 'checkout/payment-status' });
    expect(paid.initiator?.type).toBe('provider');
    expect(paid.initiator?.id).toContain(provider.id);

    // Billing recorded the payment on the invoice as an automatic process, caused by the provider.
    const invoiceTrail = await auditEvents(`resource=invoice&id=${invoiceId}`);
    const recorded = invoiceTrail.find((e) => e.changes.some((c) => c.path === 'status' && c.after === 'paid'))!;
    expect(recorded.actor.type).toBe('process');
    expect(recorded.actor.id).toMatch(/^billing\//);
    expect(recorded.initiator?.type).toBe('provider');

    const refundTrail = await eventually(async () => {
      const all = await auditEvents(`resource=credit_note&id=${refundNote.id}`);
      return all.length > 0 ? all : undefined;
    }, 20_000);
    expect(refundTrail[0]).toMatchObject({ action: 'create', actor: { type: 'process' } });

    const correct = (await eventsOf(correctRid)).find((e) => e.resourceId === invoiceId)!;
    expect(correct).toMatchObject({ operation: 'correctInvoice', action: 'update', actor: apiKey });
    expect(correct.changes).toContainEqual({
      path: 'snapshot.buyer.name',
      before: 'Erika Buyer',
      after: 'Erika Buyer-Muster',
    });
    const voiding = await eventsOf(voidRid, (e) => e.resourceType === 'credit_note');
    expect(voiding).toContainEqual(
      expect.objectContaining({
        operation: 'voidInvoice',
        resourceType: 'invoice',
        resourceId: invoiceId,
        actor: apiKey,
      }),
    );
    expect(voiding.find((e) => e.resourceId === invoiceId)!.changes).toContainEqual({
      path: 'status',
      before: expect.any(String),
      after: 'void',
    });
    expect(voiding).toContainEqual(
      expect.objectContaining({ operation: 'voidInvoice', resourceType: 'credit_note', action: 'create' }),
    );

    // Filters: by actor, by operation, by date range; small pages walk to the same list.
    const byKey = await auditEvents(`actor=${encodeURIComponent(`api_key:${apiKey.id}`)}`);
    expect(byKey.length).toBeGreaterThan(0);
    expect(byKey.every((e) => e.actor.type === 'api_key' && e.actor.id === apiKey.id)).toBe(true);
    expect((await auditEvents('operation=voidInvoice')).map((e) => e.requestId)).toEqual(
      expect.arrayContaining([voidRid]),
    );
    expect(await auditEvents('startDate=2000-01-01&endDate=2000-12-31')).toEqual([]);
    const all = await auditEvents();
    expect((await auditEvents('', 3)).map((e) => e.id)).toEqual(all.map((e) => e.id));

    // Integrity: the chains of invoices (issue, correction) and credit notes (refund, void) pass.
    const ok = await admin('GET', '/documents/integrity', rid('integrity'));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, firstBroken: null });
    expect(ok.body.entries).toBeGreaterThanOrEqual(4);
    expect(ok.body.documents).toBeGreaterThanOrEqual(3);
    const intactFile = join(dir, 'intact.json');
    const exported = await admin('GET', '/documents/integrity/export', rid('export'));
    expect(exported.status).toBe(200);
    await writeFile(intactFile, JSON.stringify(exported.body));
    const verifier = join(ROOT, 'services/billing/dist/cli/verify-integrity.js');
    const intact = await run(process.execPath, [verifier, intactFile]);
    expect(intact.stdout).toMatch(/^intact: /);

    // Someone alters the issued snapshot in the store by hand: the check names that invoice.
    const pg = new Client({ connectionString: PG_URL });
    await pg.connect();
    try {
      const schema = databaseName(mesh.namespace, 'billing');
      const res = await pg.query(
        `UPDATE "${schema}"."invoices" SET doc = jsonb_set(doc, '{snapshot,totals,gross}', '1') WHERE id = $1`,
        [invoiceId],
      );
      expect(res.rowCount).toBe(1);
    } finally {
      await pg.end();
    }
    const broken = await admin('GET', '/documents/integrity', rid('integrity'));
    expect(broken.status).toBe(200);
    expect(broken.body.ok).toBe(false);
    expect(broken.body.firstBroken).toMatchObject({
      series: 'invoice',
      documentId: invoiceId,
      number: issued.body.number,
      reason: 'document_altered',
    });
    const brokenFile = join(dir, 'broken.json');
    await writeFile(
      brokenFile,
      JSON.stringify((await admin('GET', '/documents/integrity/export', rid('export'))).body),
    );
    const failed = await run(process.execPath, [verifier, brokenFile]).then(
      () => {
        throw new Error('the verifier passed an altered export');
      },
      (err: { code: number; stdout: string }) => err,
    );
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain(invoiceId);
    expect(failed.stdout).toContain('document_altered');
  });

  it('keeps what retained documents depend on, and the audit trail of deleted resources', async () => {
    // A client with an issued invoice is part of the books: its deletion is refused, nothing changes.
    const client = await admin('POST', '/clients', rid('client'), {
      name: 'Kept GmbH',
      email: 'kept@example.com',
      address: { street: 'Weg 2', city: 'Köln', postalCode: '50667', country: 'DE' },
    });
    expect(client.status).toBe(201);
    const draft = await admin('POST', '/invoices', rid('draft'), {
      siteId: boot.siteId,
      clientId: client.body.id,
      currency: 'EUR',
      items: [{ description: 'Support', quantity: 1, unitPrice: 5000, amountType: 'gross', itemType: 'service' }],
    });
    expect((await admin('POST', `/invoices/${draft.body.id}/issue`, rid('issue'))).status).toBe(200);
    const refusedRid = rid('delete');
    const refused = await admin('DELETE', `/clients/${client.body.id}`, refusedRid);
    expect(refused.status).toBe(409);
    expect(refused.headers.get('x-request-id')).toBe(refusedRid);
    expect(refused.body.error).toContain('§ 147 AO');
    expect((await admin('GET', `/clients/${client.body.id}`, rid('read'))).status).toBe(200);
    // An issued invoice cannot be deleted either.
    expect((await admin('DELETE', `/invoices/${draft.body.id}`, rid('delete'))).status).toBe(409);
    // Retention can be made longer, never shorter than the law's.
    const shorter = await admin('PUT', '/organizations/settings/invoicing', rid('settings'), {
      retention: { voucherYears: 5 },
    });
    expect(shorter.status).toBe(400);
    expect(shorter.body.error).toContain('voucherYears');
    const longer = await admin('PUT', '/organizations/settings/invoicing', rid('settings'), {
      retention: { voucherYears: 12 },
    });
    expect(longer.status, JSON.stringify(longer.body)).toBe(200);
    expect(longer.body.retention).toEqual({ voucherYears: 12, recordYears: 10 });

    // A client without documents is deleted; its audit trail stays, deletion included.
    const gone = await admin('POST', '/clients', rid('client'), { name: 'Gone Ltd', email: 'gone@example.com' });
    const deleteRid = rid('delete');
    expect((await admin('DELETE', `/clients/${gone.body.id}`, deleteRid)).status).toBe(204);
    const trail = await eventually(async () => {
      const events = await auditEvents(`resource=client&id=${gone.body.id}`);
      return events.some((e) => e.action === 'delete') ? events : undefined;
    }, 20_000);
    expect(trail.map((e) => e.action)).toEqual(['delete', 'create']);
    expect(trail[0]).toMatchObject({ requestId: deleteRid, operation: 'deleteClient' });
    expect(trail[0]!.changes).toContainEqual(expect.objectContaining({ path: 'name', before: 'Gone Ltd' }));

    // The trail is append-only: no route changes or removes it.
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST'])
      expect((await admin(method, '/audit-events', rid('write'), method === 'DELETE' ? undefined : {})).status).toBe(
        404,
      );
  });
});
