import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestMesh, type TestMesh } from '../support/mesh';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';

const MAIN_FRONTEND = 'https://checkout.paymesh.test';
const billingAddress = {
  name: 'Ada Buyer',
  email: 'ada@example.com',
  line1: 'Main 1',
  city: 'Berlin',
  postalCode: '10115',
  country: 'DE',
};
const key = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;

/**
 * Idempotency-Key end to end, on one mesh: claims live in the gateways' store, so concurrent
 * requests with one key do the work once and a retry gets the first answer again.
 */
describe('Idempotency-Key', () => {
  let mesh: TestMesh;
  let boot: BootstrapResult;
  let admin: string;
  let pub: string;
  /** A second API key of the same organization. */
  let otherKey: string;

  const checkoutBody = (ref: string, extra: Record<string, unknown> = {}) => ({
    amount: 1250,
    currency: 'EUR',
    externalReference: ref,
    ...extra,
  });
  const createCheckout = (body: unknown, idempotencyKey?: string, token = boot.apiKey, siteId = boot.siteId) =>
    api('POST', `${admin}/checkouts/${siteId}/create`, {
      token,
      body,
      headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
    });
  const checkoutsWith = async (ref: string) => {
    const res = await api('GET', `${admin}/checkouts?externalReference=${encodeURIComponent(ref)}&limit=100`, {
      token: boot.apiKey,
    });
    expect(res.status).toBe(200);
    return res.body.items as { id: string }[];
  };

  beforeAll(async () => {
    mesh = await startTestMesh({ env: { MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND } });
    admin = mesh.adminBaseUrl;
    pub = mesh.publicBaseUrl;
    boot = await mesh.bootstrap();
    const other = await api('POST', `${admin}/organizations/${boot.organizationId}/api-keys`, {
      token: boot.apiKey,
      body: { name: 'second integration', scopes: ['checkout:create', 'checkout:read'], role: 'Editor' },
    });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    otherKey = other.body.token;
  });

  afterAll(async () => {
    await mesh?.dispose();
  });

  describe('on the Admin API', () => {
    it('concurrent checkout creates with one key create one checkout, and every caller gets its id', async () => {
      const ref = key('race');
      const k = key('race');
      const answers = await Promise.all(Array.from({ length: 4 }, () => createCheckout(checkoutBody(ref), k)));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      const ids = new Set(answers.map((a) => a.body.id));
      expect(ids.size).toBe(1);
      expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(3);
      expect((await checkoutsWith(ref)).map((c) => c.id)).toEqual([...ids]);
    });

    it('a sequential retry replays the first answer: same status and body, marked as a replay', async () => {
      const ref = key('retry');
      const k = key('retry');
      const first = await createCheckout(
        checkoutBody(ref, { items: [{ name: 'Mug', quantity: 1, unitPrice: 1250 }] }),
        k,
      );
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      // The same body with its keys in another order is the same request.
      const again = await createCheckout(
        {
          items: [{ unitPrice: 1250, quantity: 1, name: 'Mug' }],
          externalReference: ref,
          currency: 'EUR',
          amount: 1250,
        },
        k,
      );
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
      expect(await checkoutsWith(ref)).toHaveLength(1);
      // Without a key every request creates.
      expect((await createCheckout(checkoutBody(ref))).body.id).not.toBe(first.body.id);
      expect(await checkoutsWith(ref)).toHaveLength(2);
    });

    it('the same key with another body or on another route is 409 IDEMPOTENCY_KEY_REUSED and creates nothing', async () => {
      const ref = key('reuse');
      const k = key('reuse');
      expect((await createCheckout(checkoutBody(ref), k)).status).toBe(200);
      const other = await createCheckout(checkoutBody(ref, { amount: 1300 }), k);
      expect(other.status).toBe(409);
      expect(other.body).toEqual({
        error: expect.stringMatching(/Idempotency-Key/),
        code: 'IDEMPOTENCY_KEY_REUSED',
        requestId: other.headers.get('x-request-id'),
      });
      const site = await api('POST', `${admin}/sites`, {
        token: boot.apiKey,
        body: { name: 'Other shop', url: 'https://other.example' },
        headers: { 'idempotency-key': k },
      });
      expect(site.status).toBe(409);
      expect(site.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect(await checkoutsWith(ref)).toHaveLength(1);
    });

    it('keys of another API key are its own', async () => {
      const ref = key('scoped');
      const k = key('scoped');
      const mine = await createCheckout(checkoutBody(ref), k);
      const theirs = await createCheckout(checkoutBody(ref), k, otherKey);
      expect(theirs.status).toBe(200);
      expect(theirs.headers.get('idempotent-replayed')).toBeNull();
      expect(theirs.body.id).not.toBe(mine.body.id);
      const theirsAgain = await createCheckout(checkoutBody(ref), k, otherKey);
      expect(theirsAgain.headers.get('idempotent-replayed')).toBe('true');
      expect(theirsAgain.body.id).toBe(theirs.body.id);
      expect(await checkoutsWith(ref)).toHaveLength(2);
    });

    it('a malformed key is 400 in the envelope and creates nothing', async () => {
      const ref = key('malformed');
      for (const k of ['k'.repeat(256), 'schlüssel-1', 'tab\tkey']) {
        const res = await createCheckout(checkoutBody(ref), k);
        expect(res.status, k).toBe(400);
        expect(res.body).toEqual({ error: expect.stringMatching(/idempotency-key/i) });
      }
      expect((await createCheckout(checkoutBody(ref), 'k'.repeat(255))).status).toBe(200);
      expect(await checkoutsWith(ref)).toHaveLength(1);
    });

    it('a validation or authentication failure does not use the key up', async () => {
      const ref = key('invalid');
      const k = key('invalid');
      const invalid = await createCheckout(checkoutBody(ref, { amount: 0 }), k);
      expect(invalid.status).toBe(400);
      expect((await createCheckout(checkoutBody(ref), k, 'sk_live_nobody.nothing')).status).toBe(401);
      const corrected = await createCheckout(checkoutBody(ref), k);
      expect(corrected.status).toBe(200);
      expect(corrected.headers.get('idempotent-replayed')).toBeNull();
      expect((await createCheckout(checkoutBody(ref), k)).headers.get('idempotent-replayed')).toBe('true');
      expect(await checkoutsWith(ref)).toHaveLength(1);
    });

    it('keeps a final refusal of the handler: a retry of a 404 answers the same 404', async () => {
      const k = key('missing-site');
      const missing = await createCheckout(checkoutBody('nowhere'), k, boot.apiKey, 'f'.repeat(24));
      expect(missing.status).toBe(404);
      const again = await createCheckout(checkoutBody('nowhere'), k, boot.apiKey, 'f'.repeat(24));
      expect(again.status).toBe(404);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(missing.body);
    });

    it('the OpenAPI document names the header on keyed operations, with their 409', async () => {
      const doc = (await api('GET', `${admin}/docs/json`)).body;
      const create = doc.paths['/api/v1/checkouts/{siteId}/create'].post;
      expect(create.parameters).toContainEqual(
        expect.objectContaining({ in: 'header', name: 'idempotency-key', required: false }),
      );
      expect(create.responses['200'].headers['Idempotent-Replayed']).toBeDefined();
      const site = doc.paths['/api/v1/sites'].post;
      expect(site.parameters).toContainEqual(expect.objectContaining({ in: 'header', name: 'idempotency-key' }));
      expect(site.responses['409']).toBeDefined();
      const preview = doc.paths['/api/v1/invoices/preview-tax'].post;
      expect((preview.parameters ?? []).some((p: { name: string }) => p.name === 'idempotency-key')).toBe(false);
    });
  });

  describe('on the Main Backend', () => {
    const createTransaction = (body: unknown, idempotencyKey: string, path = '/transactions/create') =>
      api('POST', `${pub}${path}`, { body, headers: { origin: MAIN_FRONTEND, 'idempotency-key': idempotencyKey } });

    it('transaction create with a key replays its answer, with CORS headers, and refuses another request under it', async () => {
      const providerId = boot.providers!.provider_a!.id;
      const checkout = await createCheckout(checkoutBody(key('tx')));
      expect(checkout.status).toBe(200);
      const sessionPublicId = checkout.body.sessionPublicId as string;
      const body = { sessionPublicId, providerId, billingAddress };
      const k = key('tx');
      const first = await createTransaction(body, k);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.headers.get('access-control-allow-origin')).toBe(MAIN_FRONTEND);
      const again = await createTransaction({ billingAddress, providerId, sessionPublicId }, k);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('access-control-allow-origin')).toBe(MAIN_FRONTEND);
      expect(again.headers.get('access-control-expose-headers')).toMatch(/Idempotent-Replayed/i);

      const otherProvider = await createTransaction({ ...body, providerId: 'provider_b' }, k);
      expect(otherProvider.status).toBe(409);
      expect(otherProvider.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
      // Billing-request create takes keys too: the key of a transaction create is another route's.
      const direct = await createTransaction({ sessionPublicId, billingAddress }, k, '/billing-requests/create');
      expect(direct.status).toBe(409);
      expect(direct.body.code).toBe('IDEMPOTENCY_KEY_REUSED');

      // A key belongs to the checkout session: another session's request with it is its own.
      const second = await createCheckout(checkoutBody(key('tx')));
      const elsewhere = await createTransaction({ ...body, sessionPublicId: second.body.sessionPublicId }, k);
      expect(elsewhere.status).toBe(200);
      expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
      expect(elsewhere.body.transactionId).not.toBe(first.body.transactionId);

      // Input checked before the key: a missing session is 400 and claims nothing.
      expect((await createTransaction({ providerId, billingAddress }, key('tx'))).status).toBe(400);
    });

    it('the CORS preflight allows the Idempotency-Key header', async () => {
      const pre = await api('OPTIONS', `${pub}/transactions/create`, {
        headers: {
          origin: MAIN_FRONTEND,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,idempotency-key',
        },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe(MAIN_FRONTEND);
      expect((pre.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/,\s*/)).toEqual(
        expect.arrayContaining(['content-type', 'idempotency-key']),
      );
    });

    it('the OpenAPI document names the header on transaction and billing-request create', async () => {
      const doc = (await api('GET', `${pub}/docs/json`)).body;
      for (const path of ['/api/v1/transactions/create', '/api/v1/billing-requests/create']) {
        expect(doc.paths[path].post.parameters, path).toContainEqual(
          expect.objectContaining({ in: 'header', name: 'idempotency-key', required: false }),
        );
        expect(doc.paths[path].post.responses['200'].headers['Idempotent-Replayed'], path).toBeDefined();
      }
      expect(
        doc.paths['/api/v1/transactions/{id}/cancel'].post.parameters.some(
          (p: { name: string }) => p.name === 'idempotency-key',
        ),
      ).toBe(false);
    });
  });
});
