import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from 'nats';
import { paymentsWebhooks } from '@paymesh/proto';
import { call, makeClient } from '@paymesh/grpc';
import { api, eventually, NATS_URL, PG_URL, startTestMesh, type TestMesh } from '../support/mesh';
import { meshQuiet } from '../support/mesh-checks';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';

const objectId = () => randomBytes(12).toString('hex');

interface StatusReport {
  id: string;
  type: string;
  data: {
    transactionId: string;
    outcome: string;
    providerEventId: string;
    providerPaymentId: string;
    providerId: string;
    organizationId: string;
  };
}

describe('payment providers: records, provider_a payments and inbound webhooks', () => {
  let mesh: TestMesh;
  let boot: BootstrapResult;
  let provider: { id: string; webhookSecret: string; secretKey: string };
  let nc: NatsConnection;
  let grpc: paymentsWebhooks.PaymentsWebhooksServiceClient;
  let sandbox: string;
  let hooksRoot: string;

  beforeAll(async () => {
    mesh = await startTestMesh();
    boot = await mesh.bootstrap();
    provider = boot.providers!.provider_a!;
    sandbox = mesh.sandboxUrls['sandbox-provider-a']!;
    hooksRoot = mesh.publicRootUrl;
    nc = await connect({ servers: NATS_URL });
    grpc = makeClient(paymentsWebhooks.PaymentsWebhooksServiceClient, `127.0.0.1:${mesh.ports['payments-webhooks']}`);
  });

  afterAll(async () => {
    grpc?.close();
    await nc?.close();
    await mesh?.dispose();
  });

  const rpc = <Req, Res>(method: Parameters<typeof call<Req, Res>>[1], req: Req) =>
    call(grpc, method, req, { deadlineMs: 10_000, target: 'payments-webhooks' });

  /** Every payments.payment.status_reported event published in this mesh's namespace. */
  async function statusReports(): Promise<StatusReport[]> {
    const jsm = await nc.jetstreamManager();
    const stream = `${mesh.namespace.toUpperCase()}_PAYMENTS`;
    const info = await jsm.streams.info(stream).catch(() => null);
    if (!info) return [];
    const out: StatusReport[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
      const msg = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
      if (msg?.subject === `${mesh.namespace}.payments.payment.status_reported`) out.push(msg.json<StatusReport>());
    }
    return out;
  }

  function sign(body: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
    const v1 = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
    return `t=${timestamp},v1=${v1}`;
  }

  async function postHook(path: string, body: string, signature?: string) {
    const res = await fetch(`${hooksRoot}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(signature ? { 'Stripe-Signature': signature } : {}) },
      body,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  async function sandboxCall(method: string, path: string, form?: Record<string, string>) {
    const res = await fetch(`${sandbox}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${provider.secretKey}`,
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  function paymentRequest(
    over: Partial<paymentsWebhooks.CreatePaymentRequest> = {},
  ): paymentsWebhooks.CreatePaymentRequest {
    return {
      organizationId: boot.organizationId,
      siteId: boot.siteId,
      providerId: provider.id,
      transactionId: objectId(),
      amount: 2599,
      currency: 'EUR',
      description: 'Order 42',
      buyerEmail: '',
      returnUrl: 'https://shop.example/return',
      testMode: false,
      ...over,
    };
  }

  it('bootstrap creates a provider_a record for the running sandbox, in the key mode, webhook registered', async () => {
    expect(provider.id).toMatch(/^[0-9a-f]{24}$/);
    expect(provider.webhookSecret).toMatch(/^whsec_/);
    expect(provider.secretKey).toMatch(/^sk_live_/);
    const endpoints = await sandboxCall('GET', '/v1/webhook_endpoints');
    expect(endpoints.body.data.map((e: { url: string }) => e.url)).toEqual([
      `${hooksRoot}/hooks/provider_a/${provider.id}`,
    ]);
    const listed = await api('GET', `${mesh.adminBaseUrl}/providers`, { token: boot.apiKey });
    expect(listed.status).toBe(200);
    // One record per running provider sandbox (provider_a, provider_b, provider_c, provider_d).
    expect(listed.body.items.map((p: { type: string }) => p.type).sort()).toEqual([
      'provider_a',
      'provider_b',
      'provider_c',
      'provider_d',
    ]);
    expect(listed.body.items.find((p: { type: string }) => p.type === 'provider_a')).toMatchObject({
      id: provider.id,
      type: 'provider_a',
      enabled: true,
      testMode: false,
      credentialHints: {
        secretKey: `sk_live_…${provider.secretKey.slice(-4)}`,
        webhookSecret: `whsec_…${provider.webhookSecret.slice(-4)}`,
      },
      webhookUrl: `${hooksRoot}/hooks/provider_a/${provider.id}`,
    });
    expect(JSON.stringify(listed.body)).not.toContain(provider.secretKey);
    expect(JSON.stringify(listed.body)).not.toContain(provider.webhookSecret);
  });

  it('creates, reads, toggles and deletes provider records without ever returning secrets; other tenants get 404', async () => {
    const secretKey = `sk_live_${randomBytes(12).toString('hex')}`;
    const webhookSecret = `whsec_${randomBytes(24).toString('hex')}`;
    const created = await api('POST', `${mesh.adminBaseUrl}/providers`, {
      token: boot.apiKey,
      body: { type: 'provider_a', name: 'Own webhook', credentials: { secretKey, webhookSecret } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      type: 'provider_a',
      name: 'Own webhook',
      enabled: true,
      organizationId: boot.organizationId,
    });
    expect(created.body.webhookSecret).toBeUndefined();
    expect(JSON.stringify(created.body)).not.toContain(secretKey);
    expect(JSON.stringify(created.body)).not.toContain(webhookSecret);
    const id: string = created.body.id;

    const got = await api('GET', `${mesh.adminBaseUrl}/providers/${id}`, { token: boot.apiKey });
    expect(got.status).toBe(200);
    expect(got.body.credentialHints).toEqual({
      secretKey: `sk_live_…${secretKey.slice(-4)}`,
      webhookSecret: `whsec_…${webhookSecret.slice(-4)}`,
    });

    const off = await api('PUT', `${mesh.adminBaseUrl}/providers/${id}/toggle`, { token: boot.apiKey });
    expect(off.status).toBe(200);
    expect(off.body.enabled).toBe(false);
    const on = await api('PUT', `${mesh.adminBaseUrl}/providers/${id}/toggle`, {
      token: boot.apiKey,
      body: { enabled: true },
    });
    expect(on.body.enabled).toBe(true);
    expect((await api('GET', `${mesh.adminBaseUrl}/providers/${id}`, { token: boot.apiKey })).body.enabled).toBe(true);

    const other = await mesh.bootstrap();
    for (const [method, path] of [
      ['GET', `/providers/${id}`],
      ['PUT', `/providers/${id}/toggle`],
      ['DELETE', `/providers/${id}`],
    ] as const) {
      const res = await api(method, `${mesh.adminBaseUrl}${path}`, { token: other.apiKey });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(typeof res.body.error).toBe('string');
    }
    expect(
      (await api('GET', `${mesh.adminBaseUrl}/providers`, { token: other.apiKey })).body.items.map(
        (p: { id: string }) => p.id,
      ),
    ).not.toContain(id);

    const deleted = await api('DELETE', `${mesh.adminBaseUrl}/providers/${id}`, { token: boot.apiKey });
    expect(deleted.status).toBe(200);
    expect((await api('GET', `${mesh.adminBaseUrl}/providers/${id}`, { token: boot.apiKey })).status).toBe(404);
  });

  it('rejects bad provider bodies with 400 naming the field, and writes nothing', async () => {
    const before = (await api('GET', `${mesh.adminBaseUrl}/providers`, { token: boot.apiKey })).body.total;
    const cases: Array<[unknown, RegExp]> = [
      [{ type: 'provider_a', name: 'x', credentials: { secretKey: 'pk_live_nope1234' } }, /credentials\.secretKey/],
      [
        { type: 'provider_a', name: 'x', credentials: { secretKey: `sk_test_${'a'.repeat(20)}` } },
        /credentials\.secretKey/,
      ],
      [{ type: 'provider_z', name: 'x', credentials: {} }, /type/],
      [{ type: 'provider_a', name: 'x' }, /credentials/],
    ];
    for (const [body, field] of cases) {
      const res = await api('POST', `${mesh.adminBaseUrl}/providers`, { token: boot.apiKey, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatch(field);
    }
    expect((await api('GET', `${mesh.adminBaseUrl}/providers`, { token: boot.apiKey })).body.total).toBe(before);
  });

  it('rejects webhooks with a wrong signature, for an unknown payment or an unknown provider with 400', async () => {
    const body = JSON.stringify({
      id: `evt_${objectId()}`,
      object: 'event',
      type: 'payment_intent.succeeded',
      created: Math.floor(Date.now() / 1000),
      livemode: true,
      data: {
        object: { id: 'pi_unknown0000000000000000', object: 'payment_intent', status: 'succeeded', metadata: {} },
      },
    });
    const path = `/hooks/provider_a/${provider.id}`;
    const wrong = await postHook(path, body, sign(body, `whsec_${randomBytes(24).toString('hex')}`));
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatch(/signature/);
    expect((await postHook(path, body)).status).toBe(400);
    const unknownPayment = await postHook(path, body, sign(body, provider.webhookSecret));
    expect(unknownPayment.status).toBe(400);
    expect(unknownPayment.body.error).toMatch(/payment/);
    expect((await postHook(`/hooks/provider_a/${objectId()}`, body, sign(body, provider.webhookSecret))).status).toBe(
      400,
    );
    expect((await postHook(`/hooks/provider_b/${provider.id}`, body, sign(body, provider.webhookSecret))).status).toBe(
      400,
    );
    expect(await statusReports()).toEqual([]);
  });

  it('reports a paid payment exactly once, even when the provider resends the event', async () => {
    const req = paymentRequest();
    const created = await rpc(grpc.createPayment, req);
    expect(created.providerType).toBe('provider_a');
    expect(created.providerPaymentId).toMatch(/^pi_/);
    expect(created.redirectUrl).toBe(`${sandbox}/pay/${created.providerPaymentId}`);
    const again = await rpc(grpc.createPayment, req);
    expect(again).toEqual(created);

    const paid = await sandboxCall('POST', `/v1/payment_intents/${created.providerPaymentId}/confirm`, {
      payment_method: 'pm_card_visa',
    });
    expect(paid.body.status).toBe('succeeded');

    const reports = await eventually(async () => {
      const r = (await statusReports()).filter((e) => e.data.transactionId === req.transactionId);
      return r.length > 0 ? r : undefined;
    }, 15_000);
    expect(reports).toHaveLength(1);
    expect(reports[0]!.data).toMatchObject({
      organizationId: boot.organizationId,
      providerId: provider.id,
      providerPaymentId: created.providerPaymentId,
      outcome: 'succeeded',
    });

    const events = await sandboxCall('GET', '/v1/events?type=payment_intent.succeeded&limit=10');
    const event = events.body.data.find(
      (e: { data: { object: { id: string } } }) => e.data.object.id === created.providerPaymentId,
    );
    expect(event.id).toBe(reports[0]!.data.providerEventId);
    const resend = await fetch(`${sandbox}/_sandbox/events/${event.id}/resend`, {
      method: 'POST',
      headers: { authorization: `Bearer ${provider.secretKey}` },
    });
    expect(resend.status).toBeLessThan(300);
    const redelivered = await eventually(async () => {
      const d = await sandboxCall('GET', `/_sandbox/deliveries?event=${event.id}`);
      return d.body.data.find((x: { resend: boolean; ok: boolean }) => x.resend && x.ok);
    }, 10_000);
    expect(redelivered.status_code).toBe(200);

    // A replay of the same signed bytes by anyone is acknowledged as a duplicate.
    const retrieved = await sandboxCall('GET', `/v1/events/${event.id}`);
    const body = JSON.stringify(retrieved.body, null, 2);
    const replay = await postHook(`/hooks/provider_a/${provider.id}`, body, sign(body, provider.webhookSecret));
    expect(replay).toEqual({ status: 200, body: { received: true, duplicate: true } });

    // Both redeliveries were recognised by their claim (not merely deduplicated by the bus).
    const duplicates = await eventually(() => {
      const lines = mesh
        .logs('payments-webhooks')
        .filter((l) => l.includes('duplicate provider event delivery') && l.includes(event.id));
      return lines.length >= 2 ? lines : undefined;
    }, 10_000);
    expect(duplicates).toHaveLength(2);
    await meshQuiet(PG_URL, NATS_URL, mesh.namespace);
    expect((await statusReports()).filter((e) => e.data.transactionId === req.transactionId)).toHaveLength(1);

    const captured = await rpc(grpc.cancelPayment, {
      organizationId: boot.organizationId,
      providerId: provider.id,
      transactionId: req.transactionId,
    }).catch((e: unknown) => e);
    expect(captured).toMatchObject({ kind: 'conflict', code: 'PAYMENT_ALREADY_CAPTURED' });
  });

  it('cancels an open payment idempotently and reports the cancellation once', async () => {
    const req = paymentRequest();
    const created = await rpc(grpc.createPayment, req);
    const ref = { organizationId: boot.organizationId, providerId: provider.id, transactionId: req.transactionId };
    expect(await rpc(grpc.cancelPayment, ref)).toEqual({ cancelled: true });
    expect(await rpc(grpc.cancelPayment, ref)).toEqual({ cancelled: true });
    expect((await sandboxCall('GET', `/v1/payment_intents/${created.providerPaymentId}`)).body.status).toBe('canceled');

    const reports = await eventually(async () => {
      const r = (await statusReports()).filter((e) => e.data.transactionId === req.transactionId);
      return r.length > 0 ? r : undefined;
    }, 15_000);
    expect(reports.map((r) => r.data.outcome)).toEqual(['cancelled']);

    expect(await rpc(grpc.cancelPayment, { ...ref, transactionId: objectId() }).catch((e: unknown) => e)).toMatchObject(
      { kind: 'not_found' },
    );
    const foreign = await rpc(grpc.createPayment, paymentRequest({ organizationId: objectId() })).catch(
      (e: unknown) => e,
    );
    expect(foreign).toMatchObject({ kind: 'not_found' });
    const wrongMode = await rpc(grpc.createPayment, paymentRequest({ testMode: true })).catch((e: unknown) => e);
    expect(wrongMode).toMatchObject({ kind: 'not_found' });
  });
});
