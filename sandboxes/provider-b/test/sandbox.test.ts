import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '../../../test/support/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer, loadSandboxConfig } from '../src/main';

let app: FastifyInstance;
let url = '';
let hooks: Server;
let hookUrl = '';
const calls: Array<{ body: string; type: string | undefined; path: string }> = [];
/** Status the webhook receiver answers, per call index. */
let answer: (i: number) => number = () => 200;

const key = () => `test_${randomBytes(15).toString('hex')}`;

async function api(k: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${path}`, {
    method,
    redirect: 'manual',
    headers: {
      authorization: `Bearer ${k}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text.startsWith('{') ? JSON.parse(text) : text) as any };
}

const order = (over: Record<string, unknown> = {}) => ({
  amount: { currency: 'EUR', value: '10.00' },
  description: 'Order 1',
  redirectUrl: 'https://shop.example/back',
  webhookUrl: `${hookUrl}/hook`,
  metadata: { order: '1' },
  ...over,
});

async function until(cond: () => boolean): Promise<void> {
  await waitFor(cond, { timeoutMs: 5000, stepMs: 10 });
}

beforeAll(async () => {
  hooks = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      calls.push({ body, type: req.headers['content-type'], path: req.url ?? '' });
      res.writeHead(answer(calls.length - 1)).end();
    });
  });
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
  const config = loadSandboxConfig({
    LOG_LEVEL: 'silent',
    PROVIDER_B_SANDBOX_PORT: '0',
    PROVIDER_B_SANDBOX_WEBHOOK_RETRY_BASE_MS: '20',
  });
  app = buildServer(config);
  await app.listen({ host: config.host, port: config.port });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await app?.close();
  await new Promise<void>((r) => hooks.close(() => r()));
});

describe('provider_b sandbox', () => {
  it('answers 401 in the provider format without a well-formed key', async () => {
    const res = await api('sk_test_nope', 'POST', '/v2/payments', order());
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ status: 401, title: 'Unauthorized Request' });
  });

  it('validates a payment like the provider: amount format, description, redirect URL', async () => {
    const k = key();
    expect(
      (await api(k, 'POST', '/v2/payments', order({ amount: { currency: 'EUR', value: '10' } }))).body,
    ).toMatchObject({ status: 422, field: 'amount.value' });
    expect((await api(k, 'POST', '/v2/payments', order({ description: '' }))).body).toMatchObject({
      status: 422,
      field: 'description',
    });
    expect((await api(k, 'POST', '/v2/payments', order({ redirectUrl: undefined }))).body).toMatchObject({
      status: 422,
      field: 'redirectUrl',
    });
  });

  it('replays a request with the same Idempotency-Key and refuses the key with other parameters', async () => {
    const k = key();
    const first = await api(k, 'POST', '/v2/payments', order(), { 'idempotency-key': 'k1' });
    expect(first.status).toBe(201);
    const again = await api(k, 'POST', '/v2/payments', order(), { 'idempotency-key': 'k1' });
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(
      (await api(k, 'POST', '/v2/payments', order({ description: 'Other' }), { 'idempotency-key': 'k1' })).status,
    ).toBe(409);
    // Another account's key space is its own, and it cannot see the payment.
    expect(
      (await api(key(), 'POST', '/v2/payments', order({ description: 'Other' }), { 'idempotency-key': 'k1' })).status,
    ).toBe(201);
    expect((await api(key(), 'GET', `/v2/payments/${first.body.id}`)).status).toBe(404);
  });

  it('the buyer pays on the checkout page: redirect back, then the webhook gets a form post naming the payment, retried until answered', async () => {
    const k = key();
    const p = (await api(k, 'POST', '/v2/payments', order())).body;
    expect(p._links.checkout.href).toBe(`${url}/checkout/${p.id}`);
    const page = await fetch(p._links.checkout.href);
    expect(await page.text()).toContain('value="paid"');
    const before = calls.length;
    answer = (i) => (i === before ? 500 : 200);
    const res = await fetch(`${url}/checkout/${p.id}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'status=paid',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://shop.example/back');
    await until(() => calls.length >= before + 2);
    expect(calls.slice(before)).toEqual([
      { body: `id=${p.id}`, type: 'application/x-www-form-urlencoded', path: '/hook' },
      { body: `id=${p.id}`, type: 'application/x-www-form-urlencoded', path: '/hook' },
    ]);
    answer = () => 200;
    const paid = (await api(k, 'GET', `/v2/payments/${p.id}`)).body;
    expect(paid).toMatchObject({
      status: 'paid',
      amountRefunded: { value: '0.00' },
      amountRemaining: { value: '10.00' },
    });
    expect(paid.paidAt).toBeTruthy();
    expect(paid._links.checkout).toBeUndefined();
    // A decided payment cannot be decided again.
    expect(
      (
        await fetch(`${url}/checkout/${p.id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'status=failed',
        })
      ).status,
    ).toBe(409);
  });

  it("drops an account's webhook calls while told to; the webhook control still calls late", async () => {
    const k = key();
    expect((await api(k, 'POST', '/_sandbox/webhooks/drop', { enabled: 'yes' })).status).toBe(422);
    expect((await api(k, 'POST', '/_sandbox/webhooks/drop', { enabled: true })).body).toMatchObject({
      scope: 'account',
      enabled: true,
    });
    const p = (await api(k, 'POST', '/v2/payments', order())).body;
    const before = calls.length;
    await api(k, 'POST', `/_sandbox/payments/${p.id}/status`, { status: 'paid' });
    const recorded = (await api(k, 'GET', `/_sandbox/webhook-calls?payment=${p.id}`)).body;
    expect(recorded._embedded.calls).toMatchObject([{ ok: false, error: 'dropped by sandbox control' }]);
    expect(calls.length).toBe(before);
    await api(k, 'POST', `/_sandbox/payments/${p.id}/webhook`, {});
    await until(() => calls.length === before + 1);
    expect(calls[before]).toMatchObject({ body: `id=${p.id}` });
    await api(k, 'POST', '/_sandbox/webhooks/drop', { enabled: false });
    const q = (await api(k, 'POST', '/v2/payments', order())).body;
    await api(k, 'POST', `/_sandbox/payments/${q.id}/status`, { status: 'paid' });
    await until(() => calls.some((c) => c.body === `id=${q.id}`));
  });

  it('refunds up to what is left, completes them, and shows refunds and chargebacks embedded', async () => {
    const k = key();
    const p = (await api(k, 'POST', '/v2/payments', order())).body;
    expect(
      (await api(k, 'POST', `/v2/payments/${p.id}/refunds`, { amount: { currency: 'EUR', value: '1.00' } })).body,
    ).toMatchObject({ status: 422 });
    await api(k, 'POST', `/_sandbox/payments/${p.id}/status`, { status: 'paid' });
    const r = await api(k, 'POST', `/v2/payments/${p.id}/refunds`, { amount: { currency: 'EUR', value: '4.00' } });
    expect(r.body).toMatchObject({ resource: 'refund', status: 'pending', amount: { value: '4.00' }, paymentId: p.id });
    expect(
      (await api(k, 'POST', `/v2/payments/${p.id}/refunds`, { amount: { currency: 'EUR', value: '6.01' } })).body,
    ).toMatchObject({ status: 422, field: 'amount' });
    const chb = (await api(k, 'POST', `/_sandbox/payments/${p.id}/chargebacks`, { reason: 'AC04', amount: '6.00' }))
      .body;
    expect(chb).toMatchObject({
      resource: 'chargeback',
      amount: { value: '6.00' },
      settlementAmount: { value: '-6.00' },
      reversedAt: null,
    });
    const refundStatus = async (): Promise<string> =>
      (await api(k, 'GET', `/v2/payments/${p.id}/refunds/${r.body.id}`)).body.status;
    await waitFor(async () => (await refundStatus()) === 'refunded', { timeoutMs: 1000, what: 'the refund settled' });
    expect(await refundStatus()).toBe('refunded');
    const full = (await api(k, 'GET', `/v2/payments/${p.id}?embed=refunds,chargebacks`)).body;
    expect(full._embedded.refunds).toEqual([expect.objectContaining({ id: r.body.id, status: 'refunded' })]);
    expect(full._embedded.chargebacks).toEqual([expect.objectContaining({ id: chb.id })]);
    expect(full).toMatchObject({
      amountRefunded: { value: '4.00' },
      amountRemaining: { value: '0.00' },
      amountChargedBack: { value: '6.00' },
    });
    const won = (await api(k, 'POST', `/_sandbox/chargebacks/${chb.id}/close`, { outcome: 'won' })).body;
    expect(won.reversedAt).toBeTruthy();
    expect((await api(k, 'POST', `/_sandbox/chargebacks/${chb.id}/close`, { outcome: 'lost' })).status).toBe(422);
  });
});
