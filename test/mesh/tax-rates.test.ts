import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { DEFAULT_RATES } from '../../services/tax/src/domain/default-rates';
import { DEFAULT_RULES } from '../../services/tax/src/domain/default-rules';
import { api, startTestMesh, type TestMesh } from '../support/mesh';

const N = DEFAULT_RATES.length;
const first = DEFAULT_RATES[0]!;
const rate = (over: Record<string, unknown> = {}) => ({
  code: 'SHOP_BOOKS',
  country: 'at',
  rateType: 'reduced',
  percent: 10,
  categories: ['books'],
  validFrom: '2025-01-01',
  ...over,
});

describe('tax rates and rules over the Admin API', () => {
  let mesh: TestMesh;
  let A: BootstrapResult;
  const adm = (path: string) => `${mesh.adminBaseUrl}${path}`;
  const as = (token: string) => ({
    get: (p: string) => api('GET', adm(p), { token }),
    post: (p: string, body?: unknown) => api('POST', adm(p), { token, ...(body !== undefined ? { body } : {}) }),
    put: (p: string, body: unknown) => api('PUT', adm(p), { token, body }),
    del: (p: string) => api('DELETE', adm(p), { token }),
  });
  let a: ReturnType<typeof as>;

  async function orgKey(body: Record<string, unknown>): Promise<string> {
    const res = await api('POST', adm(`/organizations/${A.organizationId}/api-keys`), {
      token: A.apiKey,
      body: { name: `k-${Date.now()}`, ...body },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.token as string;
  }

  beforeAll(async () => {
    mesh = await startTestMesh();
    A = await mesh.bootstrap();
    a = as(A.apiKey);
  });
  afterAll(async () => {
    await mesh?.dispose();
  });

  it('seeds the managed defaults on first read, and creates, reads, filters, pages, updates and deletes rates', async () => {
    const seeded = await a.get('/tax-rates?limit=100');
    expect(seeded.status, JSON.stringify(seeded.body)).toBe(200);
    expect(seeded.body).toMatchObject({ total: N, page: 1, limit: 100 });
    expect(seeded.body.items.every((r: { managed: boolean; source: string | null }) => r.managed && r.source)).toBe(
      true,
    );
    expect((await a.get('/tax-rates')).body.limit).toBe(50);

    const created = await a.post('/tax-rates', rate({ validTo: '2026-01-01', description: 'books at the shop rate' }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      code: 'SHOP_BOOKS',
      country: 'AT',
      percent: 10,
      managed: false,
      source: null,
      validTo: '2026-01-01',
    });
    const id = created.body.id as string;
    expect(created.body).not.toHaveProperty('defaultKey');
    expect((await a.get(`/tax-rates/${id}`)).body).toEqual(created.body);

    const next = await a.post('/tax-rates', rate({ validFrom: '2026-01-01', percent: 9.5 }));
    expect(next.status, JSON.stringify(next.body)).toBe(201);
    const byCode = await a.get('/tax-rates?code=SHOP_BOOKS');
    expect(byCode.body.items.map((r: { percent: number }) => r.percent)).toEqual([10, 9.5]);
    expect(
      (await a.get('/tax-rates?code=SHOP_BOOKS&validOn=2025-12-31')).body.items.map((r: { id: string }) => r.id),
    ).toEqual([id]);
    expect(
      (await a.get('/tax-rates?code=SHOP_BOOKS&validOn=2026-01-01')).body.items.map((r: { id: string }) => r.id),
    ).toEqual([next.body.id]);
    expect((await a.get('/tax-rates?managed=false')).body.total).toBe(2);
    expect((await a.get('/tax-rates?managed=true&limit=100')).body.total).toBe(N);
    const de = await a.get(`/tax-rates?country=${first.country.toLowerCase()}&rateType=${first.rateType}&limit=100`);
    expect(de.body.items.length).toBe(
      DEFAULT_RATES.filter((r) => r.country === first.country && r.rateType === first.rateType).length,
    );
    const p1 = await a.get('/tax-rates?limit=1&page=1');
    const p2 = await a.get('/tax-rates?limit=1&page=2');
    expect(p1.body).toMatchObject({ total: N + 2, limit: 1, page: 1 });
    expect(p1.body.items[0].id).not.toBe(p2.body.items[0].id);

    const updated = await a.put(`/tax-rates/${id}`, { percent: 10.5, description: null });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ id, percent: 10.5, description: null, code: 'SHOP_BOOKS', managed: false });

    // Editing a managed default makes it the merchant's own.
    const managed = seeded.body.items.find(
      (r: { code: string; validFrom: string }) => r.code === first.code && r.validFrom === first.validFrom,
    );
    const mine = await a.put(`/tax-rates/${managed.id}`, { description: 'checked by our accountant' });
    expect(mine.body).toMatchObject({ id: managed.id, managed: false, percent: first.percent });

    expect((await a.del(`/tax-rates/${next.body.id}`)).status).toBe(204);
    expect((await a.get(`/tax-rates/${next.body.id}`)).status).toBe(404);
    expect((await a.del(`/tax-rates/${next.body.id}`)).status).toBe(404);
  });

  it('refuses bad input with 400/404/409 in the envelope and changes nothing', async () => {
    const before = (await a.get('/tax-rates?limit=100')).body;
    const existing = before.items[0];
    const bad: [string, () => Promise<{ status: number; body: any; headers: Headers }>, number, RegExp][] = [
      ['unknown country', () => a.post('/tax-rates', rate({ code: 'BAD_1', country: 'XX' })), 400, /country/],
      ['percent 101', () => a.post('/tax-rates', rate({ code: 'BAD_2', percent: 101 })), 400, /percent/],
      [
        'percent 7.555',
        () => a.post('/tax-rates', rate({ code: 'BAD_3', percent: 7.555 })),
        400,
        /percent: must have at most two decimals/,
      ],
      [
        'validTo before validFrom',
        () => a.post('/tax-rates', rate({ code: 'BAD_4', validTo: '2024-12-31' })),
        400,
        /validTo must be after validFrom/,
      ],
      ['not a day', () => a.post('/tax-rates', rate({ code: 'BAD_5', validFrom: '2025-02-30' })), 400, /validFrom/],
      ['unknown field', () => a.post('/tax-rates', rate({ code: 'BAD_6', managed: true })), 400, /Unrecognized key/],
      ['lower-case code', () => a.post('/tax-rates', rate({ code: 'bad' })), 400, /code/],
      ['limit over 100', () => a.get('/tax-rates?limit=101'), 400, /querystring\.limit/],
      ['bad validOn', () => a.get('/tax-rates?validOn=yesterday'), 400, /validOn/],
      ['bad managed', () => a.get('/tax-rates?managed=yes'), 400, /managed/],
      ['unknown id', () => a.get('/tax-rates/ffffffffffffffffffffffff'), 404, /not found/],
      ['malformed id', () => a.get('/tax-rates/xyz'), 400, /params\.id/],
      ['update unknown id', () => a.put('/tax-rates/ffffffffffffffffffffffff', { percent: 5 }), 404, /not found/],
      ['update malformed id', () => a.put('/tax-rates/123', { percent: 5 }), 400, /params\.id/],
      ['update nothing', () => a.put(`/tax-rates/${existing.id}`, {}), 400, /at least one field/],
      ['update percent 101', () => a.put(`/tax-rates/${existing.id}`, { percent: 101 }), 400, /percent/],
      [
        'update validTo before validFrom',
        () => a.put(`/tax-rates/${existing.id}`, { validTo: '2000-01-01' }),
        400,
        /validTo/,
      ],
      ['update unknown field', () => a.put(`/tax-rates/${existing.id}`, { managed: true }), 400, /Unrecognized key/],
      ['delete unknown id', () => a.del('/tax-rates/ffffffffffffffffffffffff'), 404, /not found/],
      ['delete-all with a filter', () => a.del('/tax-rates?country=DE'), 400, /querystring/],
      [
        'rule with unknown country',
        () => a.post('/tax-rules', { name: 'x', country: 'QQ', rateType: 'zero' }),
        400,
        /country/,
      ],
      ['rule with unknown rate type', () => a.post('/tax-rules', { name: 'x', rateType: 'half' }), 400, /rateType/],
      ['rule limit over 100', () => a.get('/tax-rules?limit=1000'), 400, /querystring\.limit/],
      ['rule update unknown id', () => a.put('/tax-rules/ffffffffffffffffffffffff', { priority: 1 }), 404, /not found/],
      ['rule delete malformed id', () => a.del('/tax-rules/nope'), 400, /params\.id/],
      ['delete-all rules with a filter', () => a.del('/tax-rules?x=1'), 400, /querystring/],
    ];
    for (const [label, call, status, msg] of bad) {
      const res = await call();
      expect(res.status, `${label}: ${JSON.stringify(res.body)}`).toBe(status);
      expect(res.body.error, label).toMatch(msg);
      expect(res.headers.get('x-request-id'), label).toBeTruthy();
    }
    // Conflicts carry their code.
    const dup = await a.post(
      '/tax-rates',
      rate({ code: first.code, country: first.country, validFrom: first.validFrom, percent: 1 }),
    );
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('TAX_RATE_EXISTS');
    const overlap = await a.post('/tax-rates', rate({ validFrom: '2025-06-01' }));
    expect(overlap.status, JSON.stringify(overlap.body)).toBe(409);
    expect(overlap.body).toMatchObject({ code: 'TAX_RATE_OVERLAP' });
    expect((await a.get('/tax-rates?limit=100')).body).toEqual(before);
  });

  it('delete-all empties the book for good; replace-defaults brings back the managed rates and leaves custom ones', async () => {
    const total = (await a.get('/tax-rates')).body.total as number;
    const wiped = await a.del('/tax-rates');
    expect(wiped.status).toBe(200);
    expect(wiped.body).toEqual({ deleted: total });
    expect((await a.get('/tax-rates')).body.total).toBe(0);
    const custom = await a.post('/tax-rates', rate({ code: 'SHOP_KEEP', country: 'DE', validFrom: '2024-01-01' }));
    expect(custom.status).toBe(201);

    const preview = await a.get('/tax-rates/replace-defaults/preview');
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body).toMatchObject({ update: [], retire: [], unchanged: 0, skipped: [] });
    expect(preview.body.create).toHaveLength(N);
    // A preview changes nothing.
    expect((await a.get('/tax-rates')).body.total).toBe(1);
    const synced = await a.post('/tax-rates/replace-defaults');
    expect(synced.status, JSON.stringify(synced.body)).toBe(200);
    // The preview named what the sync then did.
    expect(
      synced.body.created.map(
        ({ id: _id, managed: _m, createdAt: _c, updatedAt: _u, ...draft }: Record<string, unknown>) => draft,
      ),
    ).toEqual(preview.body.create);
    expect(synced.body).toMatchObject({ updated: [], retired: [], unchanged: 0, skipped: [] });
    expect(typeof synced.body.defaultsVersion).toBe('string');
    expect(synced.body.created).toHaveLength(N);
    const again = await a.post('/tax-rates/replace-defaults');
    expect(again.body).toMatchObject({ created: [], updated: [], retired: [], unchanged: N });
    const list = await a.get('/tax-rates?limit=100');
    expect(list.body.total).toBe(N + 1);
    expect(list.body.items.find((r: { id: string }) => r.id === custom.body.id)).toEqual(custom.body);
    expect((await a.post('/tax-rates/replace-defaults?force=1')).status).toBe(400);
    expect((await a.get('/tax-rates/replace-defaults/preview')).body).toMatchObject({ create: [], unchanged: N });
    expect((await a.get('/tax-rates/replace-defaults/preview?force=1')).status).toBe(400);
  });

  it('manages rules: seeded defaults, CRUD in specificity order, populate-defaults restores deleted defaults only', async () => {
    const seeded = await a.get('/tax-rules');
    expect(seeded.status).toBe(200);
    expect(seeded.body).toMatchObject({ total: DEFAULT_RULES.length, limit: 50 });
    const pop = await a.post('/tax-rules/populate-defaults');
    expect(pop.status).toBe(200);
    expect(pop.body).toEqual({ created: [] });

    const r = await a.post('/tax-rules', {
      name: 'E-books in DE',
      itemType: 'digital_service',
      category: 'ebooks',
      country: 'de',
      rateType: 'reduced',
      priority: 3,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toMatchObject({ country: 'DE', managed: false, priority: 3 });
    const listed = (await a.get('/tax-rules')).body.items.map((x: { id: string }) => x.id);
    expect(listed[0]).toBe(r.body.id);
    const upd = await a.put(`/tax-rules/${r.body.id}`, { priority: 4, country: null });
    expect(upd.body).toMatchObject({ id: r.body.id, priority: 4, country: null, category: 'ebooks' });

    const def = seeded.body.items[0];
    expect((await a.del(`/tax-rules/${def.id}`)).status).toBe(204);
    const draft = await a.get('/tax-rules/populate-defaults/preview');
    expect(draft.status, JSON.stringify(draft.body)).toBe(200);
    expect(draft.body.create).toEqual([
      {
        name: def.name,
        itemType: def.itemType,
        category: def.category,
        country: def.country,
        rateType: def.rateType,
        priority: def.priority,
        description: def.description,
      },
    ]);
    const restored = await a.post('/tax-rules/populate-defaults');
    expect(restored.body.created).toHaveLength(1);
    expect(restored.body.created[0]).toMatchObject({ name: def.name, rateType: def.rateType, managed: true });
    expect((await a.post('/tax-rules/populate-defaults')).body).toEqual({ created: [] });
    expect((await a.get('/tax-rules/populate-defaults/preview')).body).toEqual({ create: [] });

    const wiped = await a.del('/tax-rules');
    expect(wiped.body).toEqual({ deleted: DEFAULT_RULES.length + 1 });
    expect((await a.get('/tax-rules')).body.total).toBe(0);
    expect((await a.post('/tax-rules/populate-defaults')).body.created).toHaveLength(DEFAULT_RULES.length);
  });

  it('keeps test-mode data apart and enforces tax_rate / tax_rule scopes and the Admin role', async () => {
    const testKey = await orgKey({ mode: 'test', scopes: ['tax_rate:read', 'tax_rate:create'], role: 'Admin' });
    const t = as(testKey);
    const mine = await t.post('/tax-rates', rate({ code: 'TEST_ONLY' }));
    expect(mine.status).toBe(201);
    expect((await a.get(`/tax-rates/${mine.body.id}`)).status).toBe(404);
    expect((await a.get('/tax-rates?code=TEST_ONLY')).body.total).toBe(0);
    expect((await t.get('/tax-rates?code=TEST_ONLY')).body.total).toBe(1);

    const noRead = as(await orgKey({ scopes: ['tax_rule:read', 'tax_rate:create'], role: 'Admin' }));
    const denied = await noRead.get('/tax-rates');
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('missing scope tax_rate:read');
    expect((await noRead.get('/tax-rules')).status).toBe(200);
    expect((await noRead.post('/tax-rates/replace-defaults')).body.error).toBe('missing scope tax_rate:execute');
    expect((await noRead.post('/tax-rules/populate-defaults')).body.error).toBe('missing scope tax_rule:create');

    const editor = as(await orgKey({ scopes: ['tax_rate:read', 'tax_rule:read'], role: 'Editor' }));
    const low = await editor.get('/tax-rates');
    expect(low.status).toBe(403);
    expect(low.body.error).toBe('role Admin required');
    expect((await editor.get('/tax-rules')).body.error).toBe('role Admin required');
  });
});
