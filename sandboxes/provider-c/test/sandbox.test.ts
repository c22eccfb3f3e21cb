import { createHmac, randomBytes } from 'node:crypto';
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
const received: Array<{ body: string; signature: string | undefined }> = [];

const token = () => `sandbox_${randomBytes(15).toString('hex')}`;
const secret = 'endpoint-secret-0123456789';

async function api(t: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${path}`, {
    method,
    redirect: 'manual',
    headers: {
      authorization: `Bearer ${t}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text.startsWith('{') ? JSON.parse(text) : text) as any };
}

function until<T>(fn: () => T | undefined): Promise<T> {
  return waitFor(fn, { timeoutMs: 5000, stepMs: 10 });
}

type Event = { id: string; resource_type: string; action: string; links: Record<string, string> };
const events = () => received.flatMap((r) => (JSON.parse(r.body) as { events: Event[] }).events);

async function account() {
  const t = token();
  expect((await api(t, 'PUT', '/_sandbox/webhook_endpoint', { url: `${hookUrl}/hook`, secret })).status).toBe(200);
  return t;
}

async function billingRequest(t: string, key?: string, amount = 1000) {
  return api(
    t,
    'POST',
    '/billing_requests',
    {
      billing_requests: {
        payment_request: { amount, currency: 'EUR', description: 'Order 1', metadata: { order: '1' } },
        mandate_request: { currency: 'EUR' },
      },
    },
    key ? { 'idempotency-key': key } : {},
  );
}

beforeAll(async () => {
  hooks = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        body: Buffer.concat(chunks).toString('utf8'),
        signature: req.headers['webhook-signature'] as string | undefined,
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
  const config = loadSandboxConfig({
    LOG_LEVEL: 'silent',
    PROVIDER_C_SANDBOX_HOST: '127.0.0.1',
    PROVIDER_C_SANDBOX_PORT: '0',
    PROVIDER_C_SANDBOX_WEBHOOK_RETRY_BASE_MS: '10',
    PROVIDER_C_SANDBOX_COLLECTION_DELAY_MS: '0',
  });
  app = buildServer(config);
  await app.listen({ host: config.host, port: config.port });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await app?.close();
  await new Promise<void>((r) => hooks.close(() => r()));
});

describe('provider_c sandbox', () => {
  it('refuses requests without a well-formed access token', async () => {
    const res = await api('nope', 'GET', '/payments/PM123');
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ type: 'invalid_api_usage', code: 401 });
  });

  it('pays through the flow page: the payment is confirmed and signed webhooks report it', async () => {
    const t = await account();
    const br = (await billingRequest(t)).body.billing_requests;
    expect(br).toMatchObject({ status: 'pending', links: { payment_request_payment: expect.stringMatching(/^PM/) } });
    const flow = await api(t, 'POST', '/billing_request_flows', {
      billing_request_flows: { redirect_uri: 'https://shop.example/back', links: { billing_request: br.id } },
    });
    expect(flow.status).toBe(201);
    const page = await fetch(flow.body.billing_request_flows.authorisation_url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('name="decision"');
    const post = await fetch(flow.body.billing_request_flows.authorisation_url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'decision=confirmed',
    });
    expect(post.status).toBe(303);
    expect(post.headers.get('location')).toBe('https://shop.example/back');
    const pm = br.links.payment_request_payment as string;
    // Authorised: the collection waits for submission until the banks answer (the collect control here).
    expect((await api(t, 'GET', `/payments/${pm}`)).body.payments.status).toBe('pending_submission');
    expect((await api(t, 'POST', `/_sandbox/payments/${pm}/collect`, {})).body.payments.status).toBe('confirmed');
    expect((await api(t, 'POST', `/_sandbox/payments/${pm}/collect`, {})).status).toBe(422);
    const confirmed = await until(() => events().find((e) => e.links.payment === pm && e.action === 'confirmed'));
    expect(confirmed.resource_type).toBe('payments');
    for (const r of received) expect(r.signature).toBe(createHmac('sha256', secret).update(r.body).digest('hex'));
    expect((await api(t, 'GET', `/payments/${pm}`)).body.payments).toMatchObject({
      status: 'confirmed',
      amount: 1000,
      currency: 'EUR',
      metadata: { order: '1' },
    });
    expect((await api(token(), 'GET', `/payments/${pm}`)).status).toBe(404);
  });

  it('replays a create with the same idempotency key and refuses the key for another request', async () => {
    const t = await account();
    const key = randomBytes(8).toString('hex');
    const a = await billingRequest(t, key);
    const b = await billingRequest(t, key);
    expect(b.body.billing_requests.id).toBe(a.body.billing_requests.id);
    const c = await billingRequest(t, key, 1001);
    expect(c.status).toBe(409);
    expect(c.body.error.errors[0]).toMatchObject({
      reason: 'idempotent_creation_conflict',
      links: { conflicting_resource_id: a.body.billing_requests.id },
    });
  });

  it('cancels only uncollected payments; refunds, chargebacks and resends report events', async () => {
    const t = await account();
    const open = (await billingRequest(t)).body.billing_requests.links.payment_request_payment as string;
    expect((await api(t, 'POST', `/payments/${open}/actions/cancel`, {})).body.payments.status).toBe('cancelled');
    expect((await api(t, 'POST', `/payments/${open}/actions/cancel`, {})).body.error.errors[0].reason).toBe(
      'cancellation_failed',
    );

    const br = (await billingRequest(t)).body.billing_requests;
    await api(t, 'POST', `/_sandbox/payments/${br.links.payment_request_payment}/decide`, { decision: 'confirmed' });
    const pm = br.links.payment_request_payment as string;
    const refund = await api(t, 'POST', '/refunds', {
      refunds: { amount: 400, total_amount_confirmation: 400, links: { payment: pm } },
    });
    expect(refund.status).toBe(201);
    expect((await api(t, 'POST', '/refunds', { refunds: { amount: 700, links: { payment: pm } } })).status).toBe(422);
    await until(() => events().find((e) => e.links.refund === refund.body.refunds.id && e.action === 'created'));
    await api(t, 'POST', `/_sandbox/payments/${pm}/charge_back`, {});
    await api(t, 'POST', `/_sandbox/payments/${pm}/close_chargeback`, { outcome: 'lost' });
    await until(() => events().find((e) => e.links.payment === pm && e.action === 'chargeback_settled'));

    const list = (await api(t, 'GET', `/_sandbox/webhooks?resource=${refund.body.refunds.id}`)).body;
    expect(list.count).toBe(1);
    const before = received.length;
    await api(t, 'POST', `/_sandbox/webhooks/${list.webhooks[0].id}/resend`, { times: 3 });
    await until(() => (received.length >= before + 3 ? true : undefined));
    const same = received.slice(before).filter((r) => r.body.includes(refund.body.refunds.id));
    expect(new Set(same.map((r) => r.body)).size).toBe(1);
  });

  it('marks mandates cancelled or failed with a webhook', async () => {
    const t = await account();
    const br = (await billingRequest(t)).body.billing_requests;
    await api(t, 'POST', `/_sandbox/payments/${br.links.payment_request_payment}/decide`, { decision: 'confirmed' });
    const md = (await api(t, 'GET', `/billing_requests/${br.id}`)).body.billing_requests.links
      .mandate_request_mandate as string;
    expect(
      (await api(t, 'POST', `/_sandbox/mandates/${md}/status`, { status: 'cancelled' })).body.mandates.status,
    ).toBe('cancelled');
    await until(() => events().find((e) => e.links.mandate === md && e.action === 'cancelled'));
  });
  it("drops an account's webhooks while told to; the resend control still sends them late", async () => {
    const t = await account();
    expect((await api(t, 'POST', '/_sandbox/webhooks/drop', { enabled: 'yes' })).status).toBe(422);
    expect((await api('not-a-token', 'POST', '/_sandbox/webhooks/drop', { enabled: true })).status).toBe(401);
    expect((await api(t, 'POST', '/_sandbox/webhooks/drop', { enabled: true })).body).toEqual({
      webhook_drop: { scope: 'account', enabled: true },
    });
    const pm = (await billingRequest(t)).body.billing_requests.links.payment_request_payment as string;
    expect(
      (await api(t, 'POST', `/_sandbox/payments/${pm}/decide`, { decision: 'confirmed' })).body.payments.status,
    ).toBe('confirmed');
    const lost = (await api(t, 'GET', `/_sandbox/webhooks?resource=${pm}`)).body.webhooks as Array<{
      id: string;
      events: Event[];
      calls: unknown[];
    }>;
    expect(lost.flatMap((w) => w.events.map((e) => e.action))).toContain('confirmed');
    for (const w of lost)
      expect(w.calls).toMatchObject([{ ok: false, status_code: null, error: 'dropped by sandbox control' }]);
    const confirmed = lost.find((w) => w.events.some((e) => e.action === 'confirmed'))!;
    // Another account's webhooks still go out meanwhile.
    const other = await account();
    const otherPm = (await billingRequest(other)).body.billing_requests.links.payment_request_payment as string;
    await api(other, 'POST', `/payments/${otherPm}/actions/cancel`, {});
    await until(() => events().find((e) => e.links.payment === otherPm && e.action === 'cancelled'));
    expect(events().filter((e) => e.links.payment === pm)).toEqual([]);

    // The lost webhook arrives late, byte for byte as it would have.
    await api(t, 'POST', `/_sandbox/webhooks/${confirmed.id}/resend`, {});
    const late = await until(() => received.find((r) => r.body.includes(confirmed.id)));
    expect(late.signature).toBe(createHmac('sha256', secret).update(late.body).digest('hex'));

    expect((await api(t, 'POST', '/_sandbox/webhooks/drop', { enabled: false })).body).toEqual({
      webhook_drop: { scope: 'account', enabled: false },
    });
    const next = (await billingRequest(t)).body.billing_requests.links.payment_request_payment as string;
    await api(t, 'POST', `/payments/${next}/actions/cancel`, {});
    await until(() => events().find((e) => e.links.payment === next && e.action === 'cancelled'));
  });
});
