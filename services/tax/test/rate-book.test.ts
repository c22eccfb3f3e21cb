import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  taxRateCreate,
  taxRateListQuery,
  taxRuleCreate,
  taxRuleListQuery,
  type TaxRateCreate,
} from '@paymesh/contracts';
import { DEFAULT_RATES } from '../src/domain/default-rates';
import { DEFAULT_RULES } from '../src/domain/default-rules';
import { defaultRateKey, rateDocBody, defaultRateFields, type TaxRateDoc } from '../src/domain/tax-rate-doc';
import type { TaxRuleDoc } from '../src/domain/tax-rule-doc';
import { TAX_RATE_BOOKS, TAX_RATES, TAX_RULES } from '../src/store/collections';
import type { OrgKey } from '../src/app/deps';
import { loadRateBook } from '../src/app/rate-book';
import { listTaxRates } from '../src/app/list-tax-rates';
import { getTaxRate } from '../src/app/get-tax-rate';
import { createTaxRate } from '../src/app/create-tax-rate';
import { updateTaxRate } from '../src/app/update-tax-rate';
import { deleteTaxRate } from '../src/app/delete-tax-rate';
import { deleteAllTaxRates } from '../src/app/delete-all-tax-rates';
import { replaceDefaultTaxRates } from '../src/app/replace-default-tax-rates';
import { listTaxRules } from '../src/app/list-tax-rules';
import { createTaxRule } from '../src/app/create-tax-rule';
import { updateTaxRule } from '../src/app/update-tax-rule';
import { deleteTaxRule } from '../src/app/delete-tax-rule';
import { deleteAllTaxRules } from '../src/app/delete-all-tax-rules';
import { populateDefaultTaxRules } from '../src/app/populate-default-tax-rules';
import { openTaxHarness, type TaxHarness } from './harness';

const N = DEFAULT_RATES.length;
const first = DEFAULT_RATES[0]!;
const all = taxRateListQuery.parse({ limit: 100 });
const allRules = taxRuleListQuery.parse({ limit: 100 });
const custom = (over: Partial<TaxRateCreate> = {}) =>
  taxRateCreate.parse({
    code: 'SHOP_SPECIAL',
    country: 'AT',
    rateType: 'reduced',
    percent: 10,
    categories: ['books'],
    validFrom: '2025-01-01',
    ...over,
  });

describe('rate book on PostgreSQL', () => {
  let h: TaxHarness;
  /** Every rate of a book, page by page (the defaults alone fill more than one page). */
  async function everyRate(k: OrgKey) {
    const out = [];
    for (let page = 1; ; page++) {
      const p = await listTaxRates(h.deps, k, { ...all, page });
      out.push(...p.items);
      if (out.length >= p.total) return out;
    }
  }
  const rateCount = (k: OrgKey) =>
    h.store.collection<TaxRateDoc>(TAX_RATES).count({ organizationId: k.organizationId, mode: k.mode });

  beforeAll(async () => {
    h = await openTaxHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('seeds a book exactly once under concurrent first reads, and every reader sees the whole book', async () => {
    const k = h.org();
    const cached = h.replica(5000);
    const [reads, lists] = await Promise.all([
      Promise.all([
        ...Array.from({ length: 6 }, () => loadRateBook(h.deps, k)),
        ...Array.from({ length: 3 }, () => loadRateBook(cached.deps, k)),
      ]),
      Promise.all(Array.from({ length: 3 }, () => listTaxRates(h.deps, k, all))),
    ]);
    for (const r of reads) expect(r.rates).toHaveLength(N);
    for (const l of lists) expect(l.total).toBe(N);
    expect(await rateCount(k)).toBe(N);
    expect(
      await h.store.collection<TaxRuleDoc>(TAX_RULES).count({ organizationId: k.organizationId, mode: k.mode }),
    ).toBe(DEFAULT_RULES.length);
    expect(await h.store.collection(TAX_RATE_BOOKS).count({ organizationId: k.organizationId, mode: k.mode })).toBe(1);
    const book = await loadRateBook(h.deps, k);
    expect(book.rules).toHaveLength(DEFAULT_RULES.length);
    expect(book.rates.map((r) => `${r.code}@${r.validFrom}`).sort()).toEqual(DEFAULT_RATES.map(defaultRateKey).sort());
    const listed = await everyRate(k);
    expect(listed).toHaveLength(N);
    expect(listed.every((r) => r.managed && r.source !== null)).toBe(true);
    expect(listed.find((r) => r.code === first.code && r.validFrom === first.validFrom)).toMatchObject({
      percent: first.percent,
      country: first.country,
    });
  });

  it('keeps live and test books apart, and other organizations out', async () => {
    const live = h.org('live');
    const test: OrgKey = { ...live, mode: 'test' };
    const created = await createTaxRate(h.deps, live, custom());
    expect((await listTaxRates(h.deps, test, all)).items.some((r) => r.id === created.id)).toBe(false);
    await expect(getTaxRate(h.deps, test, created.id)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(getTaxRate(h.deps, h.org(), created.id)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(deleteTaxRate(h.deps, h.org(), created.id)).rejects.toMatchObject({ kind: 'not_found' });
    expect((await getTaxRate(h.deps, live, created.id)).code).toBe('SHOP_SPECIAL');
  });

  it('never seeds again: a book emptied by delete-all stays empty until replace-defaults', async () => {
    const k = h.org();
    const mine = await createTaxRate(h.deps, k, custom());
    expect(await deleteAllTaxRates(h.deps, k)).toEqual({ deleted: N + 1 });
    expect((await listTaxRates(h.deps, k, all)).total).toBe(0);
    expect((await loadRateBook(h.deps, k)).rates).toEqual([]);
    await expect(getTaxRate(h.deps, k, mine.id)).rejects.toMatchObject({ kind: 'not_found' });

    const synced = await replaceDefaultTaxRates(h.deps, k);
    expect(synced.created).toHaveLength(N);
    expect(synced).toMatchObject({ updated: [], retired: [], unchanged: 0, skipped: [] });
    expect(synced.created.every((r) => r.managed)).toBe(true);
    const again = await replaceDefaultTaxRates(h.deps, k);
    expect(again).toMatchObject({ created: [], updated: [], retired: [], unchanged: N, skipped: [] });
    expect(await rateCount(k)).toBe(N);
  });

  it('replace-defaults leaves custom rates and edited defaults alone, updates stale managed rates and retires old ones', async () => {
    const k = h.org();
    const mine = await createTaxRate(h.deps, k, custom());
    const managed = (await listTaxRates(h.deps, k, { ...all, code: first.code })).items.find(
      (r) => r.validFrom === first.validFrom,
    )!;
    // A merchant edit turns the default into the merchant's own rate.
    const edited = await updateTaxRate(h.deps, k, managed.id, { percent: 12.5, description: 'our negotiated rate' });
    expect(edited).toMatchObject({ id: managed.id, managed: false, percent: 12.5, source: managed.source });
    // A managed rate that drifted from its default, and one whose default no longer exists.
    const rates = h.store.collection<TaxRateDoc>(TAX_RATES);
    const second = DEFAULT_RATES[1];
    let drifted: TaxRateDoc | undefined;
    if (second) {
      drifted = (await rates.findOne({
        organizationId: k.organizationId,
        mode: k.mode,
        defaultKey: defaultRateKey(second),
      }))!;
      drifted = await rates.update(drifted.id, (d) => ({ ...d, percent: d.percent + 1, source: 'outdated' }));
    }
    const old = { ...first, code: 'VAT_ZZ_RETIRED', country: 'FR', validFrom: '2019-01-01', validTo: '2020-01-01' };
    const retired = await rates.insert(
      rateDocBody(k, defaultRateFields(old), {
        managed: true,
        defaultKey: defaultRateKey(old),
        createdAt: 'x',
        updatedAt: 'x',
      }),
    );
    const mineBefore = (await rates.get(mine.id))!;

    const res = await replaceDefaultTaxRates(h.deps, k);
    expect(res.retired).toEqual([retired.id]);
    expect(res.skipped).toEqual([
      { code: first.code, validFrom: first.validFrom, reason: 'customized', rateId: managed.id },
    ]);
    expect(res.created).toEqual([]);
    if (second && drifted) {
      expect(res.updated.map((r) => r.id)).toEqual([drifted.id]);
      expect(res.updated[0]).toMatchObject({ percent: second.percent, source: second.source, managed: true });
    }
    expect(res.unchanged).toBe(N - 1 - (second ? 1 : 0));
    expect(await rates.get(mine.id)).toEqual(mineBefore);
    expect(await getTaxRate(h.deps, k, managed.id)).toMatchObject({ percent: 12.5, managed: false });
    expect(await rates.get(retired.id)).toBeNull();
    expect(await replaceDefaultTaxRates(h.deps, k)).toMatchObject({ created: [], updated: [], retired: [] });

    // Once the merchant deletes their edit, the default comes back.
    await deleteTaxRate(h.deps, k, managed.id);
    const back = await replaceDefaultTaxRates(h.deps, k);
    expect(back.created.map((r) => [r.code, r.validFrom, r.percent, r.managed])).toEqual([
      [first.code, first.validFrom, first.percent, true],
    ]);
  });

  it('concurrent replace-defaults create each missing default once', async () => {
    const k = h.org();
    await deleteAllTaxRates(h.deps, k);
    const results = await Promise.all([
      replaceDefaultTaxRates(h.deps, k),
      replaceDefaultTaxRates(h.deps, k),
      replaceDefaultTaxRates(h.deps, k),
    ]);
    expect(results.reduce((n, r) => n + r.created.length, 0)).toBe(N);
    expect(await rateCount(k)).toBe(N);
  });

  it('refuses a duplicate code and first day, overlapping periods of one code, and bad fields, writing nothing', async () => {
    const k = h.org();
    const a = await createTaxRate(h.deps, k, custom({ validFrom: '2025-01-01', validTo: '2026-01-01' }));
    const before = await everyRate(k);
    await expect(createTaxRate(h.deps, k, custom({ validFrom: '2025-01-01', percent: 11 }))).rejects.toMatchObject({
      code: 'TAX_RATE_EXISTS',
      kind: 'conflict',
    });
    await expect(createTaxRate(h.deps, k, custom({ validFrom: '2025-06-01' }))).rejects.toMatchObject({
      code: 'TAX_RATE_OVERLAP',
    });
    await expect(createTaxRate(h.deps, k, custom({ validFrom: '2024-01-01', validTo: null }))).rejects.toMatchObject({
      code: 'TAX_RATE_OVERLAP',
    });
    await expect(
      createTaxRate(h.deps, k, { ...first, categories: [...first.categories], description: null }),
    ).rejects.toMatchObject({ code: 'TAX_RATE_EXISTS' });
    await expect(createTaxRate(h.deps, k, custom({ country: 'XX' }))).rejects.toMatchObject({
      kind: 'validation',
      field: 'country',
    });
    await expect(
      createTaxRate(h.deps, k, custom({ validFrom: '2027-01-01', validTo: '2026-01-01' })),
    ).rejects.toMatchObject({ field: 'validTo' });
    await expect(updateTaxRate(h.deps, k, a.id, { validTo: '2024-12-31' })).rejects.toMatchObject({ field: 'validTo' });
    await expect(updateTaxRate(h.deps, k, a.id, {})).rejects.toMatchObject({ kind: 'validation' });
    await expect(updateTaxRate(h.deps, k, 'nope', { percent: 1 })).rejects.toMatchObject({
      kind: 'validation',
      field: 'id',
    });
    await expect(updateTaxRate(h.deps, k, 'f'.repeat(24), { percent: 1 })).rejects.toMatchObject({ kind: 'not_found' });
    expect(await everyRate(k)).toEqual(before);
    // The next period of the same code starts where the first ends (validTo is exclusive).
    const next = await createTaxRate(h.deps, k, custom({ validFrom: '2026-01-01', percent: 13 }));
    expect(next.validTo).toBeNull();
    // Moving a rate onto its successor's period is refused, shortening it is fine.
    await expect(updateTaxRate(h.deps, k, a.id, { validTo: '2026-02-01' })).rejects.toMatchObject({
      code: 'TAX_RATE_OVERLAP',
    });
    expect(await updateTaxRate(h.deps, k, a.id, { validTo: '2025-12-01' })).toMatchObject({
      validTo: '2025-12-01',
      managed: false,
    });
  });

  it('lists with filters, in country, code, validFrom order, one page at a time', async () => {
    const k = h.org();
    await createTaxRate(
      h.deps,
      k,
      custom({ code: 'SHOP_A', validFrom: '2024-01-01', validTo: '2025-01-01', percent: 9 }),
    );
    await createTaxRate(h.deps, k, custom({ code: 'SHOP_A', validFrom: '2025-01-01', percent: 8 }));
    const both = await listTaxRates(h.deps, k, { ...all, code: 'SHOP_A' });
    expect(both.items.map((r) => r.percent)).toEqual([9, 8]);
    expect(
      (await listTaxRates(h.deps, k, { ...all, code: 'SHOP_A', validOn: '2024-12-31' })).items.map((r) => r.percent),
    ).toEqual([9]);
    expect(
      (await listTaxRates(h.deps, k, { ...all, code: 'SHOP_A', validOn: '2025-01-01' })).items.map((r) => r.percent),
    ).toEqual([8]);
    expect((await listTaxRates(h.deps, k, { ...all, code: 'SHOP_A', validOn: '2023-12-31' })).total).toBe(0);
    expect((await listTaxRates(h.deps, k, { ...all, managed: false })).total).toBe(2);
    expect((await listTaxRates(h.deps, k, { ...all, managed: true })).total).toBe(N);
    expect((await listTaxRates(h.deps, k, { ...all, country: 'AT', rateType: 'reduced' })).total).toBe(
      2 + DEFAULT_RATES.filter((r) => r.country === 'AT' && r.rateType === 'reduced').length,
    );
    const full = { items: await everyRate(k) };
    const order = full.items.map((r) => [r.country, r.code, r.validFrom].join('|'));
    expect(order).toEqual([...order].sort());
    const p1 = await listTaxRates(h.deps, k, { ...all, limit: 1, page: 1 });
    const p2 = await listTaxRates(h.deps, k, { ...all, limit: 1, page: 2 });
    expect(p1).toMatchObject({ total: N + 2, page: 1, limit: 1 });
    expect(p1.items[0]?.id).not.toBe(p2.items[0]?.id);
    await expect(listTaxRates(h.deps, k, { ...all, validOn: '2025-02-30' })).rejects.toMatchObject({
      field: 'validOn',
    });
  });

  it("a replica sees its own writes at once and another replica's within its cache TTL", async () => {
    const k = h.org();
    const a = h.replica(5000);
    const b = h.replica(5000);
    const codesOf = async (deps: typeof a.deps) => (await loadRateBook(deps, k)).rates.map((r) => r.code);
    expect(await codesOf(a.deps)).toHaveLength(N);
    expect(await codesOf(b.deps)).toHaveLength(N);
    await createTaxRate(a.deps, k, custom({ code: 'SHOP_CACHED' }));
    expect(await codesOf(a.deps)).toContain('SHOP_CACHED');
    b.advance(4999);
    expect(await codesOf(b.deps)).not.toContain('SHOP_CACHED');
    b.advance(1);
    expect(await codesOf(b.deps)).toContain('SHOP_CACHED');
  });

  it('rules: CRUD, order by specificity then priority, populate-defaults restores deleted defaults only', async () => {
    const k = h.org();
    const seeded = await listTaxRules(h.deps, k, allRules);
    expect(seeded.total).toBe(DEFAULT_RULES.length);
    expect(seeded.items.every((r) => r.managed)).toBe(true);
    expect(await populateDefaultTaxRules(h.deps, k)).toEqual({ created: [] });

    const low = await createTaxRule(
      h.deps,
      k,
      taxRuleCreate.parse({ name: 'Books in DE', country: 'de', category: 'books', rateType: 'reduced', priority: 1 }),
    );
    const high = await createTaxRule(
      h.deps,
      k,
      taxRuleCreate.parse({
        name: 'Books in DE (override)',
        country: 'DE',
        category: 'books',
        rateType: 'zero',
        priority: 5,
      }),
    );
    const broad = await createTaxRule(
      h.deps,
      k,
      taxRuleCreate.parse({ name: 'Ebooks', category: 'ebooks', rateType: 'reduced', priority: 100 }),
    );
    expect(low.country).toBe('DE');
    const ids = (await listTaxRules(h.deps, k, allRules)).items.map((r) => r.id);
    expect(ids.indexOf(high.id)).toBeLessThan(ids.indexOf(low.id));
    expect(ids.indexOf(low.id)).toBeLessThan(ids.indexOf(broad.id));
    await expect(
      createTaxRule(h.deps, k, taxRuleCreate.parse({ name: 'x', country: 'QQ', rateType: 'zero' })),
    ).rejects.toMatchObject({ field: 'country' });

    const def = seeded.items[0]!;
    const defaultName = def.name;
    const edited = await updateTaxRule(h.deps, k, def.id, { priority: 7, name: 'Mine now' });
    expect(edited).toMatchObject({ managed: false, priority: 7, name: 'Mine now', rateType: def.rateType });
    expect(await populateDefaultTaxRules(h.deps, k)).toEqual({ created: [] });
    await deleteTaxRule(h.deps, k, def.id);
    const restored = await populateDefaultTaxRules(h.deps, k);
    expect(restored.created).toHaveLength(1);
    expect(restored.created[0]).toMatchObject({ name: defaultName, rateType: def.rateType, managed: true });
    expect(restored.created[0]?.id).not.toBe(def.id);
    expect(await populateDefaultTaxRules(h.deps, k)).toEqual({ created: [] });

    expect(await deleteAllTaxRules(h.deps, k)).toEqual({ deleted: DEFAULT_RULES.length + 3 });
    expect((await listTaxRules(h.deps, k, allRules)).total).toBe(0);
    expect((await loadRateBook(h.deps, k)).rules).toEqual([]);
    expect((await populateDefaultTaxRules(h.deps, k)).created).toHaveLength(DEFAULT_RULES.length);
    await expect(deleteTaxRule(h.deps, k, low.id)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('answers unknown ids of a book never used without seeding it', async () => {
    const k = h.org();
    await expect(getTaxRate(h.deps, k, 'a'.repeat(24))).rejects.toMatchObject({ kind: 'not_found' });
    await expect(updateTaxRate(h.deps, k, 'a'.repeat(24), { percent: 3 })).rejects.toMatchObject({ kind: 'not_found' });
    await expect(deleteTaxRule(h.deps, k, 'a'.repeat(24))).rejects.toMatchObject({ kind: 'not_found' });
    expect(await h.store.collection(TAX_RATE_BOOKS).count({ organizationId: k.organizationId })).toBe(0);
    expect(await rateCount(k)).toBe(0);
  });
});
