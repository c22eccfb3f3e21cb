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
const received: Array<{ body: string; headers: Record<string, string> }> = [];

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${path}`, {
    method,
    redirect: 'manual',
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text.startsWith('{') ? JSON.parse(text) : text) as any };
}

async function appToken(
  clientId = `cid_${randomBytes(8).toString('hex')}`,
  secret = `sec_${randomBytes(12).toString('hex')}`,
) {
  const res = await fetch(`${url}/v1/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  return { status: res.status, body: (await res.json()) as any, clientId, secret };
}

async function until(cond: () => boolean): Promise<void> {
  await waitFor(cond, { timeoutMs: 5000, stepMs: 20 });
}

beforeAll(async () => {
  hooks = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
  const config = loadSandboxConfig({
    LOG_LEVEL: 'silent',
    PROVIDER_D_SANDBOX_PORT: '0',
    PROVIDER_D_SANDBOX_WEBHOOK_RETRY_BASE_MS: '20',
  });
  app = buildServer(config);
  await app.listen({ host: config.host, port: config.port });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await app?.close();
  await new Promise((r) => hooks.close(r));
});

describe('provider_d sandbox', () => {
  it('issues tokens for client credentials and refuses another secret for a known client', async () => {
    const first = await appToken();
    expect(first.status).toBe(200);
    expect(first.body.access_token).toMatch(/^A21AA/);
    expect((await appToken(first.clientId, 'another-secret-0000')).status).toBe(401);
    expect((await call('GET', '/v2/checkout/orders/NOPE', undefined, { authorization: 'Bearer nope' })).status).toBe(
      401,
    );
  });

  it('order -> pay page approve -> capture; signed events verify through the API, and only for their webhook id', async () => {
    const { body: tok } = await appToken();
    const auth = { authorization: `Bearer ${tok.access_token}` };
    const hook = await call(
      'POST',
      '/v1/notifications/webhooks',
      { url: `${hookUrl}/h`, event_types: [{ name: '*' }] },
      auth,
    );
    expect(hook.status).toBe(201);
    const orderBody = {
      intent: 'CAPTURE',
      purchase_units: [{ custom_id: 'c1', amount: { currency_code: 'EUR', value: '12.50' } }],
      application_context: { return_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/no' },
    };
    const created = await call('POST', '/v2/checkout/orders', orderBody, { ...auth, 'paypal-request-id': 'r1' });
    expect(created.status).toBe(201);
    expect((await call('POST', '/v2/checkout/orders', orderBody, { ...auth, 'paypal-request-id': 'r1' })).body.id).toBe(
      created.body.id,
    );
    const reused = await call(
      'POST',
      '/v2/checkout/orders',
      { ...orderBody, intent: 'CAPTURE', purchase_units: [{ amount: { currency_code: 'EUR', value: '1.00' } }] },
      { ...auth, 'paypal-request-id': 'r1' },
    );
    expect(reused.body.details[0].issue).toBe('PAYPAL_REQUEST_ID_PREVIOUSLY_USED');
    const approve = created.body.links.find((l: { rel: string }) => l.rel === 'approve').href as string;
    expect(approve).toBe(`${url}/checkoutnow?token=${created.body.id}`);
    const page = await fetch(approve);
    expect(await page.text()).toContain('12.50');
    const post = await fetch(approve, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=approve',
    });
    expect(post.status).toBe(303);
    expect(post.headers.get('location')).toMatch(/^https:\/\/shop\.example\/ok\?token=.+&PayerID=/);
    await until(() => received.some((r) => r.body.includes('CHECKOUT.ORDER.APPROVED')));
    const captured = await call(
      'POST',
      `/v2/checkout/orders/${created.body.id}/capture`,
      {},
      { ...auth, 'paypal-request-id': 'cap1' },
    );
    expect(captured.status).toBe(201);
    expect(captured.body.purchase_units[0].payments.captures[0].status).toBe('COMPLETED');
    expect(
      (
        await call(
          'POST',
          `/v2/checkout/orders/${created.body.id}/capture`,
          {},
          { ...auth, 'paypal-request-id': 'cap1' },
        )
      ).status,
    ).toBe(201);
    expect(
      (
        await call(
          'POST',
          `/v2/checkout/orders/${created.body.id}/capture`,
          {},
          { ...auth, 'paypal-request-id': 'cap2' },
        )
      ).body.details[0].issue,
    ).toBe('ORDER_ALREADY_CAPTURED');
    await until(() => received.some((r) => r.body.includes('PAYMENT.CAPTURE.COMPLETED')));

    const d = received.find((r) => r.body.includes('PAYMENT.CAPTURE.COMPLETED'))!;
    const verify = (webhookId: string, sig = d.headers['paypal-transmission-sig']!) =>
      call(
        'POST',
        '/v1/notifications/verify-webhook-signature',
        {
          auth_algo: d.headers['paypal-auth-algo'],
          cert_url: d.headers['paypal-cert-url'],
          transmission_id: d.headers['paypal-transmission-id'],
          transmission_sig: sig,
          transmission_time: d.headers['paypal-transmission-time'],
          webhook_id: webhookId,
          webhook_event: JSON.parse(d.body),
        },
        auth,
      );
    expect((await verify(hook.body.id)).body.verification_status).toBe('SUCCESS');
    expect((await verify('OTHERWEBHOOK')).body.verification_status).toBe('FAILURE');
    expect((await verify(hook.body.id, Buffer.from('forged').toString('base64'))).body.verification_status).toBe(
      'FAILURE',
    );

    // Another app cannot see the order, nor verify with this webhook id.
    const other = { authorization: `Bearer ${(await appToken()).body.access_token}` };
    expect((await call('GET', `/v2/checkout/orders/${created.body.id}`, undefined, other)).status).toBe(404);

    // Refund, dispute and resend.
    const captureId = captured.body.purchase_units[0].payments.captures[0].id as string;
    const refund = await call(
      'POST',
      `/v2/payments/captures/${captureId}/refund`,
      { amount: { currency_code: 'EUR', value: '2.50' } },
      auth,
    );
    expect(refund.body.seller_payable_breakdown.total_refunded_amount.value).toBe('2.50');
    const dispute = await call('POST', `/_sandbox/orders/${created.body.id}/disputes`, {}, auth);
    expect(dispute.body.status).toBe('OPEN');
    const resolved = await call(
      'POST',
      `/v1/customer/disputes/${dispute.body.dispute_id}/adjudicate`,
      { adjudication_outcome: 'BUYER_FAVOR' },
      auth,
    );
    expect(resolved.body.dispute_outcome.outcome_code).toBe('RESOLVED_BUYER_FAVOUR');
    const events = (await call('GET', '/_sandbox/events?event_type=PAYMENT.CAPTURE.REFUNDED', undefined, auth)).body
      .events;
    expect(events).toHaveLength(1);
    const before = received.filter((r) => r.body.includes(events[0].id)).length;
    await call('POST', `/_sandbox/events/${events[0].id}/resend`, { times: 2 }, auth);
    await until(() => received.filter((r) => r.body.includes(events[0].id)).length === before + 2);
  });

  it('a declined funding source makes the capture decline', async () => {
    const { body: tok } = await appToken();
    const auth = { authorization: `Bearer ${tok.access_token}` };
    const created = await call(
      'POST',
      '/v2/checkout/orders',
      { intent: 'CAPTURE', purchase_units: [{ amount: { currency_code: 'USD', value: '5.00' } }] },
      auth,
    );
    expect((await call('POST', `/v2/checkout/orders/${created.body.id}/capture`, {}, auth)).body.details[0].issue).toBe(
      'ORDER_NOT_APPROVED',
    );
    await call('POST', `/_sandbox/orders/${created.body.id}/approve`, { funding: 'declined' }, auth);
    const captured = await call('POST', `/v2/checkout/orders/${created.body.id}/capture`, {}, auth);
    expect(captured.body.purchase_units[0].payments.captures[0].status).toBe('DECLINED');
  });

  it('answers malformed requests with 400 in the provider format', async () => {
    const { body: tok } = await appToken();
    const res = await call(
      'POST',
      '/v2/checkout/orders',
      { intent: 'AUTHORIZE' },
      { authorization: `Bearer ${tok.access_token}` },
    );
    expect(res.status).toBe(400);
    expect(res.body.name).toBe('INVALID_REQUEST');
  });
  it("drops an app's webhook deliveries while told to; the resend control still delivers late", async () => {
    const { body: tok } = await appToken();
    const auth = { authorization: `Bearer ${tok.access_token}` };
    expect(
      (await call('POST', '/v1/notifications/webhooks', { url: `${hookUrl}/drop`, event_types: [{ name: '*' }] }, auth))
        .status,
    ).toBe(201);
    expect((await call('POST', '/_sandbox/webhooks/drop', { enabled: 'yes' }, auth)).status).toBe(422);
    expect(
      (await call('POST', '/_sandbox/webhooks/drop', { enabled: true }, { authorization: 'Bearer unknown' })).status,
    ).toBe(401);
    expect((await call('POST', '/_sandbox/webhooks/drop', { enabled: true }, auth)).body).toEqual({
      scope: 'app',
      enabled: true,
    });
    const order = (
      await call(
        'POST',
        '/v2/checkout/orders',
        { intent: 'CAPTURE', purchase_units: [{ amount: { currency_code: 'EUR', value: '7.00' } }] },
        auth,
      )
    ).body;
    await call('POST', `/_sandbox/orders/${order.id}/approve`, {}, auth);
    const approved = (
      await call('GET', '/_sandbox/events?event_type=CHECKOUT.ORDER.APPROVED', undefined, auth)
    ).body.events.find((e: any) => e.resource.id === order.id);
    expect(approved).toBeDefined();
    expect(
      (await call('GET', `/_sandbox/webhook-calls?event=${approved.id}`, undefined, auth)).body.calls,
    ).toMatchObject([{ ok: false, status_code: null, error: 'dropped by sandbox control' }]);
    expect(received.some((r) => r.body.includes(approved.id))).toBe(false);

    // The lost event arrives late, and verifies like any delivery.
    await call('POST', `/_sandbox/events/${approved.id}/resend`, {}, auth);
    await until(() => received.some((r) => r.body.includes(approved.id)));
    const calls = (await call('GET', `/_sandbox/webhook-calls?event=${approved.id}`, undefined, auth)).body.calls;
    expect(calls.map((c: any) => c.ok)).toEqual([false, true]);

    expect((await call('POST', '/_sandbox/webhooks/drop', { enabled: false }, auth)).body).toEqual({
      scope: 'app',
      enabled: false,
    });
    const next = (
      await call(
        'POST',
        '/v2/checkout/orders',
        { intent: 'CAPTURE', purchase_units: [{ amount: { currency_code: 'EUR', value: '8.00' } }] },
        auth,
      )
    ).body;
    await call('POST', `/_sandbox/orders/${next.id}/approve`, {}, auth);
    await until(() => received.some((r) => r.body.includes(next.id) && r.body.includes('CHECKOUT.ORDER.APPROVED')));
  });
});
