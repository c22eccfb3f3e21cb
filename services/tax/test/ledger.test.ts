import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, ManualClock, newObjectId } from '@paymesh/core';
import { taxReportRequest, type VatOssReport } from '@paymesh/contracts';
import { createStore, dropStoreDatabase, type DroppableStore, TEST_PG_URL } from '@paymesh/store';
import type { TaxDeps } from '../src/app/deps';
import { recordSourceEvent } from '../src/app/record-source-event';
import { claimTaxRecordRebuild, runTaxRecordRebuild, type RebuildRunOptions } from '../src/app/run-tax-record-rebuild';
import { startTaxRecordRebuild } from '../src/app/start-tax-record-rebuild';
import { getTaxRecordRebuild } from '../src/app/get-tax-record-rebuild';
import { listTaxRecords } from '../src/app/list-tax-records';
import { taxReport } from '../src/app/tax-report';
import { updateTaxSettings } from './wire';
import { entryContent, taxRecordId } from '../src/domain/ledger';
import { MAX_REBUILD_ATTEMPTS, type RebuildJobDoc } from '../src/domain/rebuild-job';
import type { SourceEventDoc, TaxRecordDoc } from '../src/domain/source-event';
import { collections, TAX_RECORD_REBUILDS, TAX_RECORDS, TAX_SOURCE_EVENTS } from '../src/store/collections';
import { calc, invoiceEvent, refundEvent, transactionEvent } from './fixtures';

const PG_URL = TEST_PG_URL;
const database = `tax_ledger_it_${randomBytes(5).toString('hex')}`;
const clock = new ManualClock('2026-06-01T12:00:00.000Z');
let store: DroppableStore;
let deps: TaxDeps;

const records = () => store.collection<TaxRecordDoc>(TAX_RECORDS);
const sources = () => store.collection<SourceEventDoc>(TAX_SOURCE_EVENTS);
const jobs = () => store.collection<RebuildJobDoc>(TAX_RECORD_REBUILDS);
const run = (over: Partial<RebuildRunOptions> = {}): RebuildRunOptions => ({
  workerId: 'w1',
  leaseMs: 30_000,
  batchSize: 3,
  shouldStop: () => false,
  ...over,
});

async function ledgerOf(organizationId: string): Promise<TaxRecordDoc[]> {
  return (await records().find({ organizationId }, { sort: { id: 1 } })).items;
}

/** Count and content hash of an organization's ledger (entries as stored, store version left out). */
async function fingerprint(organizationId: string): Promise<{ count: number; hash: string }> {
  const entries = await ledgerOf(organizationId);
  const hash = createHash('sha256');
  for (const e of entries) hash.update(`${entryContent(e)}|${e.createdAt}\n`);
  return { count: entries.length, hash: hash.digest('hex') };
}

async function rebuild(organizationId: string): Promise<RebuildJobDoc> {
  await startTaxRecordRebuild(deps, { organizationId, mode: 'live' }, () => undefined);
  const claimed = await claimTaxRecordRebuild(deps, run());
  if (!claimed) throw new Error('no job to claim');
  const done = await runTaxRecordRebuild(deps, claimed, run());
  if (!done) throw new Error('job taken over');
  return done;
}

beforeAll(async () => {
  store = await createStore({ url: PG_URL, database });
  for (const c of collections) await store.ensureCollection(c);
  const vatIds = {
    check: async () => {
      throw new Error('not used');
    },
  };
  deps = { store, clock, logger: createLogger({ service: 'tax-ledger-test', level: 'silent' }), vatIds };
});

afterAll(async () => {
  await store?.close();
  await dropStoreDatabase({ url: PG_URL, database });
});

describe('consuming events', () => {
  it('writes one entry and one inbox document for an event delivered many times at once', async () => {
    const organizationId = newObjectId();
    const event = transactionEvent({ organizationId, transactionId: newObjectId() });
    const results = await Promise.all(Array.from({ length: 6 }, () => recordSourceEvent(deps, event)));
    expect(results.every((r) => r.state === 'recorded')).toBe(true);
    expect(results.reduce((n, r) => n + r.created, 0)).toBe(1);
    expect(await records().count({ organizationId })).toBe(1);
    expect(await sources().count({ organizationId })).toBe(1);
    const entry = await records().get(taxRecordId(event.eventId, 'sale'));
    expect(entry).toMatchObject({ organizationId, entryType: 'sale', totals: { net: 8264, tax: 1736, gross: 10000 } });

    // Later redelivery: still one.
    expect(await recordSourceEvent(deps, event)).toMatchObject({ state: 'recorded', created: 0, existing: 1 });
    expect(await records().count({ organizationId })).toBe(1);
  });

  it('keeps a sale that records nothing, with the reason; a status change that is neither sale nor correction is not kept', async () => {
    const organizationId = newObjectId();
    const transactionId = newObjectId();
    const pending = transactionEvent({ organizationId, transactionId, status: 0, previousStatus: null, sequence: 1 });
    const untaxed = transactionEvent({ organizationId, transactionId, tax: null, taxInput: null });
    expect(await recordSourceEvent(deps, pending)).toMatchObject({
      state: 'no_entry',
      reason: expect.stringMatching(/no tax/),
      created: 0,
    });
    const r = await recordSourceEvent(deps, untaxed);
    expect(r.state).toBe('no_entry');
    expect(r.reason).toMatch(/no tax/);
    // The untaxed sale stays in the inbox: a later refund learns from it that the sale recorded nothing.
    expect((await sources().find({ organizationId })).items.map((d) => d.role)).toEqual(['sale']);
    expect(await records().count({ organizationId })).toBe(0);
  });

  it('a redelivered sale is derived from the stored event and writes nothing new', async () => {
    const organizationId = newObjectId();
    const event = transactionEvent({ organizationId, transactionId: newObjectId() });
    expect(await recordSourceEvent(deps, event)).toMatchObject({ state: 'recorded', created: 1 });
    const stored = await sources().findOne({ organizationId });
    expect(await recordSourceEvent(deps, event)).toMatchObject({ state: 'recorded', created: 0, existing: 1 });
    expect(await sources().find({ organizationId })).toMatchObject({ items: [{ id: stored?.id, seq: stored?.seq }] });
  });

  it('a refund consumed before its sale waits, then is reversed when the sale arrives', async () => {
    const organizationId = newObjectId();
    const transactionId = newObjectId();
    const sale = transactionEvent({ organizationId, transactionId });
    const refund = transactionEvent({
      organizationId,
      transactionId,
      status: 3,
      previousStatus: 1,
      sequence: 3,
      changedAt: '2026-03-09T10:00:00.000Z',
    });
    expect(await recordSourceEvent(deps, refund)).toMatchObject({ state: 'pending' });
    expect(await records().count({ organizationId })).toBe(0);

    await recordSourceEvent(deps, sale);
    const entries = await ledgerOf(organizationId);
    const saleEntry = entries.find((e) => e.entryType === 'sale');
    const reversal = entries.find((e) => e.entryType === 'reversal');
    expect(reversal).toMatchObject({
      correctsRecordId: saleEntry?.id,
      taxPointDate: '2026-03-09',
      totals: { net: -8264, tax: -1736, gross: -10000 },
    });
    expect((await sources().findOne({ eventId: refund.eventId }))?.state).toBe('recorded');
  });

  it('a refund of a sale that recorded nothing records nothing', async () => {
    const organizationId = newObjectId();
    const transactionId = newObjectId();
    await recordSourceEvent(deps, transactionEvent({ organizationId, transactionId, tax: null }));
    const r = await recordSourceEvent(
      deps,
      transactionEvent({ organizationId, transactionId, status: 3, previousStatus: 1, sequence: 3 }),
    );
    expect(r.state).toBe('no_entry');
    expect(await records().count({ organizationId })).toBe(0);
  });
});

describe('provider refunds', () => {
  const sumOf = (entries: TaxRecordDoc[]) =>
    entries.reduce(
      (s, e) => ({ net: s.net + e.totals.net, tax: s.tax + e.totals.tax, gross: s.gross + e.totals.gross }),
      { net: 0, tax: 0, gross: 0 },
    );

  it('one reversal per refund; the move to 3 reverses the rest; redelivery and rebuild write nothing new', async () => {
    const organizationId = newObjectId();
    const transactionId = newObjectId();
    await recordSourceEvent(deps, transactionEvent({ organizationId, transactionId }));
    const first = refundEvent({ organizationId, transactionId, refundId: 're_1', amount: 3000, refundedTotal: 3000 });
    expect(await recordSourceEvent(deps, first)).toMatchObject({ state: 'recorded', created: 1 });
    // The same refund again, and under another envelope id: nothing new (the entry is kept as first written).
    expect(await recordSourceEvent(deps, first)).toMatchObject({ state: 'recorded', created: 0, existing: 1 });
    expect(
      await recordSourceEvent(
        deps,
        refundEvent(
          { organizationId, transactionId, refundId: 're_1', amount: 3000, refundedTotal: 3000 },
          `evt-${transactionId}-again`,
        ),
      ),
    ).toMatchObject({ created: 0 });
    const reversals = () => ledgerOf(organizationId).then((l) => l.filter((e) => e.entryType === 'reversal'));
    expect((await reversals()).map((e) => e.totals)).toEqual([{ net: -2479, tax: -521, gross: -3000 }]);

    await recordSourceEvent(
      deps,
      transactionEvent({ organizationId, transactionId, status: 3, previousStatus: 1, sequence: 3 }),
    );
    const all = await ledgerOf(organizationId);
    expect(all).toHaveLength(3);
    expect(sumOf(all)).toEqual({ net: 0, tax: 0, gross: 0 });
    const before = await fingerprint(organizationId);
    await rebuild(organizationId);
    expect(await fingerprint(organizationId)).toEqual(before);
  });

  it('refunds covering the amount reverse the sale; a later move to 3 records nothing', async () => {
    const organizationId = newObjectId();
    const transactionId = newObjectId();
    await recordSourceEvent(deps, transactionEvent({ organizationId, transactionId }));
    await recordSourceEvent(
      deps,
      refundEvent({ organizationId, transactionId, refundId: 're_1', amount: 3333, refundedTotal: 3333 }),
    );
    await recordSourceEvent(
      deps,
      refundEvent({ organizationId, transactionId, refundId: 're_2', amount: 6667, refundedTotal: 10000 }),
    );
    const r = await recordSourceEvent(
      deps,
      transactionEvent({ organizationId, transactionId, status: 3, previousStatus: 1, sequence: 3 }),
    );
    expect(r.state).toBe('no_entry');
    const all = await ledgerOf(organizationId);
    expect(all).toHaveLength(3);
    expect(sumOf(all)).toEqual({ net: 0, tax: 0, gross: 0 });
  });

  it('either order of a full refund and the move to 3 gives the same totals, with one reversal', async () => {
    const totals = async (order: 'refund-first' | 'status-first') => {
      const organizationId = newObjectId();
      const transactionId = newObjectId();
      const refund = refundEvent({
        organizationId,
        transactionId,
        refundId: 're_1',
        amount: 10000,
        refundedTotal: 10000,
      });
      const marked = transactionEvent({ organizationId, transactionId, status: 3, previousStatus: 1, sequence: 3 });
      await recordSourceEvent(deps, transactionEvent({ organizationId, transactionId }));
      for (const e of order === 'refund-first' ? [refund, marked] : [marked, refund]) await recordSourceEvent(deps, e);
      const all = await ledgerOf(organizationId);
      return { entries: all.length, reversals: all.filter((e) => e.entryType === 'reversal').length, sum: sumOf(all) };
    };
    const expected = { entries: 2, reversals: 1, sum: { net: 0, tax: 0, gross: 0 } };
    expect(await totals('refund-first')).toEqual(expected);
    expect(await totals('status-first')).toEqual(expected);
  });

  it('a refund consumed before its sale waits for it', async () => {
    const organizationId = newObjectId();
    const transactionId = newObjectId();
    expect(
      await recordSourceEvent(
        deps,
        refundEvent({ organizationId, transactionId, refundId: 're_1', amount: 5000, refundedTotal: 5000 }),
      ),
    ).toMatchObject({ state: 'pending' });
    await recordSourceEvent(deps, transactionEvent({ organizationId, transactionId }));
    expect(sumOf(await ledgerOf(organizationId)).gross).toBe(5000);
  });
});

describe('an invoice issued for a transaction already paid (automatic invoices)', () => {
  type Order = 'transaction-first' | 'invoice-first' | 'concurrent';

  /** The fixture's paid NL sale of 100.00 and the invoice issued for it, consumed in `order`, each delivered twice. */
  async function paidAndInvoiced(order: Order) {
    const organizationId = newObjectId();
    const transactionId = newObjectId();
    const invoiceId = newObjectId();
    await updateTaxSettings(
      deps,
      { organizationId, mode: 'live' },
      JSON.stringify({ homeCountry: 'DE', ossEnabled: true, vatId: 'DE321571435' }),
    );
    const paid = transactionEvent({ organizationId, transactionId });
    const invoiced = invoiceEvent({ organizationId, invoiceId, transactionId });
    if (order === 'concurrent')
      await Promise.all([
        recordSourceEvent(deps, paid),
        recordSourceEvent(deps, invoiced),
        recordSourceEvent(deps, paid),
        recordSourceEvent(deps, invoiced),
      ]);
    else {
      const events = order === 'transaction-first' ? [paid, invoiced] : [invoiced, paid];
      for (const e of events) await recordSourceEvent(deps, e);
      // A redelivery of each writes and changes nothing.
      for (const e of events)
        expect(await recordSourceEvent(deps, e)).toMatchObject({
          state: 'recorded',
          created: 0,
          existing: 1,
          mismatched: 0,
        });
    }
    return { organizationId, transactionId, invoiceId };
  }

  const oss = async (organizationId: string, source: 'both' | 'transactions' | 'invoices') => {
    const r = (await taxReport(
      deps,
      { organizationId, mode: 'live' },
      taxReportRequest.parse({ report: 'vat-oss', year: 2026, quarter: 1, source }),
    )) as VatOssReport;
    return r.countries.map((c) => [c.country, c.supplies.map((x) => [x.taxableAmount, x.vatAmount])]);
  };

  it.each<Order>(['transaction-first', 'invoice-first', 'concurrent'])(
    'counts the sale once in the VAT OSS return over both sources (%s)',
    async (order) => {
      const { organizationId, transactionId, invoiceId } = await paidAndInvoiced(order);
      const entries = await ledgerOf(organizationId);
      expect(entries).toHaveLength(2);
      expect(entries.find((e) => e.sourceKind === 'transaction')).toMatchObject({
        linkedTransactionId: transactionId,
        linkedInvoiceId: invoiceId,
        invoicePayment: true,
      });
      expect(await oss(organizationId, 'both')).toEqual([['NL', [[8264, 1736]]]]);
      expect(await oss(organizationId, 'transactions')).toEqual([['NL', [[8264, 1736]]]]);
      expect(await oss(organizationId, 'invoices')).toEqual([['NL', [[8264, 1736]]]]);
    },
  );

  it('a refund of the linked transaction counts where its sale counts; a rebuild changes nothing', async () => {
    const { organizationId, invoiceId } = await paidAndInvoiced('transaction-first');
    const transactionId = (await ledgerOf(organizationId)).find((e) => e.sourceKind === 'transaction')?.sourceId ?? '';
    await recordSourceEvent(
      deps,
      refundEvent({
        organizationId,
        transactionId,
        refundId: 're_1',
        amount: 4000,
        refundedTotal: 4000,
        refundedAt: '2026-03-03T10:00:00.000Z',
      }),
    );
    const reversal = (await ledgerOf(organizationId)).find((e) => e.entryType === 'reversal');
    expect(reversal).toMatchObject({ linkedInvoiceId: invoiceId, invoicePayment: true });
    // Over both sources only the invoice counts (its credit note, not the provider refund, corrects it).
    expect(await oss(organizationId, 'both')).toEqual([['NL', [[8264, 1736]]]]);
    const before = await fingerprint(organizationId);
    const job = await rebuild(organizationId);
    expect(job).toMatchObject({ status: 'completed', progress: { created: 0, mismatched: 0, failed: 0 } });
    expect(await fingerprint(organizationId)).toEqual(before);
  });
});

describe('queries', () => {
  it('filters by tax point (inclusive), kind and type, newest first, with paging', async () => {
    const organizationId = newObjectId();
    for (const day of ['01', '02', '03']) {
      await recordSourceEvent(
        deps,
        transactionEvent({ organizationId, transactionId: newObjectId(), changedAt: `2026-04-${day}T09:00:00.000Z` }),
      );
    }
    const key = { organizationId, mode: 'live' as const };
    const base = { page: 1, limit: 20 };
    const all = await listTaxRecords(deps, key, base);
    expect(all.data.map((e) => e.taxPointDate)).toEqual(['2026-04-03', '2026-04-02', '2026-04-01']);
    expect((await listTaxRecords(deps, key, { ...base, startDate: '2026-04-02', endDate: '2026-04-03' })).total).toBe(
      2,
    );
    expect(
      (await listTaxRecords(deps, key, { ...base, endDate: '2026-04-01' })).data.map((e) => e.taxPointDate),
    ).toEqual(['2026-04-01']);
    expect((await listTaxRecords(deps, key, { ...base, recognitionMode: 'accrual' })).total).toBe(0);
    expect((await listTaxRecords(deps, key, { ...base, sourceKind: 'transaction', entryType: 'sale' })).total).toBe(3);
    const page2 = await listTaxRecords(deps, key, { page: 2, limit: 2 });
    expect(page2).toMatchObject({ total: 3, page: 2, limit: 2 });
    expect(page2.data.map((e) => e.taxPointDate)).toEqual(['2026-04-01']);
    await expect(listTaxRecords(deps, key, { ...base, startDate: '2026-02-30' })).rejects.toThrow(/startDate/);
    await expect(
      listTaxRecords(deps, key, { ...base, startDate: '2026-04-03', endDate: '2026-04-01' }),
    ).rejects.toThrow(/after endDate/);
    // Another organization sees none of them.
    expect((await listTaxRecords(deps, { organizationId: newObjectId(), mode: 'live' }, base)).total).toBe(0);
  });
});

describe('rebuild', () => {
  it('leaves a consistent ledger unchanged and counts every entry as existing', async () => {
    const organizationId = newObjectId();
    for (let i = 0; i < 4; i++)
      await recordSourceEvent(deps, transactionEvent({ organizationId, transactionId: newObjectId() }));
    await recordSourceEvent(
      deps,
      transactionEvent({ organizationId, transactionId: newObjectId(), tax: null, taxInput: null }),
    );
    const before = await fingerprint(organizationId);
    const job = await rebuild(organizationId);
    expect(job).toMatchObject({ status: 'completed', activeKey: null, attempts: 1, error: null });
    expect(job.progress).toEqual({
      sourceEvents: 5,
      processed: 5,
      created: 0,
      existing: 4,
      mismatched: 0,
      failed: 0,
      pending: 0,
    });
    expect(await fingerprint(organizationId)).toEqual(before);
  });

  it('writes missing entries and reports (never rewrites) entries that differ from their derivation', async () => {
    const organizationId = newObjectId();
    const a = transactionEvent({ organizationId, transactionId: newObjectId() });
    const b = transactionEvent({ organizationId, transactionId: newObjectId() });
    await recordSourceEvent(deps, a);
    await recordSourceEvent(deps, b);
    await records().delete(taxRecordId(a.eventId, 'sale'));
    const tampered = await records().update(taxRecordId(b.eventId, 'sale'), ({ id: _id, version: _v, ...e }) => ({
      ...e,
      totals: { ...e.totals, tax: 1 },
    }));
    const job = await rebuild(organizationId);
    expect(job.progress).toMatchObject({ processed: 2, created: 1, existing: 0, mismatched: 1 });
    expect(await records().get(taxRecordId(a.eventId, 'sale'))).toMatchObject({ totals: { tax: 1736 } });
    expect(await records().get(tampered.id)).toMatchObject({ totals: { tax: 1 }, version: tampered.version });
  });

  it('answers the queued or running job instead of starting a second one', async () => {
    const organizationId = newObjectId();
    const key = { organizationId, mode: 'live' as const };
    const [first, second] = await Promise.all([
      startTaxRecordRebuild(deps, key, () => undefined),
      startTaxRecordRebuild(deps, key, () => undefined),
    ]);
    expect(second.id).toBe(first.id);
    expect(await jobs().count({ organizationId })).toBe(1);
    expect((await getTaxRecordRebuild(deps, key, '')).id).toBe(first.id);
    // The test mode has a ledger of its own.
    const testJob = await startTaxRecordRebuild(deps, { organizationId, mode: 'test' }, () => undefined);
    expect(testJob.id).not.toBe(first.id);
    await expect(getTaxRecordRebuild(deps, { organizationId, mode: 'test' }, first.id)).rejects.toThrow(/not found/);
    // Drain the queue for the following tests.
    for (let job = await claimTaxRecordRebuild(deps, run()); job; job = await claimTaxRecordRebuild(deps, run()))
      await runTaxRecordRebuild(deps, job, run());
    expect((await getTaxRecordRebuild(deps, key, first.id)).status).toBe('completed');
    // Once finished, a new request starts a new job.
    expect((await startTaxRecordRebuild(deps, key, () => undefined)).id).not.toBe(first.id);
    for (let job = await claimTaxRecordRebuild(deps, run()); job; job = await claimTaxRecordRebuild(deps, run()))
      await runTaxRecordRebuild(deps, job, run());
  });

  it('a job whose worker died is resumed after its claim lapses, from its last checkpoint', async () => {
    const organizationId = newObjectId();
    for (let i = 0; i < 7; i++)
      await recordSourceEvent(deps, transactionEvent({ organizationId, transactionId: newObjectId() }));
    await startTaxRecordRebuild(deps, { organizationId, mode: 'live' }, () => undefined);
    const claimed = await claimTaxRecordRebuild(deps, run({ workerId: 'dies' }));
    if (!claimed) throw new Error('no job');
    // The first worker gets through one batch (3 events) and then "crashes" (stops renewing its claim).
    let batches = 0;
    const crashed = await runTaxRecordRebuild(
      deps,
      claimed,
      run({ workerId: 'dies', shouldStop: () => ++batches >= 1 }),
    );
    expect(crashed).toMatchObject({ status: 'running', cursor: expect.any(Number), progress: { processed: 3 } });
    await jobs().update(claimed.id, ({ id: _id, version: _v, ...j }) => ({
      ...j,
      leaseOwner: 'dies',
      leaseUntil: new Date(clock.now().getTime() + 30_000).toISOString(),
    }));

    // Another worker finds nothing to take while the claim holds...
    expect(await claimTaxRecordRebuild(deps, run({ workerId: 'w2' }))).toBeNull();
    // ...and resumes the job once it has lapsed.
    clock.advance(30_001);
    const resumed = await claimTaxRecordRebuild(deps, run({ workerId: 'w2' }));
    expect(resumed).toMatchObject({ id: claimed.id, attempts: 2, leaseOwner: 'w2' });
    const done = await runTaxRecordRebuild(deps, resumed!, run({ workerId: 'w2' }));
    expect(done).toMatchObject({ status: 'completed', attempts: 2 });
    expect(done?.progress).toMatchObject({ sourceEvents: 7, processed: 7, existing: 7, created: 0 });
  });

  it('gives a job up after it was interrupted too often', async () => {
    const organizationId = newObjectId();
    await recordSourceEvent(deps, transactionEvent({ organizationId, transactionId: newObjectId() }));
    const queued = await startTaxRecordRebuild(deps, { organizationId, mode: 'live' }, () => undefined);
    await jobs().update(queued.id, ({ id: _id, version: _v, ...j }) => ({
      ...j,
      status: 'running',
      attempts: MAX_REBUILD_ATTEMPTS,
      leaseUntil: clock.now().toISOString(),
    }));
    expect(await claimTaxRecordRebuild(deps, run())).toBeNull();
    const failed = await getTaxRecordRebuild(deps, { organizationId, mode: 'live' }, queued.id);
    expect(failed).toMatchObject({ status: 'failed', error: expect.stringMatching(/interrupted 3 times/) });
    // The ledger can be rebuilt again.
    expect((await rebuild(organizationId)).status).toBe('completed');
  });

  it('derives corrections that waited, once their sale is walked', async () => {
    const organizationId = newObjectId();
    const transactionId = newObjectId();
    const refund = transactionEvent({ organizationId, transactionId, status: 3, previousStatus: 1, sequence: 3 });
    await recordSourceEvent(deps, refund);
    // The sale reached the inbox but its derivation never ran (e.g. a crash right after storing it).
    const sale = transactionEvent({ organizationId, transactionId, tax: calc({ totalTax: 1900, totalNet: 8100 }) });
    const seq = await store.nextSequence('tax_source_events.seq');
    const { newSourceEventDoc } = await import('../src/domain/source-event');
    await sources().insert(newSourceEventDoc(sale, seq, clock.now().toISOString()));
    const job = await rebuild(organizationId);
    expect(job.progress).toMatchObject({ sourceEvents: 2, created: 2, pending: 0 });
    expect((await ledgerOf(organizationId)).map((e) => [e.entryType, e.totals.tax]).sort()).toEqual([
      ['reversal', -1900],
      ['sale', 1900],
    ]);
  });
});
