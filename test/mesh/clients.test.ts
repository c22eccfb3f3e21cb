import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { api, startTestMesh, type TestMesh } from '../support/mesh';

const VAT = 'DE136695976';
const LEITWEG = '992-90009-96';

describe('billing clients over the Admin API', () => {
  let mesh: TestMesh;
  let A: BootstrapResult;
  let B: BootstrapResult;
  const adm = (path: string) => `${mesh.adminBaseUrl}${path}`;
  const as = (token: string) => ({
    get: (p: string) => api('GET', adm(p), { token }),
    post: (p: string, body?: unknown) => api('POST', adm(p), { token, ...(body !== undefined ? { body } : {}) }),
    put: (p: string, body: unknown) => api('PUT', adm(p), { token, body }),
    del: (p: string) => api('DELETE', adm(p), { token }),
  });
  let a: ReturnType<typeof as>;

  async function orgKey(body: Record<string, unknown>): Promise<{ token: string; keyId: string }> {
    const res = await api('POST', adm(`/organizations/${A.organizationId}/api-keys`), {
      token: A.apiKey,
      body: { name: `k-${Date.now()}`, ...body },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { token: res.body.token as string, keyId: res.body.keyId as string };
  }
  const countClients = async () => (await a.get('/clients?limit=100')).body.total as number;

  beforeAll(async () => {
    mesh = await startTestMesh();
    A = await mesh.bootstrap();
    B = await mesh.bootstrap();
    a = as(A.apiKey);
  });
  afterAll(async () => {
    await mesh?.dispose();
  });

  it('creates, reads, lists, updates and deletes clients, with history naming the actor', async () => {
    const editor = await orgKey({ scopes: ['client:read', 'client:create', 'client:update'], role: 'Editor' });
    const e = as(editor.token);
    const created = await e.post('/clients', {
      name: 'Stadt Musterhausen',
      email: 'rechnung@musterhausen.example',
      address: { street: 'Rathausplatz 1', city: 'Musterhausen', postalCode: '12345', country: 'de' },
      taxInfo: {
        taxCountry: 'DE',
        peppolRoutingAddress: { schemeId: '0204', value: { plaintext: LEITWEG }, confirmedByBuyer: true },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.headers.get('x-request-id')).toBeTruthy();
    const id = created.body.id as string;
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(created.body).toMatchObject({ name: 'Stadt Musterhausen', address: { country: 'DE' }, phone: null });
    expect(created.body.taxInfo.peppolRoutingAddress).toEqual({
      schemeId: '0204',
      value: { masked: '…9-96' },
      confirmedByBuyer: true,
    });

    const updated = await e.put(`/clients/${id}`, {
      phone: '+49 30 1234567',
      taxInfo: { taxId: { plaintext: VAT }, taxIdType: 'vat' },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({
      phone: '+49 30 1234567',
      taxInfo: { taxId: { masked: '…5976' }, taxCountry: 'DE' },
    });
    expect(updated.body.taxInfo.peppolRoutingAddress.schemeId).toBe('0204');
    expect((await e.get(`/clients/${id}`)).body).toEqual(updated.body);
    const list = await e.get('/clients');
    expect(list.body).toMatchObject({ total: 1, page: 1, limit: 20 });
    expect(list.body.items[0].id).toBe(id);

    const history = await a.get(`/clients/${id}/history`);
    expect(history.status, JSON.stringify(history.body)).toBe(200);
    expect(history.body.items.map((h: { action: string; actor: string }) => [h.action, h.actor])).toEqual([
      ['create', `api_key:${editor.keyId}`],
      ['update', `api_key:${editor.keyId}`],
    ]);
    expect(history.body.items[1].changes).toContainEqual({ field: 'taxInfo.taxId', secret: true });
    expect(history.body.items[1].changes).toContainEqual({
      field: 'phone',
      secret: false,
      old: null,
      new: '+49 30 1234567',
    });
    expect(JSON.stringify(history.body)).not.toContain('136695976');

    expect((await e.del(`/clients/${id}`)).status).toBe(403);
    expect((await a.del(`/clients/${id}`)).status).toBe(204);
    expect((await a.get(`/clients/${id}`)).status).toBe(404);
    expect((await a.del(`/clients/${id}`)).status).toBe(404);
    const after = await a.get(`/clients/${id}/history`);
    expect(after.body.items.map((h: { action: string }) => h.action)).toEqual(['create', 'update', 'delete']);
  });

  it('creates one client per Idempotency-Key: a retry with the same body answers it, another body is 409', async () => {
    const key = `create-${randomBytes(6).toString('hex')}`;
    const create = (body: unknown, k = key, token = A.apiKey) =>
      api('POST', adm('/clients'), { token, body, headers: { 'idempotency-key': k } });
    const body = {
      name: 'Retry GmbH',
      email: 'retry@example.com',
      address: { street: 'Weg 1', city: 'Köln', postalCode: '50667', country: 'DE' },
    };
    const before = await countClients();

    const [first, racing] = await Promise.all([create(body), create(body)]);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(racing.status, JSON.stringify(racing.body)).toBe(201);
    expect(racing.body.id).toBe(first.body.id);
    // The same body in another key order is the same request.
    const reordered = await create({
      address: { country: 'DE', postalCode: '50667', city: 'Köln', street: 'Weg 1' },
      email: 'retry@example.com',
      name: 'Retry GmbH',
    });
    expect(reordered.status).toBe(201);
    expect(reordered.body).toEqual(first.body);
    expect(await countClients()).toBe(before + 1);
    const history = (await a.get(`/clients/${first.body.id}/history`)).body.items;
    expect(history).toHaveLength(1);

    const other = await create({ ...body, name: 'Other GmbH' });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      error: expect.stringMatching(/Idempotency-Key/),
    });
    // Keys are per organization: B's request with A's key is its own.
    const inB = await create(body, key, B.apiKey);
    expect(inB.status).toBe(201);
    expect(inB.body.id).not.toBe(first.body.id);
    // Without a key every request creates; a malformed key is 400 and creates nothing.
    expect((await a.post('/clients', body)).body.id).not.toBe(first.body.id);
    const bad = await create(body, 'x'.repeat(256));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/idempotency-key/i);
    expect(await countClients()).toBe(before + 2);

    // After the client is deleted its key creates nothing new.
    expect((await a.del(`/clients/${first.body.id}`)).status).toBe(204);
    const gone = await create(body);
    expect(gone.status).toBe(409);
    expect(gone.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', error: expect.stringMatching(/deleted/) });
  });

  it('returns compliance values in plaintext only to holders of client:execute', async () => {
    const created = await a.post('/clients', {
      name: 'Plain Co',
      taxInfo: { taxId: { plaintext: VAT }, taxIdType: 'vat', taxCountry: 'DE' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.taxInfo.taxId).toEqual({ masked: '…5976', plaintext: VAT });
    const reader = as((await orgKey({ scopes: ['client:read'], role: 'Viewer' })).token);
    const read = await reader.get(`/clients/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body.taxInfo.taxId).toEqual({ masked: '…5976' });
    expect(JSON.stringify((await reader.get('/clients?limit=100')).body)).not.toContain('136695976');
    expect((await reader.get('/clients/search?q=plain')).status).toBe(403);
    expect((await reader.get(`/clients/${created.body.id}/history`)).status).toBe(403);
    await a.del(`/clients/${created.body.id}`);
  });

  it('searches by words of name and e-mail and by exact tax ID, within the organization', async () => {
    const one = await a.post('/clients', { name: 'Nordlicht Handel GmbH', email: 'ap@nordlicht.example' });
    const two = await a.post('/clients', {
      name: 'Nordlicht Werft',
      taxInfo: { taxId: { plaintext: VAT }, taxIdType: 'vat', taxCountry: 'DE' },
    });
    const other = await as(B.apiKey).post('/clients', {
      name: 'Nordlicht Fremd',
      taxInfo: { taxId: { plaintext: VAT }, taxIdType: 'vat', taxCountry: 'DE' },
    });
    expect([one.status, two.status, other.status]).toEqual([201, 201, 201]);
    const ids = (res: { body: { items: { id: string }[] } }) => res.body.items.map((c) => c.id);
    const words = await a.get('/clients/search?q=nordlicht');
    expect(words.status, JSON.stringify(words.body)).toBe(200);
    expect(ids(words).sort()).toEqual([one.body.id, two.body.id].sort());
    expect(ids(await a.get('/clients/search?q=nordlicht%20handel'))[0]).toBe(one.body.id);
    expect(ids(await a.get('/clients/search?q=nordlicht.example'))).toContain(one.body.id);
    const byTax = await a.get(`/clients/search?q=${encodeURIComponent('de 136-695-976')}`);
    expect(byTax.body.items.map((c: { name: string }) => c.name)).toEqual(['Nordlicht Werft']);
    expect((await a.get('/clients/search?q=nordlicht&limit=1&page=2')).body).toMatchObject({
      total: 2,
      page: 2,
      limit: 1,
    });
    expect((await a.get('/clients/search')).status).toBe(400);
    expect((await a.get('/clients/search?q=x&limit=101')).status).toBe(400);
  });

  it('refuses bad input with 400 and other organizations’ clients with 404, writing nothing', async () => {
    const mine = await a.post('/clients', { name: 'Mine' });
    const id = mine.body.id as string;
    const total = await countClients();
    const bad = [
      {},
      { name: '' },
      { name: 'X', unknown: 1 },
      { name: 'X', email: 'not-an-email' },
      { name: 'X', taxInfo: { taxId: { plaintext: 'DE136695977' }, taxIdType: 'vat', taxCountry: 'DE' } },
      {
        name: 'X',
        taxInfo: { taxCountry: 'DE', peppolRoutingAddress: { schemeId: '9930', value: { plaintext: VAT } } },
      },
      {
        name: 'X',
        taxInfo: {
          taxCountry: 'FR',
          peppolRoutingAddress: { schemeId: '0204', value: { plaintext: LEITWEG }, confirmedByBuyer: true },
        },
      },
      { name: 'X', taxInfo: { peppolRoutingAddress: { schemeId: '0088', value: { plaintext: '4000001000006' } } } },
      { name: 'X', taxInfo: { peppolRoutingAddress: { schemeId: '0060', value: { plaintext: '123456789' } } } },
    ];
    for (const body of bad) {
      const res = await a.post('/clients', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof res.body.error).toBe('string');
    }
    expect(
      (
        await a.put(`/clients/${id}`, {
          taxInfo: { peppolRoutingAddress: { schemeId: '0204', value: { plaintext: LEITWEG } } },
        })
      ).status,
    ).toBe(400);
    expect((await a.put(`/clients/${id}`, {})).status).toBe(400);
    expect((await a.get('/clients/not-an-id')).status).toBe(400);
    expect((await a.put('/clients/123', { name: 'Y' })).status).toBe(400);
    expect((await a.get(`/clients/${id}/history`)).body.total).toBe(1);
    expect(await countClients()).toBe(total);

    const b = as(B.apiKey);
    expect((await b.get(`/clients/${id}`)).status).toBe(404);
    expect((await b.put(`/clients/${id}`, { name: 'Taken' })).status).toBe(404);
    expect((await b.del(`/clients/${id}`)).status).toBe(404);
    expect((await b.get(`/clients/${id}/history`)).status).toBe(404);
    expect((await a.get('/clients/0123456789abcdef01234567')).status).toBe(404);
    expect((await a.get(`/clients/${id}`)).body.name).toBe('Mine');
  });
});
