import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newObjectId, type Clock } from '@paymesh/core';
import type { DroppableStore } from '@paymesh/store';
import { invoiceIssued, creditNoteIssued, invoiceVoided, Subjects } from '@paymesh/contracts';
import type { OrgKey } from '../src/app/deps';
import type { InvoiceDeps } from '../src/app/invoice-deps';
import type { InvoiceDoc } from '../src/domain/invoice';
import { deleteInvoice } from '../src/app/draft-invoice';
import { issueInvoice } from '../src/app/issue-invoice';
import {
  correctInvoice,
  createInvoice,
  listCreditNotes,
  listInvoices,
  updateInvoicingSettings,
  updateSiteInvoicingSettings,
  voidInvoice,
} from './wire';
import { billingStore, buyers, dropStore, invoiceDeps, newBuyer } from './kit';
import { fakeCalculation } from './tax-fixture';

// Clients are another use case's work: the buyer lookup reads the kit's table.
vi.mock('../src/app/client-port', () => import('./kit').then((k) => k.clientPort));

describe('invoices on PostgreSQL', () => {
  let store: DroppableStore;
  let deps: InvoiceDeps;
  let now = new Date('2026-06-15T10:00:00Z');
  const clock: Clock = { now: () => now } as Clock;
  const sites = new Set<string>();
  const taxDates: string[] = [];

  const newOrg = (): OrgKey => ({ organizationId: newObjectId(), mode: 'live' });
  const newSite = () => {
    const id = newObjectId();
    sites.add(id);
    return id;
  };
  const draftBody = (siteId: string, clientId: string, over: object = {}) =>
    JSON.stringify({
      siteId,
      clientId,
      currency: 'EUR',
      items: [{ description: 'Consulting', quantity: 2, unitPrice: 11900, amountType: 'gross', itemType: 'service' }],
      ...over,
    });

  beforeAll(async () => {
    store = await billingStore('billing_inv_test');
    deps = invoiceDeps(store, clock, {
      tax: {
        settings: async () => ({ homeCountry: 'DE', vatId: 'DE123456789', viesEnabled: false }),
        calculate: async (req) => {
          taxDates.push(req.date ?? '');
          return fakeCalculation(req);
        },
      },
      checkout: {
        siteExists: async (_k, id) => sites.has(id),
        siteBranding: async (_k, id) => (sites.has(id) ? { name: 'Shop', primaryColor: null } : null),
      },
    });
  });
  afterAll(() => dropStore(store));

  it('issues 100 drafts in parallel with 100 distinct consecutive numbers, no gap', async () => {
    const k = newOrg();
    const siteId = newSite();
    const clientId = newBuyer();
    const drafts = await Promise.all(
      Array.from({ length: 100 }, () => createInvoice(deps, k, draftBody(siteId, clientId))),
    );
    const issued = await Promise.all(drafts.map((d) => issueInvoice(deps, k, d.id)));
    const numbers = issued.map((i) => i.number!).sort();
    expect(new Set(numbers).size).toBe(100);
    expect(numbers[0]).toBe('INV-2026-00001');
    expect(numbers[99]).toBe('INV-2026-00100');
    expect(numbers).toEqual(Array.from({ length: 100 }, (_, i) => `INV-2026-${String(i + 1).padStart(5, '0')}`));
    // Issuing again answers the same number and draws none.
    expect((await issueInvoice(deps, k, drafts[0]!.id)).number).toBe(issued[0]!.number);
    const next = await issueInvoice(deps, k, (await createInvoice(deps, k, draftBody(siteId, clientId))).id);
    expect(next.number).toBe('INV-2026-00101');
    // One issued event per invoice, carrying the number and the frozen tax.
    const events = (await store.outbox.pending(1000)).filter((e) => e.subject === Subjects.invoiceIssued);
    const mine = events
      .map((e) => invoiceIssued.parse((e.payload as { data: unknown }).data))
      .filter((d) => d.organizationId === k.organizationId);
    expect(mine).toHaveLength(101);
    expect(mine.find((d) => d.invoiceId === issued[5]!.id)).toMatchObject({
      number: issued[5]!.number,
      issueDate: '2026-06-15',
      siteId,
      currency: 'EUR',
    });
  });

  it('numbers in the organization time zone with the site prefix, and voids with one credit note of its own sequence', async () => {
    const k = newOrg();
    const siteId = newSite();
    const clientId = newBuyer();
    await updateInvoicingSettings(deps, k, JSON.stringify({ timeZone: 'Europe/Berlin', companyName: 'Seller GmbH' }));
    await updateSiteInvoicingSettings(
      deps,
      k,
      siteId,
      JSON.stringify({ invoicePrefix: 'SHOP', creditNotePrefix: 'SCN' }),
    );
    now = new Date('2026-12-31T23:30:00Z');
    const draft = await createInvoice(deps, k, draftBody(siteId, clientId, { paymentTermsDays: 14 }));
    expect(draft).toMatchObject({
      status: 'draft',
      number: null,
      proformaNumber: expect.stringMatching(/^PROFORMA-[0-9A-F]{8}$/),
    });
    const inv = await issueInvoice(deps, k, draft.id);
    expect(inv).toMatchObject({
      number: 'SHOP-2027-00001',
      issueDate: '2027-01-01',
      dueDate: '2027-01-15',
      proformaNumber: null,
    });
    expect(taxDates.at(-1)).toBe('2027-01-01');
    expect(inv.snapshot).toMatchObject({
      seller: { companyName: 'Seller GmbH', vatId: 'DE123456789' },
      buyer: { name: 'Erika Buyer' },
      totals: { gross: 23800 },
    });

    const voided = await voidInvoice(deps, k, inv.id, JSON.stringify({ reason: 'wrong order' }), 'user:1');
    expect(voided.status).toBe('void');
    expect(voided.creditNoteIds).toHaveLength(1);
    const again = await voidInvoice(deps, k, inv.id, '{}', 'user:1');
    expect(again.creditNoteIds).toEqual(voided.creditNoteIds);
    const notes = await listCreditNotes(deps, k, JSON.stringify({ invoiceId: inv.id }));
    expect(notes.total).toBe(1);
    expect(notes.items[0]).toMatchObject({
      number: 'SCN-2027-00001',
      invoiceNumber: 'SHOP-2027-00001',
      kind: 'void',
      totals: { gross: 23800 },
    });
    // A second void of another invoice takes the next credit-note number; invoices keep theirs.
    const inv2 = await issueInvoice(deps, k, (await createInvoice(deps, k, draftBody(siteId, clientId))).id);
    expect(inv2.number).toBe('SHOP-2027-00002');
    await voidInvoice(deps, k, inv2.id, '{}', null);
    expect((await listCreditNotes(deps, k, '{}')).items.map((n) => n.number).sort()).toEqual([
      'SCN-2027-00001',
      'SCN-2027-00002',
    ]);
    const pending = await store.outbox.pending(2000);
    const voidEvents = pending
      .filter((e) => e.subject === Subjects.invoiceVoided)
      .map((e) => invoiceVoided.parse((e.payload as { data: unknown }).data));
    expect(voidEvents.filter((d) => d.invoiceId === inv.id)).toHaveLength(1);
    const cnEvents = pending
      .filter((e) => e.subject === Subjects.creditNoteIssued)
      .map((e) => creditNoteIssued.parse((e.payload as { data: unknown }).data));
    expect(cnEvents.filter((d) => d.invoiceId === inv.id)).toMatchObject([{ number: 'SCN-2027-00001' }]);
    now = new Date('2026-06-15T10:00:00Z');
  });

  it('refuses to delete or void what the lifecycle forbids, and corrects only the snapshot', async () => {
    const k = newOrg();
    const siteId = newSite();
    const clientId = newBuyer();
    const draft = await createInvoice(deps, k, draftBody(siteId, clientId));
    await expect(voidInvoice(deps, k, draft.id, '{}', null)).rejects.toMatchObject({ code: 'INVOICE_NOT_VOIDABLE' });
    const inv = await issueInvoice(deps, k, draft.id);
    await expect(deleteInvoice(deps, k, inv.id)).rejects.toMatchObject({ code: 'INVOICE_NOT_DRAFT' });
    await expect(
      correctInvoice(deps, k, inv.id, JSON.stringify({ reason: 'x', changes: { lines: [] } }), null),
    ).rejects.toMatchObject({ field: 'changes.lines' });
    const corrected = await correctInvoice(
      deps,
      k,
      inv.id,
      JSON.stringify({
        reason: 'buyer gave their Peppol ID',
        changes: { client: { peppolRoutingAddress: { schemeId: '0088', value: '4000001000005' } } },
      }),
      'user:7',
    );
    expect(corrected.snapshot!.buyer.peppolRoutingAddress).toEqual({ schemeId: '0088', value: '4000001000005' });
    expect(corrected.corrections).toEqual([
      expect.objectContaining({
        actor: 'user:7',
        reason: 'buyer gave their Peppol ID',
        previous: { client: { peppolRoutingAddress: null } },
      }),
    ]);
    expect(buyers.get(clientId)!.peppolRoutingAddress).toBeNull();
    // Deleting a draft works and leaves nothing behind.
    const d2 = await createInvoice(deps, k, draftBody(siteId, clientId));
    await deleteInvoice(deps, k, d2.id);
    expect((await listInvoices(deps, k, '{}')).items.map((i) => i.id)).toEqual([inv.id]);
  });

  it('writes nothing for bad input and names the field', async () => {
    const k = newOrg();
    const siteId = newSite();
    const clientId = newBuyer();
    const other = newOrg();
    await expect(createInvoice(deps, k, draftBody(newObjectId(), clientId))).rejects.toMatchObject({
      field: 'siteId',
      kind: 'not_found',
    });
    await expect(createInvoice(deps, k, draftBody(siteId, newObjectId()))).rejects.toMatchObject({
      field: 'clientId',
      kind: 'not_found',
    });
    const neg = draftBody(siteId, clientId, {
      items: [{ description: 'x', quantity: -1, unitPrice: 100, itemType: 'service' }],
    });
    await expect(createInvoice(deps, k, neg)).rejects.toMatchObject({ kind: 'validation', field: 'items.0.quantity' });
    const many = draftBody(siteId, clientId, {
      items: Array.from({ length: 501 }, () => ({ description: 'x', quantity: 1, unitPrice: 1, itemType: 'service' })),
    });
    await expect(createInvoice(deps, k, many)).rejects.toMatchObject({ kind: 'validation', field: 'items' });
    expect((await listInvoices(deps, k, '{}')).total).toBe(0);
    expect((await listInvoices(deps, other, '{}')).total).toBe(0);
  });

  it('lists by status, number prefix and issue date', async () => {
    const k = newOrg();
    const siteId = newSite();
    const clientId = newBuyer();
    const a = await issueInvoice(deps, k, (await createInvoice(deps, k, draftBody(siteId, clientId))).id);
    await createInvoice(deps, k, draftBody(siteId, clientId));
    expect((await listInvoices(deps, k, JSON.stringify({ status: 'draft' }))).total).toBe(1);
    expect((await listInvoices(deps, k, JSON.stringify({ paid: false }))).total).toBe(2);
    expect((await listInvoices(deps, k, JSON.stringify({ number: 'INV-2026-*' }))).items.map((i) => i.id)).toEqual([
      a.id,
    ]);
    expect((await listInvoices(deps, k, JSON.stringify({ number: a.number }))).total).toBe(1);
    expect((await listInvoices(deps, k, JSON.stringify({ startDate: '2026-06-16' }))).total).toBe(0);
  });

  it('pages a long list newest first with ties by id, and stops counting its total past 1,000 invoices', async () => {
    const k = newOrg();
    const siteId = newSite();
    const clientId = newBuyer();
    const template = await createInvoice(deps, k, draftBody(siteId, clientId));
    const table = store.collection<InvoiceDoc>('invoices');
    const stored = await table.get(template.id);
    if (!stored) throw new Error('the draft was not stored');
    // 1,029 more drafts straight into the table, three to each creation time (ties broken by id).
    const { version: _version, ...doc } = stored;
    const docs = Array.from({ length: 1029 }, (_, n) => ({
      ...doc,
      id: newObjectId(),
      createdAt: new Date(Date.UTC(2026, 0, 1) + Math.floor(n / 3) * 60_000).toISOString(),
    }));
    await table.insertMany(docs.slice(0, 1000));
    await table.insertMany(docs.slice(1000));
    const newestFirst = [...docs]
      .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? 1 : -1))
      .map((d) => d.id);
    const first = await listInvoices(deps, k, JSON.stringify({ page: 1, limit: 20 }));
    // The template is the newest (created now); then the copies in the list's order.
    expect(first.items.map((i) => i.id)).toEqual([template.id, ...newestFirst.slice(0, 19)]);
    expect(first).toMatchObject({ total: 1001, totalIsLowerBound: true });
    const deep = await listInvoices(deps, k, JSON.stringify({ page: 51, limit: 20 }));
    expect(deep.items.map((i) => i.id)).toEqual(newestFirst.slice(999, 1019));
    expect(deep).toMatchObject({ total: 1021, totalIsLowerBound: true });
    const last = await listInvoices(deps, k, JSON.stringify({ page: 52, limit: 20 }));
    expect(last.items.map((i) => i.id)).toEqual(newestFirst.slice(1019));
    expect(last.total).toBe(1030);
    expect(last.totalIsLowerBound).toBeUndefined();
  });
});
