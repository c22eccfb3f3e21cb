import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';
import { api, startTestMesh, type TestMesh } from '../support/mesh';

/** One HTTP exchange with the body as raw text, so any bytes and any URL can be sent. */
async function raw(
  method: string,
  url: string,
  opts: { token?: string; body?: string; contentType?: string; requestId?: string } = {},
) {
  const res = await fetch(url, {
    method,
    headers: {
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.contentType
        ? { 'content-type': opts.contentType }
        : opts.body !== undefined
          ? { 'content-type': 'application/json' }
          : {}),
      ...(opts.requestId ? { 'x-request-id': opts.requestId } : {}),
    },
    body: opts.body,
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // left as text: the assertions below then fail with it in view
  }
  return { status: res.status, headers: res.headers, body: body as Record<string, unknown>, text };
}

type Answer = Awaited<ReturnType<typeof raw>>;

/** A 4xx in the one-field envelope (code/requestId only as the catalogue allows) with a request ID. */
function expectRefused(res: Answer, status?: number): void {
  const why = `${res.status} ${res.text.slice(0, 300)}`;
  if (status !== undefined) expect(res.status, why).toBe(status);
  expect(res.status, why).toBeGreaterThanOrEqual(400);
  expect(res.status, why).toBeLessThan(500);
  expect(typeof res.body, why).toBe('object');
  expect(typeof res.body.error, why).toBe('string');
  expect(
    Object.keys(res.body).every((k) => ['error', 'code', 'requestId'].includes(k)),
    why,
  ).toBe(true);
  expect(res.headers.get('x-request-id'), why).toBeTruthy();
  // Internal detail (gRPC serialization, PostgreSQL, fastify codes) never reaches the client.
  expect(res.text).not.toMatch(/serialization|int32|FST_ERR|postgres|invalid byte sequence/i);
}

/** `{"a":{"a":…1…}}` nested `depth` levels, built as text (JSON.stringify itself recurses). */
const deepJson = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('hardened edges: the probes that once answered 500', () => {
  let mesh: TestMesh;
  let boot: BootstrapResult;
  let admin: string;
  let pub: string;
  const MAIN_FRONTEND = 'https://checkout.edges.example';

  beforeAll(async () => {
    mesh = await startTestMesh({ env: { MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND } });
    admin = mesh.adminBaseUrl;
    pub = mesh.publicBaseUrl;
    boot = await mesh.bootstrap();
  });

  afterAll(async () => {
    await mesh?.dispose();
  });

  const adminJson = (method: string, path: string, body: unknown) =>
    raw(method, `${admin}${path}`, { token: boot.apiKey, body: JSON.stringify(body) });
  const total = async (path: string) => {
    const res = await api('GET', `${admin}${path}`, { token: boot.apiKey });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.total as number;
  };

  it('refuses NUL and unpaired surrogates in names, addresses, keys and path or query values (400, nothing stored)', async () => {
    const org = boot.organizationId;
    const sitesBefore = await total('/sites');
    const keysBefore = await total(`/organizations/${org}/api-keys`);
    const membersBefore = await total(`/organizations/${org}/members`);

    for (const bad of ['Shop\u0000', 'Shop\uD800', '\uDC00Shop']) {
      const site = await adminJson('POST', '/sites', { name: bad, url: 'https://shop.example' });
      expectRefused(site, 400);
      expect(site.body.error).toMatch(/body\.name/);
      expectRefused(
        await adminJson('POST', `/organizations/${org}/members`, {
          email: 'member@edges.example',
          name: bad,
          role: 'Viewer',
        }),
        400,
      );
      expectRefused(
        await adminJson('POST', `/organizations/${org}/api-keys`, { name: bad, scopes: ['site:read'] }),
        400,
      );
    }
    expectRefused(
      await adminJson('POST', '/sites', {
        name: 'Shop',
        url: 'https://shop.example',
        frontendDomains: ['a\u0000.example'],
      }),
      400,
    );
    expectRefused(await raw('GET', `${admin}/checkouts?externalReference=%00`, { token: boot.apiKey }), 400);
    expectRefused(await raw('GET', `${admin}/checkouts?externalReference=%ED%A0%80`, { token: boot.apiKey }));
    expectRefused(await raw('GET', `${pub}/checkouts/%00`), 400);
    expectRefused(await raw('GET', `${pub}/transactions/%00/status`), 400);

    // A buyer's billing address with NUL on a real checkout session: refused, no transaction.
    const checkout = await api('POST', `${admin}/checkouts/${boot.siteId}/create`, {
      token: boot.apiKey,
      body: { amount: 1500, currency: 'EUR', externalReference: 'edges-1' },
    });
    expect(checkout.status, JSON.stringify(checkout.body)).toBe(200);
    const txBefore = await total('/transactions');
    const providerId = boot.providers?.provider_a?.id ?? 'a'.repeat(24);
    for (const field of ['name', 'line1', 'city', 'email']) {
      const billingAddress = {
        name: 'Buyer',
        email: 'buyer@edges.example',
        line1: 'Main St 1',
        city: 'Berlin',
        postalCode: '10115',
        country: 'DE',
        [field]: 'x\u0000y',
      };
      const res = await raw('POST', `${pub}/transactions/create`, {
        body: JSON.stringify({ sessionPublicId: checkout.body.sessionPublicId, providerId, billingAddress }),
      });
      expectRefused(res, 400);
      expect(res.body.error).toContain(`billingAddress.${field}`);
    }
    const handoff = await raw('POST', `${pub}/checkouts/${checkout.body.sessionPublicId}/handoff`, {
      body: JSON.stringify({ providerId, billingAddress: { name: '\uD83D' } }),
    });
    expectRefused(handoff, 400);

    expect(await total('/transactions')).toBe(txBefore);
    expect(await total('/sites')).toBe(sitesBefore);
    expect(await total(`/organizations/${org}/api-keys`)).toBe(keysBefore);
    expect(await total(`/organizations/${org}/members`)).toBe(membersBefore);
  });

  it('refuses out-of-range integers with 400 and no internal detail', async () => {
    const base = { currency: 'EUR', externalReference: 'edges-2' };
    const quantity = await adminJson('POST', `/checkouts/${boot.siteId}/create`, {
      ...base,
      amount: 100,
      items: [{ name: 'A', quantity: 3_000_000_000, unitPrice: 100 }],
    });
    expectRefused(quantity, 400);
    expect(quantity.body.error).toMatch(/items\.0\.quantity/);
    const amount = await adminJson('POST', `/checkouts/${boot.siteId}/create`, { ...base, amount: 1e20 });
    expectRefused(amount, 400);
    expect(amount.body.error).toMatch(/amount/);
    expectRefused(
      await adminJson('POST', `/checkouts/${boot.siteId}/create`, {
        ...base,
        amount: 100,
        items: [{ name: 'A', quantity: 1, unitPrice: -1e20 }],
      }),
      400,
    );
    expectRefused(
      await adminJson('POST', '/transactions/manual', {
        siteId: boot.siteId,
        amount: 2 ** 53 + 2,
        currency: 'EUR',
        externalReference: 'x',
        status: -1,
        reason: 'r',
      }),
      400,
    );
    expectRefused(await adminJson('PUT', `/transactions/${'a'.repeat(24)}`, { status: 3_000_000_000 }), 400);
    expectRefused(await raw('GET', `${admin}/sites?page=3000000000`, { token: boot.apiKey }), 400);
    // A number too large for a double parses to Infinity.
    expectRefused(
      await raw('POST', `${admin}/checkouts/${boot.siteId}/create`, {
        token: boot.apiKey,
        body: '{"amount":1e400,"currency":"EUR","externalReference":"x"}',
      }),
      400,
    );
  });

  it('refuses provider credentials nested 10 000 levels deep, and unknown credential fields', async () => {
    const before = await total('/providers');
    const body = `{"type":"provider_a","name":"deep","credentials":${deepJson(10_000)}}`;
    const res = await raw('POST', `${admin}/providers`, { token: boot.apiKey, body });
    expectRefused(res, 400);
    expect(res.body.error).toMatch(/nested/);
    const free = await adminJson('POST', '/providers', {
      type: 'provider_a',
      name: 'free-form',
      credentials: { secretKey: `sk_live_${'a'.repeat(20)}`, extra: { any: 'thing' } },
    });
    expectRefused(free, 400);
    expect(free.body.error).toMatch(/credentials/);
    const wrongType = await adminJson('POST', '/providers', {
      type: 'provider_c',
      name: 'c',
      credentials: { accessToken: 7, webhookSecret: 'w'.repeat(20), environment: 'live' },
    });
    expectRefused(wrongType, 400);
    expect(wrongType.body.error).toMatch(/credentials\.accessToken/);
    // Deep JSON on the public gateway too.
    expectRefused(await raw('POST', `${pub}/transactions/create`, { body: deepJson(5_000) }), 400);
    expect(await total('/providers')).toBe(before);
  });

  it('answers undecodable URLs and over-long path parameters in the envelope with X-Request-ID, on both gateways', async () => {
    for (const base of [admin, pub]) {
      const badUrl = await raw('GET', `${base}/sites/%FF`, { token: boot.apiKey, requestId: 'edges-bad-url-0001' });
      expectRefused(badUrl, 400);
      expect(badUrl.headers.get('x-request-id')).toBe('edges-bad-url-0001');
      expectRefused(await raw('GET', `${base}/checkouts/%E0%A4%A`, { token: boot.apiKey }), 400);
      const long = await raw('GET', `${base}/checkouts/${'a'.repeat(300)}`, { token: boot.apiKey });
      expectRefused(long, 414);
    }
    expectRefused(await raw('GET', `${admin.replace(/\/api\/v1$/, '')}/v1/sites/%FF`, { token: boot.apiKey }), 400);
  });

  it('answers framework errors (too large, wrong media type, bad or empty JSON) in the envelope with X-Request-ID', async () => {
    const cases: [string, string, number][] = [
      [`${admin}/sites`, `{"name":"${'x'.repeat(1_100_000)}","url":"https://a.example"}`, 413],
      [`${pub}/transactions/create`, `{"sessionPublicId":"${'x'.repeat(1_100_000)}"}`, 413],
    ];
    for (const [url, body, status] of cases)
      expectRefused(await raw('POST', url, { token: boot.apiKey, body }), status);
    for (const url of [`${admin}/sites`, `${pub}/transactions/create`]) {
      expectRefused(await raw('POST', url, { token: boot.apiKey, body: 'name=x', contentType: 'text/plain' }), 415);
      const bad = await raw('POST', url, { token: boot.apiKey, body: '{"name": ' });
      expectRefused(bad, 400);
      expect(bad.body.error).toMatch(/JSON/);
      expectRefused(await raw('POST', url, { token: boot.apiKey, body: '' }), 400);
      expectRefused(await raw('POST', url, { token: boot.apiKey, body: '{"__proto__":{"x":1}}' }), 400);
    }
  });
});
