import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError, isObjectId, newObjectId } from '@paymesh/core';
import type { DocumentStore, Filter, StoredDoc } from '../src';
import { blobContract } from './blob-contract';
import { searchContract } from './search-contract';

/** A store under test; `dropDatabase` (both adapters have it) cleans up after the suite. */
export type ContractStore = DocumentStore & { dropDatabase?(): Promise<void> };

interface Invoice extends StoredDoc {
  number: string;
  amount: number;
  status: string;
  issuedAt: string;
  billing?: { country: string; vatId?: string | null };
  note?: string | null;
  idempotencyKey?: string;
  seqNo?: number;
}

type NewInvoice = Omit<Invoice, 'id' | 'version'>;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}

async function expectDomainError(promise: Promise<unknown>, type: new (...args: never[]) => Error, code?: string) {
  const err = await rejection(promise);
  expect(err).toBeInstanceOf(type);
  if (code !== undefined) expect(err).toMatchObject({ code });
}

const invoice = (over: Partial<NewInvoice> = {}): NewInvoice => ({
  number: `INV-${newObjectId().slice(-6)}`,
  amount: 100,
  status: 'open',
  issuedAt: '2024-01-15T10:00:00.000Z',
  ...over,
});

/**
 * The behaviour every DocumentStore adapter must show. `makeStore` returns a store on a fresh,
 * empty database; the suite drops it and closes the store at the end.
 */
export function runStoreContract(name: string, makeStore: () => Promise<ContractStore>): void {
  describe(`DocumentStore contract: ${name}`, () => {
    let store: ContractStore;
    let seq = 0;

    /** A fresh collection per test keeps cases independent. */
    async function invoices() {
      const collectionName = `invoices_${++seq}`;
      await store.ensureCollection({
        name: collectionName,
        indexes: [
          { name: 'number_unique', fields: ['number'], unique: true },
          { name: 'idem_unique', fields: ['idempotencyKey'], unique: true },
          { name: 'status_issued', fields: ['status', 'issuedAt'] },
        ],
      });
      return store.collection<Invoice>(collectionName);
    }

    /** Ten invoices with amounts that sort differently as numbers and as text. */
    async function seeded() {
      const col = await invoices();
      const amounts = [9, 10, 100, 2, 25, 1000, 3, 30, 11, 1];
      for (const [i, amount] of amounts.entries()) {
        await col.insert(
          invoice({
            number: `N-${String(i).padStart(2, '0')}`,
            amount,
            status: i % 3 === 0 ? 'paid' : 'open',
            issuedAt: `2024-0${1 + (i % 9)}-0${1 + (i % 7)}T12:00:00.000Z`,
            billing: { country: i % 2 === 0 ? 'DE' : 'FR' },
            ...(i < 3 ? { note: `note ${i}` } : i === 3 ? { note: null } : {}),
          }),
        );
      }
      return col;
    }

    const amountsOf = (items: Invoice[]) => items.map((d) => d.amount);
    const sortedAmounts = async (col: Awaited<ReturnType<typeof invoices>>, filter: Filter) =>
      amountsOf((await col.find(filter)).items).sort((a, b) => a - b);

    beforeAll(async () => {
      store = await makeStore();
    });

    searchContract(() => store);
    blobContract(() => store);

    afterAll(async () => {
      if (!store) return;
      try {
        await store.dropDatabase?.();
      } finally {
        await store.close();
      }
    });

    it('ping succeeds against a live server', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it('insert assigns a 24-hex id and version 1, and get returns the document', async () => {
      const col = await invoices();
      const created = await col.insert(invoice({ number: 'A-1', billing: { country: 'DE' } }));
      expect(isObjectId(created.id)).toBe(true);
      expect(created.version).toBe(1);
      expect(await col.get(created.id)).toEqual(created);
      expect(created).toMatchObject({ number: 'A-1', amount: 100, billing: { country: 'DE' } });
    });

    it('insert keeps a caller-supplied id and rejects a taken one', async () => {
      const col = await invoices();
      const id = newObjectId();
      expect((await col.insert({ ...invoice(), id })).id).toBe(id);
      await expectDomainError(col.insert({ ...invoice(), id }), ConflictError, 'DUPLICATE_KEY');
      expect(await col.count({})).toBe(1);
    });

    it('insert with a taken unique key throws DUPLICATE_KEY and writes nothing', async () => {
      const col = await invoices();
      await col.insert(invoice({ number: 'DUP-1', amount: 1 }));
      await expectDomainError(col.insert(invoice({ number: 'DUP-1', amount: 2 })), ConflictError, 'DUPLICATE_KEY');
      expect(await col.count({})).toBe(1);
      expect(await col.count({ amount: 2 })).toBe(0);
    });

    it('insertMany writes every document in one go, or none when one takes a unique key', async () => {
      const col = await invoices();
      const many = await col.insertMany([
        invoice({ number: 'M-1', amount: 1 }),
        invoice({ number: 'M-2', amount: 2 }),
        invoice({ amount: 3 }),
      ]);
      expect(many.map((d) => d.version)).toEqual([1, 1, 1]);
      expect(await col.get(many[1]!.id)).toEqual(many[1]);
      expect(await col.count({})).toBe(3);
      await expectDomainError(
        col.insertMany([invoice({ number: 'M-3', amount: 4 }), invoice({ number: 'M-1', amount: 5 })]),
        ConflictError,
        'DUPLICATE_KEY',
      );
      expect(await col.count({})).toBe(3);
      expect(await col.count({ number: 'M-3' })).toBe(0);
      expect(await col.insertMany([])).toEqual([]);
    });

    it('unique indexes ignore documents that lack the field', async () => {
      const col = await invoices();
      await col.insert(invoice());
      await col.insert(invoice());
      await col.insert(invoice({ idempotencyKey: 'k1' }));
      await expectDomainError(col.insert(invoice({ idempotencyKey: 'k1' })), ConflictError, 'DUPLICATE_KEY');
      expect(await col.count({})).toBe(3);
    });

    it('get returns null for an unknown id', async () => {
      const col = await invoices();
      expect(await col.get(newObjectId())).toBeNull();
    });

    it('find by equality on strings, numbers and null', async () => {
      const col = await seeded();
      expect(await sortedAmounts(col, { status: 'paid' })).toEqual([1, 2, 3, 9]);
      expect(await sortedAmounts(col, { amount: 25 })).toEqual([25]);
      expect(await sortedAmounts(col, { amount: { $eq: 100 } })).toEqual([100]);
      expect(await sortedAmounts(col, { number: 'N-03', status: 'paid' })).toEqual([2]);
      // null matches both an explicit null and a missing field
      expect((await col.find({ note: null })).total).toBe(7);
      expect(await col.count({ amount: '25' })).toBe(0);
    });

    it('find with $in and $nin', async () => {
      const col = await seeded();
      expect(await sortedAmounts(col, { amount: { $in: [9, 100, 7] } })).toEqual([9, 100]);
      expect(await sortedAmounts(col, { number: { $in: ['N-00', 'N-09'] } })).toEqual([1, 9]);
      expect(await col.count({ amount: { $in: [] } })).toBe(0);
      expect(await sortedAmounts(col, { status: { $nin: ['open'] } })).toEqual([1, 2, 3, 9]);
      expect(await col.count({ note: { $in: [null] } })).toBe(7);
      expect(await col.count({ note: { $nin: [null, 'note 0'] } })).toBe(2);
    });

    it('range filters compare numbers numerically, not as text', async () => {
      const col = await seeded();
      expect(await sortedAmounts(col, { amount: { $gt: 9 } })).toEqual([10, 11, 25, 30, 100, 1000]);
      expect(await sortedAmounts(col, { amount: { $gte: 9, $lt: 100 } })).toEqual([9, 10, 11, 25, 30]);
      expect(await sortedAmounts(col, { amount: { $lte: 3 } })).toEqual([1, 2, 3]);
    });

    it('range filters on ISO date strings', async () => {
      const col = await invoices();
      for (const day of ['2024-03-01', '2024-03-15', '2024-04-01', '2023-12-31']) {
        await col.insert(invoice({ issuedAt: `${day}T00:00:00.000Z`, amount: Number(day.replace(/-/g, '')) }));
      }
      const march = await sortedAmounts(col, {
        issuedAt: { $gte: '2024-03-01T00:00:00.000Z', $lt: '2024-04-01T00:00:00.000Z' },
      });
      expect(march).toEqual([20240301, 20240315]);
      expect(await col.count({ issuedAt: { $gt: '2024' } })).toBe(3);
      // A string operand never matches numbers, a number operand never matches strings.
      expect(await col.count({ issuedAt: { $gt: 0 } })).toBe(0);
    });

    it('filters on dotted paths', async () => {
      const col = await seeded();
      expect(await col.count({ 'billing.country': 'DE' })).toBe(5);
      expect(await sortedAmounts(col, { 'billing.country': 'FR', amount: { $gt: 10 } })).toEqual([30, 1000]);
      expect(await col.count({ 'billing.country': { $in: ['FR'] }, status: 'paid' })).toBe(2);
      expect(await col.count({ 'billing.missing.deep': { $exists: false } })).toBe(10);
    });

    it('$exists means present and not null', async () => {
      const col = await seeded();
      expect(await col.count({ note: { $exists: true } })).toBe(3);
      expect(await col.count({ note: { $exists: false } })).toBe(7);
      expect(await col.count({ 'billing.country': { $exists: true } })).toBe(10);
      expect(await col.count({ id: { $exists: true } })).toBe(10);
    });

    it('$ne also matches documents without the field', async () => {
      const col = await seeded();
      expect(await col.count({ status: { $ne: 'open' } })).toBe(4);
      expect(await col.count({ note: { $ne: 'note 1' } })).toBe(9);
      expect(await col.count({ note: { $ne: null } })).toBe(3);
    });

    it('$has matches array fields holding the value, through an array index', async () => {
      const name = `tagged_${++seq}`;
      await store.ensureCollection({ name, indexes: [{ name: 'tags_elements', fields: ['tags'], array: true }] });
      // A second ensure finds the index in place.
      await store.ensureCollection({ name, indexes: [{ name: 'tags_elements', fields: ['tags'], array: true }] });
      const col = store.collection<{ id: string; version: number; tags?: unknown; n: number }>(name);
      await col.insert({ tags: ['shop.example', 'www.shop.example'], n: 1 });
      await col.insert({ tags: ['other.example'], n: 2 });
      await col.insert({ tags: 'shop.example', n: 3 });
      await col.insert({ tags: [1, true], n: 4 });
      await col.insert({ n: 5 });
      const ns = async (filter: Filter) => (await col.find(filter)).items.map((d) => d.n).sort();
      expect(await ns({ tags: { $has: 'shop.example' } })).toEqual([1]);
      expect(await ns({ tags: { $has: 'www.shop.example' }, n: 1 })).toEqual([1]);
      expect(await ns({ tags: { $has: 'nowhere.example' } })).toEqual([]);
      expect(await ns({ tags: { $has: 1 } })).toEqual([4]);
      expect(await ns({ tags: { $has: true } })).toEqual([4]);
      expect(await ns({ tags: { $has: '1' } })).toEqual([]);
      const untyped = JSON.parse('[{"tags":{"$has":null}},{"tags":{"$has":["a"]}}]') as Filter[];
      for (const filter of untyped) await expect(col.find(filter)).rejects.toBeInstanceOf(ValidationError);
      await expect(
        store.ensureCollection({
          name: `bad_${++seq}`,
          indexes: [{ name: 'x', fields: ['tags'], array: true, unique: true }],
        }),
      ).rejects.toBeInstanceOf(ValidationError);
    });

    it('filters on id like any other field', async () => {
      const col = await invoices();
      const a = await col.insert(invoice());
      const b = await col.insert(invoice());
      await col.insert(invoice());
      expect((await col.find({ id: a.id })).items.map((d) => d.id)).toEqual([a.id]);
      expect(await col.count({ id: { $in: [a.id, b.id] } })).toBe(2);
      expect(await col.count({ id: { $ne: a.id } })).toBe(2);
    });

    it('sorts ascending and descending, numbers numerically', async () => {
      const col = await seeded();
      const asc = await col.find({}, { sort: { amount: 1 } });
      expect(amountsOf(asc.items)).toEqual([1, 2, 3, 9, 10, 11, 25, 30, 100, 1000]);
      const desc = await col.find({ status: 'open' }, { sort: { amount: -1 } });
      expect(amountsOf(desc.items)).toEqual([1000, 100, 30, 25, 11, 10]);
      const byCountry = await col.find({}, { sort: { 'billing.country': -1, number: 1 } });
      expect(byCountry.items.map((d) => d.number)).toEqual([
        'N-01',
        'N-03',
        'N-05',
        'N-07',
        'N-09',
        'N-00',
        'N-02',
        'N-04',
        'N-06',
        'N-08',
      ]);
      const first = await col.findOne({ status: 'paid' }, { sort: { amount: -1 } });
      expect(first?.amount).toBe(9);
    });

    it('pages with limit and reports the total when asked for it', async () => {
      const col = await seeded();
      const page2 = await col.find({}, { sort: { amount: 1 }, page: 2, limit: 4, total: true });
      expect(page2).toMatchObject({ total: 10, page: 2, limit: 4 });
      expect(amountsOf(page2.items)).toEqual([10, 11, 25, 30]);
      const page3 = await col.find({}, { sort: { amount: 1 }, page: 3, limit: 4 });
      expect(amountsOf(page3.items)).toEqual([100, 1000]);
      // Without `total: true` a paged find does not count (no total at all, never a wrong one).
      expect(page3.total).toBeUndefined();
      const beyond = await col.find({ status: 'paid' }, { page: 5, limit: 4, total: true });
      expect(beyond).toMatchObject({ items: [], total: 4 });
      // Short pages prove the total without counting; it must equal the count all the same.
      const lastWithTotal = await col.find({}, { sort: { amount: 1 }, page: 3, limit: 4, total: true });
      expect(lastWithTotal).toMatchObject({ total: 10, page: 3 });
      const firstShort = await col.find({ status: 'paid' }, { page: 1, limit: 10, total: true });
      expect(firstShort).toMatchObject({ total: 4 });
      const none = await col.find({ status: 'nobody' }, { page: 1, limit: 10, total: true });
      expect(none).toMatchObject({ items: [], total: 0 });
      const exact = await col.find({ status: 'paid' }, { page: 1, limit: 4, total: true });
      expect(exact).toMatchObject({ total: 4 });
      const all = await col.find({ status: 'open' });
      expect(all.total).toBe(6);
      expect(all.items).toHaveLength(6);
    });

    it('counts up to a bound and says when the total is only a lower bound', async () => {
      const col = await seeded();
      const bounded = await col.find({}, { sort: { amount: 1 }, page: 1, limit: 2, total: true, countUpTo: 5 });
      expect(bounded).toMatchObject({ total: 5, totalIsLowerBound: true, page: 1, limit: 2 });
      expect(amountsOf(bounded.items)).toEqual([1, 2]);
      // Fewer matches than the bound: the exact total, no flag.
      const exact = await col.find({ status: 'open' }, { page: 1, limit: 2, total: true, countUpTo: 7 });
      expect(exact.total).toBe(6);
      expect(exact.totalIsLowerBound).toBeUndefined();
      // A short page proves the exact total whatever the bound.
      const last = await col.find({}, { sort: { amount: 1 }, page: 3, limit: 4, total: true, countUpTo: 2 });
      expect(last).toMatchObject({ total: 10 });
      expect(last.totalIsLowerBound).toBeUndefined();
      await expectDomainError(col.find({}, { limit: 2, total: true, countUpTo: 0 }), ValidationError);
    });

    it('declared field types filter and sort as undeclared fields do', async () => {
      interface Row extends StoredDoc {
        org: string;
        status?: number | null;
        at?: string | null;
      }
      const declared = `typed_${++seq}`;
      const plain = `untyped_${++seq}`;
      await store.ensureCollection({
        name: declared,
        fieldTypes: { at: 'string', status: 'number' },
        indexes: [
          { name: 'org_at', fields: ['org', 'at', 'id'], descending: ['at'] },
          { name: 'org_status_at', fields: ['org', 'status', 'at', 'id'], descending: ['at'] },
        ],
      });
      await store.ensureCollection({ name: plain, indexes: [{ name: 'org_at', fields: ['org', 'at'] }] });
      const typed = store.collection<Row>(declared);
      const untyped = store.collection<Row>(plain);
      // No JSON nulls: the undeclared PostgreSQL order puts them apart from missing fields, where
      // MongoDB (and a declared field) ties them.
      const pairs: Array<[string | undefined, number | undefined]> = [
        ['2024-03-01T10:00:00.000Z', 1],
        ['2024-03-01T10:00:00.000Z', 2],
        ['2024-01-05T08:00:00.000Z', 1],
        ['2024-12-31T23:59:59.999Z', 10],
        ['2024-03-01T09:59:59.999Z', undefined],
        [undefined, 2],
        [undefined, 1],
        ['2024-02-29T00:00:00.000Z', undefined],
        ['a', 2],
        ['Z', 1],
      ];
      const rows: Array<Omit<Row, 'version'>> = pairs.map(([at, status], i) => ({
        id: `00000000000000000000000${i}`,
        org: i === 3 ? 'other' : 'one',
        ...(at !== undefined ? { at } : {}),
        ...(status !== undefined ? { status } : {}),
      }));
      await typed.insertMany(rows);
      await untyped.insertMany(rows);
      const ids = (page: { items: Row[] }) => page.items.map((r) => r.id);
      const same = async (filter: Filter, options: Parameters<typeof typed.find>[1] = {}) => {
        const want = ids(await untyped.find(filter, options));
        expect(ids(await typed.find(filter, options))).toEqual(want);
        return want;
      };
      expect(await same({ org: 'one' }, { sort: { at: -1 } })).toHaveLength(9);
      await same({ org: 'one' }, { sort: { at: 1 } });
      await same({}, { sort: { at: -1 }, page: 2, limit: 3 });
      await same({ org: 'one', status: { $in: [1] } }, { sort: { at: -1 } });
      await same({ org: 'one', status: { $in: [1, 2] } }, { sort: { at: -1 } });
      await same({ org: 'one', status: 2 }, { sort: { status: -1, at: 1 } });
      await same({}, { sort: { status: 1 } });
      expect(await same({ at: { $gte: '2024-03-01T00:00:00.000Z', $lte: '2024-03-01T23:59:59.999Z' } })).toHaveLength(
        3,
      );
      await same({ at: { $lt: 'a' } }, { sort: { at: 1 } });
      await same({ at: { $in: ['Z'] } });
      await same({ at: 'a' });
      await same({ status: { $gt: 1 } }, { sort: { status: -1 } });
      await same({ status: { $lte: 2 } }, { sort: { at: 1 } });
      expect(await typed.count({ org: 'one', at: { $gt: '2024' } })).toBe(
        await untyped.count({ org: 'one', at: { $gt: '2024' } }),
      );
    });

    it('replace with the current version bumps it; a stale version is a VERSION_CONFLICT', async () => {
      const col = await invoices();
      const created = await col.insert(invoice({ amount: 1 }));
      const { id: _id, version: _version, ...fields } = created;
      const replaced = await col.replace(created.id, 1, { ...fields, amount: 2, status: 'paid' });
      expect(replaced).toMatchObject({ id: created.id, version: 2, amount: 2, status: 'paid' });
      expect(await col.get(created.id)).toEqual(replaced);
      await expectDomainError(col.replace(created.id, 1, { ...fields, amount: 3 }), ConflictError, 'VERSION_CONFLICT');
      expect((await col.get(created.id))?.amount).toBe(2);
      await expectDomainError(col.replace(newObjectId(), 1, fields), NotFoundError);
    });

    it('replace(doc) takes the whole document: its id and version are the compare-and-set', async () => {
      const col = await invoices();
      const created = await col.insert(invoice({ amount: 1 }));
      const replaced = await col.replace({ ...created, amount: 2, status: 'paid' });
      expect(replaced).toMatchObject({ id: created.id, version: 2, amount: 2, status: 'paid' });
      expect(await col.get(created.id)).toEqual(replaced);
      await expectDomainError(col.replace({ ...created, amount: 3 }), ConflictError, 'VERSION_CONFLICT');
      expect((await col.get(created.id))?.amount).toBe(2);
      expect(await col.replace({ ...replaced, amount: 4 })).toMatchObject({ version: 3, amount: 4 });
      await expectDomainError(col.replace({ ...created, id: newObjectId() }), NotFoundError);
      await store.transaction(async (tx) => {
        const inTx = tx.collection<Invoice>(col.name);
        const current = await inTx.get(created.id);
        if (!current) throw new Error('the document vanished');
        await inTx.replace({ ...current, amount: 5 });
      });
      expect(await col.get(created.id)).toMatchObject({ version: 4, amount: 5 });
    });

    it('replace onto a taken unique key is a DUPLICATE_KEY', async () => {
      const col = await invoices();
      await col.insert(invoice({ number: 'R-1' }));
      const other = await col.insert(invoice({ number: 'R-2' }));
      const { id: _id, version: _version, ...fields } = other;
      await expectDomainError(col.replace(other.id, 1, { ...fields, number: 'R-1' }), ConflictError, 'DUPLICATE_KEY');
    });

    it('update retries under 20 concurrent increments and ends at exactly +20', async () => {
      const col = await invoices();
      const created = await col.insert(invoice({ amount: 0 }));
      await Promise.all(
        Array.from({ length: 20 }, () =>
          col.update(created.id, ({ id: _id, version: _version, ...doc }) => ({ ...doc, amount: doc.amount + 1 })),
        ),
      );
      const final = await col.get(created.id);
      expect(final?.amount).toBe(20);
      expect(final?.version).toBe(21);
    });

    it('replaceMany sets every document with compare-and-set, all or nothing in a transaction', async () => {
      const col = await invoices();
      const a = await col.insert(invoice({ number: 'M-1', amount: 1 }));
      const b = await col.insert(invoice({ number: 'M-2', amount: 2 }));
      const body = ({ id: _id, version: _version, ...rest }: Invoice) => rest;
      const out = await col.replaceMany([
        { id: a.id, expectedVersion: 1, next: { ...body(a), amount: 10 } },
        { id: b.id, expectedVersion: 1, next: { ...body(b), amount: 20 } },
      ]);
      expect(out.map((d) => [d.amount, d.version])).toEqual([
        [10, 2],
        [20, 2],
      ]);
      expect((await col.get(b.id))?.amount).toBe(20);
      await expectDomainError(
        store.transaction((tx) =>
          tx.collection<Invoice>(col.name).replaceMany([
            { id: a.id, expectedVersion: 2, next: { ...body(a), amount: 100 } },
            { id: b.id, expectedVersion: 1, next: { ...body(b), amount: 200 } },
          ]),
        ),
        ConflictError,
        'VERSION_CONFLICT',
      );
      expect([(await col.get(a.id))?.amount, (await col.get(b.id))?.amount]).toEqual([10, 20]);
      expect(await col.replaceMany([])).toEqual([]);
    });

    it('addToCounters creates the document, adds under 20 concurrent calls, and rolls back with its transaction', async () => {
      const name = `counters_${++seq}`;
      await store.ensureCollection({ name });
      type Counters = { id: string; version: number; owner: string; counters: Record<string, number> };
      const col = store.collection<Counters>(name);
      const id = 'c'.repeat(24);
      const other = 'd'.repeat(24);
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          col.addToCounters('counters', [
            { id, init: { owner: 'o1', counters: {} }, deltas: { n: 1, amount: 250, [`k${i % 2}`]: -1 } },
            { id: other, init: { owner: 'o2', counters: {} }, deltas: { n: 2 } },
          ]),
        ),
      );
      const after = await col.get(id);
      expect(after?.owner).toBe('o1');
      expect(after?.counters).toEqual({ n: 20, amount: 5000, k0: -10, k1: -10 });
      expect(after?.version).toBe(20);
      expect((await col.get(other))?.counters).toEqual({ n: 40 });
      await expect(
        store.transaction(async (tx) => {
          await tx
            .collection<Counters>(name)
            .addToCounters('counters', [{ id, init: { owner: 'o1', counters: {} }, deltas: { n: 5 } }]);
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect((await col.get(id))?.counters.n).toBe(20);
      await expect(
        col.addToCounters('counters', [{ id, init: { owner: 'o1', counters: {} }, deltas: { 'a.b': 1 } }]),
      ).rejects.toBeInstanceOf(ValidationError);
    });

    it('update leaves the document alone when mutate returns null, and rejects unknown ids', async () => {
      const col = await invoices();
      const created = await col.insert(invoice());
      expect(await col.update(created.id, () => null)).toEqual(created);
      expect((await col.get(created.id))?.version).toBe(1);
      await expectDomainError(
        col.update(newObjectId(), () => null),
        NotFoundError,
      );
    });

    it('update starts from a held document without reading it, and re-reads when it was stale', async () => {
      const col = await invoices();
      const v1 = await col.insert(invoice({ amount: 1 }));
      const seen: number[] = [];
      const bump = (cur: Invoice) => {
        seen.push(cur.version);
        const { id: _id, version: _v, ...fields } = cur;
        return { ...fields, amount: cur.amount + 1 };
      };
      const v2 = await col.update(v1.id, bump, undefined, v1);
      expect(v2).toMatchObject({ version: 2, amount: 2 });
      expect(seen).toEqual([1]);
      // Stale: another writer moved it to version 3; the held v2 loses and the fresh read wins.
      const { id: _id, version: _v, ...fields } = v2;
      await col.replace(v2.id, 2, { ...fields, amount: 10 });
      seen.length = 0;
      const v4 = await col.update(v2.id, bump, undefined, v2);
      expect(v4).toMatchObject({ version: 4, amount: 11 });
      expect(seen).toEqual([2, 3]);
      // "Leave it unchanged" is never decided on the held copy alone: the stale v2 says so, v4 does not.
      seen.length = 0;
      const v5 = await col.update(
        v4.id,
        (cur) => (cur.amount < 5 ? (seen.push(cur.version), null) : bump(cur)),
        undefined,
        v2,
      );
      expect(v5).toMatchObject({ version: 5, amount: 12 });
      expect(seen).toEqual([2, 4]);
    });

    it('delete and deleteMany', async () => {
      const col = await seeded();
      const victim = await col.findOne({ amount: 25 });
      expect(victim).not.toBeNull();
      expect(await col.delete(victim?.id ?? '')).toBe(true);
      expect(await col.delete(victim?.id ?? '')).toBe(false);
      expect(await col.get(victim?.id ?? '')).toBeNull();
      expect(await col.deleteMany({ status: 'paid' })).toBe(4);
      expect(await col.count({})).toBe(5);
      expect(await col.deleteMany({ amount: { $gt: 100000 } })).toBe(0);
    });

    it('a committed transaction writes documents and events together', async () => {
      const col = await invoices();
      const eventId = `evt-commit-${newObjectId()}`;
      const created = await store.transaction(async (tx) => {
        const doc = await tx.collection<Invoice>(col.name).insert(invoice({ number: 'TX-1' }));
        await tx.enqueue({
          id: eventId,
          subject: 'invoice.created',
          payload: { id: doc.id },
          headers: { 'x-request-id': 'r1' },
        });
        return doc;
      });
      expect(await col.get(created.id)).toEqual(created);
      const event = (await store.outbox.pending(1000)).find((e) => e.id === eventId);
      expect(event).toMatchObject({
        subject: 'invoice.created',
        payload: { id: created.id },
        headers: { 'x-request-id': 'r1' },
      });
      expect(Number.isNaN(Date.parse(event?.createdAt ?? ''))).toBe(false);
      await store.outbox.markPublished([eventId]);
    });

    it('a throw inside a transaction rolls back documents and events', async () => {
      const col = await invoices();
      const existing = await col.insert(invoice({ amount: 1 }));
      const eventId = `evt-rollback-${newObjectId()}`;
      const boom = new Error('boom');
      const err = await rejection(
        store.transaction(async (tx) => {
          const txCol = tx.collection<Invoice>(col.name);
          await txCol.insert(invoice({ number: 'TX-ROLLBACK' }));
          await txCol.update(existing.id, ({ id: _id, version: _version, ...doc }) => ({ ...doc, amount: 2 }));
          await tx.enqueue({ id: eventId, subject: 'invoice.created', payload: {}, headers: {} });
          throw boom;
        }),
      );
      expect(err).toBe(boom);
      expect(await col.count({ number: 'TX-ROLLBACK' })).toBe(0);
      expect(await col.get(existing.id)).toEqual(existing);
      expect((await store.outbox.pending(1000)).some((e) => e.id === eventId)).toBe(false);
    });

    it('outbox lists pending events oldest first and markPublished removes them', async () => {
      const prefix = `evt-order-${newObjectId()}`;
      const ids = [1, 2, 3].map((n) => `${prefix}-${n}`);
      for (const id of ids) {
        await store.transaction((tx) => tx.enqueue({ id, subject: 'test.order', payload: { id }, headers: {} }));
      }
      const mine = async () =>
        (await store.outbox.pending(1000)).filter((e) => e.id.startsWith(prefix)).map((e) => e.id);
      expect(await mine()).toEqual(ids);
      await store.outbox.markPublished(ids.slice(0, 2));
      expect(await mine()).toEqual(ids.slice(2));
      await store.outbox.markPublished(ids.slice(2));
      expect(await mine()).toEqual([]);
    });

    it('enqueueing the same event id twice keeps one event', async () => {
      const id = `evt-dup-${newObjectId()}`;
      await store.transaction((tx) => tx.enqueue({ id, subject: 'test.dup', payload: { n: 1 }, headers: {} }));
      await store.transaction(async (tx) => {
        await tx.enqueue({ id, subject: 'test.dup', payload: { n: 2 }, headers: {} });
        await tx.enqueue({ id, subject: 'test.dup', payload: { n: 3 }, headers: {} });
      });
      const events = (await store.outbox.pending(1000)).filter((e) => e.id === id);
      expect(events).toHaveLength(1);
      expect(events[0]?.payload).toEqual({ n: 1 });
      await store.outbox.markPublished([id]);
    });

    it('nextSequence is gapless and unique under 50 concurrent calls', async () => {
      const key = `seq-${newObjectId()}`;
      const values = await Promise.all(Array.from({ length: 50 }, () => store.nextSequence(key)));
      expect([...values].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect(await store.nextSequence(key)).toBe(51);
    });

    it('nextSequence honours startAt and a rolled-back transaction leaves no gap', async () => {
      const key = `invoice-number-${newObjectId()}`;
      expect(await store.nextSequence(key, 1000)).toBe(1000);
      expect(await store.transaction((tx) => tx.nextSequence(key))).toBe(1001);
      await rejection(
        store.transaction(async (tx) => {
          await tx.nextSequence(key);
          throw new Error('abandon');
        }),
      );
      expect(await store.nextSequence(key)).toBe(1002);
    });

    it('document numbering: concurrent transactions each draw a number and save the document with it, gapless', async () => {
      // As billing issues invoices: the counter and the numbered document commit together, the
      // number is unique (index), and a refused issue gives its number back.
      const col = await invoices();
      const key = `billing:invoice:${newObjectId()}:live:layout:2026`;
      const issue = (fail = false) =>
        store.transaction(async (tx) => {
          const n = await tx.nextSequence(key);
          await tx.collection<Invoice>(col.name).insert(invoice({ number: `INV-2026-${String(n).padStart(5, '0')}` }));
          if (fail) throw new Error('refused after drawing');
          return n;
        });
      const drawn = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 5 === 4 ? issue(true).catch(() => null) : issue())),
      );
      const kept = drawn.filter((n): n is number => n !== null).sort((a, b) => a - b);
      expect(kept).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
      const numbers = (await col.find({})).items.map((d) => d.number).sort();
      expect(numbers).toEqual(kept.map((n) => `INV-2026-${String(n).padStart(5, '0')}`));
    });

    it('insertNumbered stores each document with the next number, unique and gapless; a taken id gives its number back', async () => {
      const col = await invoices();
      const key = `numbered-${newObjectId()}`;
      const numbered = (id: string) =>
        store.transaction((tx) =>
          tx.insertNumbered<Invoice, 'seqNo'>(col.name, { ...invoice(), id }, { field: 'seqNo', key, startAt: 10 }),
        );
      const ids = Array.from({ length: 12 }, () => newObjectId());
      expect(await Promise.all(ids.map(numbered))).toEqual(ids);
      const stored = await Promise.all(ids.map((id) => col.get(id)));
      const numbers = stored.map((d) => d?.seqNo).sort((a, b) => Number(a) - Number(b));
      expect(numbers).toEqual(Array.from({ length: 12 }, (_, i) => i + 10));
      expect(stored.every((d) => d?.version === 1)).toBe(true);
      // A taken id: DUPLICATE_KEY, and the counter moved back with the transaction.
      const [first] = ids;
      await expectDomainError(numbered(first ?? ''), ConflictError);
      expect(await store.nextSequence(key)).toBe(22);
      await expectDomainError(
        // A dotted path is not a top-level field.
        store.transaction((tx) =>
          tx.insertNumbered<Invoice & { 'a.b'?: number }, 'a.b'>(col.name, invoice(), { field: 'a.b', key }),
        ),
        ValidationError,
      );
    });

    it('rejects NUL characters and lone surrogates in documents and filter values with ValidationError', async () => {
      const col = await invoices();
      const bad = ['nul \u0000 inside', 'lone high \ud800 surrogate', 'lone low \udc00 surrogate'];
      for (const text of bad) {
        await expectDomainError(col.insert(invoice({ note: text })), ValidationError);
        await expectDomainError(col.insert({ ...invoice(), billing: { country: 'DE', vatId: text } }), ValidationError);
        await expectDomainError(col.find({ note: text }), ValidationError);
        await expectDomainError(col.find({ 'billing.vatId': { $in: ['x', text] } }), ValidationError);
        await expectDomainError(col.count({ note: { $gte: text } }), ValidationError);
      }
      const key = JSON.parse('{"n\\u0000key": 1}') as Record<string, number>;
      await expectDomainError(col.insert({ ...invoice(), ...key }), ValidationError);
      const stored = await col.insert(invoice({ note: 'ok' }));
      const { id: _id, version, ...fields } = stored;
      await expectDomainError(col.replace(stored.id, version, { ...fields, note: 'x\u0000' }), ValidationError);
      // Nothing was written: only the one clean document exists, unchanged.
      expect(await col.count({})).toBe(1);
      expect(await col.get(stored.id)).toEqual(stored);
      // Text that merely looks like an escape, and paired surrogates, are fine.
      const fine = await col.insert(invoice({ note: 'backslash \\u0000 and emoji \u{1F600}' }));
      expect((await col.findOne({ note: fine.note! }))?.id).toBe(fine.id);
    });

    it('aggregate sums per group over matching documents, and over array elements with unwind', async () => {
      const name = `ledger_${++seq}`;
      await store.ensureCollection({ name, indexes: [{ name: 'org_day', fields: ['org', 'day'] }] });
      type Entry = StoredDoc & {
        org: string;
        day: string;
        country?: string | null;
        total: number;
        lines: { rate: number; net: number; tax?: number | string }[] | string;
      };
      const col = store.collection<Entry>(name);
      await col.insert({
        org: 'a',
        day: '2026-01-01',
        country: 'FR',
        total: 120,
        lines: [{ rate: 20, net: 100, tax: 20 }],
      });
      await col.insert({
        org: 'a',
        day: '2026-01-02',
        country: 'FR',
        total: -60,
        lines: [{ rate: 20, net: -50, tax: -10 }],
      });
      await col.insert({
        org: 'a',
        day: '2026-01-02',
        country: 'NL',
        total: 300,
        lines: [
          { rate: 21, net: 100, tax: 21 },
          { rate: 9, net: 100, tax: '9' },
        ],
      });
      await col.insert({ org: 'a', day: '2026-01-03', total: 7, lines: 'not an array' });
      await col.insert({
        org: 'b',
        day: '2026-01-01',
        country: 'FR',
        total: 1000,
        lines: [{ rate: 20, net: 1, tax: 1 }],
      });

      const byCountry = await col.aggregate(
        { org: 'a', day: { $in: ['2026-01-01', '2026-01-02', '2026-01-03'] } },
        { groupBy: ['country'], sum: ['total'] },
      );
      const sorted = [...byCountry].sort((x, y) => String(x.key.country).localeCompare(String(y.key.country)));
      expect(sorted).toEqual([
        { key: { country: 'FR' }, sums: { total: 60 }, count: 2 },
        { key: { country: 'NL' }, sums: { total: 300 }, count: 1 },
        { key: { country: null }, sums: { total: 7 }, count: 1 },
      ]);

      // Element paths group and sum per line; a non-number counts as 0; a non-array field contributes no row.
      const byRate = await col.aggregate(
        { org: 'a' },
        { unwind: 'lines', groupBy: ['country', 'lines.rate'], sum: ['lines.net', 'lines.tax'] },
      );
      const rates = [...byRate].sort((x, y) => Number(x.key['lines.rate']) - Number(y.key['lines.rate']));
      expect(rates).toEqual([
        { key: { country: 'NL', 'lines.rate': 9 }, sums: { 'lines.net': 100, 'lines.tax': 0 }, count: 1 },
        { key: { country: 'FR', 'lines.rate': 20 }, sums: { 'lines.net': 50, 'lines.tax': 10 }, count: 2 },
        { key: { country: 'NL', 'lines.rate': 21 }, sums: { 'lines.net': 100, 'lines.tax': 21 }, count: 1 },
      ]);

      // No group keys: one total row, none when nothing matches.
      expect(await col.aggregate({ org: 'b' }, { groupBy: [], sum: ['total'] })).toEqual([
        { key: {}, sums: { total: 1000 }, count: 1 },
      ]);
      expect(await col.aggregate({ org: 'c' }, { groupBy: [], sum: ['total'] })).toEqual([]);
      await expectDomainError(col.aggregate({}, { groupBy: ['a b'], sum: [] }), ValidationError);
      await expectDomainError(col.aggregate({}, { unwind: 'lines', groupBy: ['lines'], sum: [] }), ValidationError);
    });

    it('rejects bad field paths and operators with ValidationError', async () => {
      const col = await invoices();
      await expectDomainError(col.find({ "amount'); DROP TABLE x; --": 1 }), ValidationError);
      await expectDomainError(col.count({ 'billing..country': 'DE' }), ValidationError);
      await expectDomainError(col.find({}, { sort: { '1abc': 1 } }), ValidationError);
      await expectDomainError(col.find({ $where: 'true' }), ValidationError);
      const badOperator: Filter = JSON.parse('{"amount": {"$regex": "x"}}');
      await expectDomainError(col.find(badOperator), ValidationError);
      await expectDomainError(
        store.ensureCollection({ name: 'bad_index', indexes: [{ name: 'x', fields: ['a b'] }] }),
        ValidationError,
      );
      expect(() => store.collection('no-dashes')).toThrow(ValidationError);
    });
  });
}
