import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWithContext } from '@paymesh/core';
import { createStore, type DroppableStore, type OutboxEvent, type StoredDoc, TEST_PG_URL } from '@paymesh/store';
import { AUDIT_SUBJECT, AuditingStore, diffDocuments, type AuditBatch } from '../src/audit';
import { Committer } from '../src/commit';
import type { EventEnvelope } from '../src/envelope';
import { eventId } from '../src/event-id';

interface InvoiceDoc extends StoredDoc {
  organizationId: string;
  status: string;
  total: number;
  apiSecret?: string;
  taxId?: { kid: string; iv: string; ct: string; tag: string };
}

type TestEvents = { 'invoicing.invoice.issued': { invoiceId: string } };

const ctx = {
  requestId: 'req-audit-test-1',
  actor: { type: 'api_key' as const, id: 'ak_1', name: 'shop backend' },
  operation: 'issueInvoice',
};

describe('AuditingStore on PostgreSQL', () => {
  let raw: DroppableStore;
  let store: AuditingStore;
  const handedOff: OutboxEvent[][] = [];
  const relay = { origin: 'relay-1', handoff: (events: readonly OutboxEvent[]) => handedOff.push([...events]) };
  /** The relay as openInfra sets it up: a commit's audit event joins the committer's handoff. */
  const hooked = {
    origin: relay.origin,
    handoff: (events: readonly OutboxEvent[]) => relay.handoff(store.withAudit(events)),
  };

  beforeAll(async () => {
    raw = await createStore({ url: TEST_PG_URL, database: `bus_audit_${randomBytes(5).toString('hex')}` });
    const collections = [{ name: 'invoices', audit: { resource: 'invoice' } }, { name: 'notes' }];
    for (const c of collections) await raw.ensureCollection(c);
    store = new AuditingStore(raw, { service: 'billing', collections });
    store.attachRelay(hooked);
  });

  afterAll(async () => {
    await raw.dropDatabase();
    await raw.close();
  });

  /** Audit events in the outbox, oldest first. */
  async function auditBatches(): Promise<AuditBatch[]> {
    const pending = await raw.outbox.pending(1000);
    return pending.filter((e) => e.subject === AUDIT_SUBJECT).map((e) => (e.payload as EventEnvelope<AuditBatch>).data);
  }

  it('records a commit’s changes in the outbox statement it writes anyway: no statement more, one row more', async () => {
    const doc = await raw.collection<InvoiceDoc>('invoices').insert({
      organizationId: 'org1',
      status: 'draft',
      total: 100,
      apiSecret: 's3cr3t',
      taxId: { kid: 'k1', iv: 'a', ct: 'b', tag: 'c' },
    });
    const committer = new Committer<TestEvents>({ store, relay: hooked });
    const plain = new Committer<TestEvents>({ store: raw, relay });
    const issue = (c: Committer<TestEvents>, id: string) =>
      runWithContext(ctx, () =>
        c.commit(async (tx) => {
          const coll = tx.collection<InvoiceDoc>('invoices');
          const cur = (await coll.get(id))!;
          const { id: _i, version: _v, ...rest } = cur;
          await coll.replace(id, cur.version, {
            ...rest,
            status: 'issued',
            apiSecret: 'other',
            taxId: { kid: 'k1', iv: 'x', ct: 'y', tag: 'z' },
          });
          tx.emit(
            'invoicing.invoice.issued',
            { invoiceId: id },
            { id: eventId('issued', id, randomBytes(4).toString('hex')) },
          );
        }),
      );
    // The same commit without the audit trail, for comparison.
    const other = await raw
      .collection<InvoiceDoc>('invoices')
      .insert({ organizationId: 'org1', status: 'draft', total: 5 });
    let s0 = raw.stats();
    await issue(plain, other.id);
    const plainCost = {
      statements: raw.stats().statements - s0.statements,
      rows: raw.stats().rowsWritten - s0.rowsWritten,
    };
    s0 = raw.stats();
    await issue(committer, doc.id);
    const audited = {
      statements: raw.stats().statements - s0.statements,
      rows: raw.stats().rowsWritten - s0.rowsWritten,
    };
    expect(audited).toEqual({ statements: plainCost.statements, rows: plainCost.rows + 1 });

    const [batch] = (await auditBatches()).filter((b) => b.records.some((r) => r.resourceId === doc.id));
    expect(batch).toMatchObject({ service: 'billing', requestId: ctx.requestId, actor: ctx.actor });
    expect(batch!.records).toEqual([
      {
        organizationId: 'org1',
        operation: 'issueInvoice',
        action: 'update',
        resourceType: 'invoice',
        resourceId: doc.id,
        beforeKnown: true,
        // Secrets and encrypted values never enter the trail; both are masked, so unchanged.
        changes: [{ path: 'status', before: 'draft', after: 'issued' }],
      },
    ]);
    // The audit event rode with the committer's handoff of the same commit.
    const last = handedOff.at(-1)!;
    expect(last.map((e) => e.subject)).toEqual(['invoicing.invoice.issued', AUDIT_SUBJECT]);
  });

  it('a transaction without events writes its audit event in one statement; unaudited collections record nothing', async () => {
    const s0 = raw.stats();
    await runWithContext(ctx, () =>
      store.transaction(async (tx) => {
        await tx.collection<StoredDoc & { n: number }>('notes').insert({ n: 1 });
      }),
    );
    expect(raw.stats().statements - s0.statements).toBe(1); // the insert, sent as the transaction's one statement: nothing recorded
    const s1 = raw.stats();
    const created = await runWithContext(ctx, () =>
      store.transaction((tx) =>
        tx.collection<InvoiceDoc>('invoices').insert({ organizationId: 'org2', status: 'draft', total: 7 }),
      ),
    );
    expect(raw.stats().statements - s1.statements).toBe(1); // the insert and its audit event's outbox row in one statement
    const batch = (await auditBatches()).find((b) => b.records.some((r) => r.resourceId === created.id))!;
    expect(batch.records[0]).toMatchObject({ action: 'create', organizationId: 'org2', resourceType: 'invoice' });
    expect(batch.records[0]!.changes).toEqual([
      { path: 'organizationId', after: 'org2' },
      { path: 'status', after: 'draft' },
      { path: 'total', after: 7 },
    ]);
    // Handed to the relay by the store itself (no committer hands this commit off).
    expect(handedOff.at(-1)!.map((e) => e.subject)).toEqual([AUDIT_SUBJECT]);
  });

  it('a write outside a transaction carries its audit event in its one statement; a rolled-back transaction leaves none', async () => {
    const coll = store.collection<InvoiceDoc>('invoices');
    const s0 = raw.stats();
    const doc = await coll.insert({ organizationId: 'org3', status: 'draft', total: 1 });
    // The write and its audit event in one statement: no BEGIN or COMMIT.
    expect({
      statements: raw.stats().statements - s0.statements,
      rows: raw.stats().rowsWritten - s0.rowsWritten,
    }).toEqual({
      statements: 1,
      rows: 2,
    });
    await runWithContext({ ...ctx, operation: 'updateInvoice' }, () =>
      coll.update(doc.id, (cur) => ({ ...cur, total: 3 })),
    );
    await runWithContext({ ...ctx, operation: 'deleteInvoice' }, () => coll.delete(doc.id));
    const records = (await auditBatches()).flatMap((b) => b.records).filter((r) => r.resourceId === doc.id);
    expect(records.map((r) => [r.action, r.organizationId])).toEqual([
      ['create', 'org3'],
      ['update', 'org3'],
      ['delete', 'org3'],
    ]);
    expect(records[1]!.changes).toEqual([{ path: 'total', before: 1, after: 3 }]);
    expect(records[2]!.changes).toContainEqual({ path: 'status', before: 'draft' });
    const before = (await auditBatches()).length;
    await expect(
      store.transaction(async (tx) => {
        await tx.collection<InvoiceDoc>('invoices').insert({ organizationId: 'org3', status: 'draft', total: 2 });
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect((await auditBatches()).length).toBe(before);
  });

  it('diffs nested fields by path and summarizes large values', () => {
    expect(
      diffDocuments(
        { id: 'a', version: 1, a: { b: 1, c: [1] }, password: 'x' },
        { id: 'a', version: 2, a: { b: 2, c: [1] }, password: 'y', big: 'z'.repeat(5000) },
      ),
    ).toEqual([
      { path: 'a.b', before: 1, after: 2 },
      { path: 'big', after: `${'z'.repeat(2000)}…` },
    ]);
  });
});
