import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, eventually, logLineOf, startTestMesh, type TestMesh } from '../support/mesh';
import { IpnReceiver } from '../support/ipn-receiver';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';

// One X-Request-ID and one trace from the merchant's checkout create to the IPN the merchant's
// server receives, with spans exported to an OTLP receiver.
//
// What carries the trace between the hops that are not ours: the buyer's calls (transaction
// create on the Main Backend, "Pay" on the provider_a sandbox's page) send the same X-Request-ID
// and traceparent as the merchant's checkout create, as a merchant's instrumented front end would;
// a plain browser sends none and starts a trace of its own, found again by the transaction ID.
// The provider_a sandbox sends its webhooks with the trace context of the request that caused the
// event (a real provider starts afresh; see sandboxes/provider-a/src/webhooks/trace-context.ts).

/** Rate limits count this address (the mesh allow-lists 127.0.0.1), so the limiter asks Redis. */
const COUNTED_IP = '127.0.0.2';

const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

function postFrom(
  url: string,
  token: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; headers: Record<string, unknown>; body: any }> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        localAddress: COUNTED_IP,
        headers: {
          ...headers,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(data),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined }),
        );
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const dbSystem = (s: ReceivedSpan) => s.attributes['db.system'] ?? s.attributes['db.system.name'];
const httpUrl = (s: ReceivedSpan) => String(s.attributes['url.full'] ?? s.attributes['http.url'] ?? '');
const httpPath = (s: ReceivedSpan) =>
  String(s.attributes['url.path'] ?? s.attributes['http.target'] ?? s.attributes['http.route'] ?? '');

describe('tracing: one request followed from checkout to IPN', () => {
  let mesh: TestMesh;
  let otlp: OtlpReceiver;
  const receiver = new IpnReceiver();
  let receiverUrl: string;

  beforeAll(async () => {
    otlp = new OtlpReceiver();
    const otlpUrl = await otlp.start();
    receiverUrl = await receiver.start();
    mesh = await startTestMesh({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl } });
  });

  afterAll(async () => {
    await mesh?.dispose();
    await receiver.stop();
    await otlp?.stop();
  });

  it('puts the checkout create, the transaction create, the provider webhook and the IPN POST in one trace under one X-Request-ID', async () => {
    const boot = await mesh.bootstrap();
    const providerId = boot.providers?.provider_a?.id;
    expect(providerId).toBeTruthy();
    const requestId = `flow-${Date.now()}-${randomBytes(3).toString('hex')}`;
    const traceId = randomBytes(16).toString('hex');
    const traced = () => ({
      'x-request-id': requestId,
      traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
    });
    const ipnPath = `/ipn/${requestId}`;

    // 1. The merchant's server creates the checkout (from a rate-limited address).
    const checkout = await postFrom(`${mesh.adminBaseUrl}/checkouts/${boot.siteId}/create`, boot.apiKey, traced(), {
      amount: 1190,
      currency: 'EUR',
      email: 'buyer@example.com',
      externalReference: requestId,
      returnUrl: 'https://shop.example/return/{transactionId}',
      ipnUrl: `${receiverUrl}${ipnPath}`,
      items: [
        { name: 'Item', description: 'traced', quantity: 1, unitPrice: 1190, vatRate: 19, itemType: 'digital_service' },
      ],
    });
    expect(checkout.status).toBe(200);
    expect(checkout.headers['x-request-id']).toBe(requestId);

    // 2. The buyer's page creates the transaction on the Main Backend.
    const tx = await api('POST', `${mesh.publicBaseUrl}/transactions/create`, {
      headers: traced(),
      body: {
        sessionPublicId: checkout.body.sessionPublicId,
        providerId,
        billingAddress: {
          name: 'Buyer',
          email: 'buyer@example.com',
          line1: 'Main St 1',
          city: 'Berlin',
          postalCode: '10115',
          country: 'DE',
        },
      },
    });
    expect([200, 201]).toContain(tx.status);
    const transactionId = tx.body.transactionId as string;

    // 3. The buyer presses "Pay" on the sandbox's page; its webhook reaches gateway-public.
    const pay = await fetch(tx.body.redirectUrl as string, {
      method: 'POST',
      headers: { ...traced(), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=pay',
      redirect: 'manual',
    });
    await pay.body?.cancel();
    expect(pay.status).toBe(303);

    // 4. The merchant's server gets the IPN, with the trace's traceparent.
    const ipn = await eventually(
      () =>
        receiver.at(ipnPath).find((r) => (JSON.parse(r.rawBody.toString('utf8')) as { status?: number }).status === 1),
      30_000,
    );
    expect(JSON.parse(ipn.rawBody.toString('utf8'))).toMatchObject({ id: transactionId, status: 1 });
    expect(String(ipn.headers.traceparent)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    // The attempt is logged under the request ID too.
    await eventually(() => logLineOf(mesh, 'notifications-ipn', requestId, (l) => l.msg === 'IPN delivered'));

    // Every hop's spans, exported (batched) by each service.
    const need: [string, (s: ReceivedSpan) => boolean][] = [
      [
        'gateway-admin HTTP server span',
        (s) => s.service === 'gateway-admin' && s.kind === SPAN_KIND.server && s.attributes['request.id'] === requestId,
      ],
      ['gateway-admin Redis span (rate limit)', (s) => s.service === 'gateway-admin' && dbSystem(s) === 'redis'],
      [
        'gateway-admin gRPC client span',
        (s) => s.service === 'gateway-admin' && s.kind === SPAN_KIND.client && s.attributes['rpc.system'] === 'grpc',
      ],
      [
        'checkout gRPC server span',
        (s) => s.service === 'checkout' && s.kind === SPAN_KIND.server && s.attributes['rpc.system'] === 'grpc',
      ],
      ['checkout PostgreSQL span', (s) => s.service === 'checkout' && dbSystem(s) === 'postgresql'],
      [
        'gateway-public HTTP server span (transaction create)',
        (s) =>
          s.service === 'gateway-public' && s.kind === SPAN_KIND.server && httpPath(s).includes('/transactions/create'),
      ],
      [
        'payments-webhooks HTTP client span to the provider',
        (s) =>
          s.service === 'payments-webhooks' &&
          s.kind === SPAN_KIND.client &&
          httpUrl(s).startsWith(mesh.sandboxUrls['sandbox-provider-a']!),
      ],
      [
        'gateway-public HTTP server span (provider webhook)',
        (s) =>
          s.service === 'gateway-public' &&
          s.kind === SPAN_KIND.server &&
          httpPath(s).includes('/hooks/') &&
          s.attributes['request.id'] === requestId,
      ],
      [
        'JetStream publish span',
        (s) =>
          s.kind === SPAN_KIND.producer && s.name.startsWith('publish ') && s.attributes['messaging.system'] === 'nats',
      ],
      [
        'notifications-ipn consume span',
        (s) => s.service === 'notifications-ipn' && s.kind === SPAN_KIND.consumer && s.name.startsWith('consume '),
      ],
      [
        'notifications-ipn delivery span',
        (s) =>
          s.service === 'notifications-ipn' && s.name === 'ipn delivery' && s.attributes['request.id'] === requestId,
      ],
      [
        'notifications-ipn HTTP client span to the receiver',
        (s) =>
          s.service === 'notifications-ipn' && s.kind === SPAN_KIND.client && httpUrl(s) === `${receiverUrl}${ipnPath}`,
      ],
    ];
    const inTrace = await eventually(() => {
      const spans = otlp.spans.filter((s) => s.traceId === traceId);
      return need.every(([, pred]) => spans.some(pred)) ? spans : undefined;
    }, 20_000).catch((err: unknown) => {
      const spans = otlp.spans.filter((s) => s.traceId === traceId);
      const missing = need.filter(([, pred]) => !spans.some(pred)).map(([what]) => what);
      throw new Error(`${String(err)}; missing in trace ${traceId}: ${missing.join(', ')}`);
    });

    // Consumers are children of producer spans (each hop over JetStream is a parent link), and the
    // IPN POST hangs off the delivery span, which continues the consumed status change. Parents
    // may be exported in a later batch than their children: wait for them.
    const post = inTrace.find(
      (s) =>
        s.service === 'notifications-ipn' && s.kind === SPAN_KIND.client && httpUrl(s) === `${receiverUrl}${ipnPath}`,
    )!;
    const linked = await eventually(() => {
      const byId = new Map(otlp.spans.filter((s) => s.traceId === traceId).map((s) => [s.spanId, s]));
      const consumes = [...byId.values()].filter((s) => s.kind === SPAN_KIND.consumer && s.name.startsWith('consume '));
      const delivery = byId.get(post.parentSpanId ?? '');
      const deliveryParent = byId.get(delivery?.parentSpanId ?? '');
      const ok =
        consumes.every((c) => byId.get(c.parentSpanId ?? '')?.kind === SPAN_KIND.producer) &&
        deliveryParent !== undefined;
      return ok ? { consumes, delivery, deliveryParent } : undefined;
    }, 10_000);
    expect(linked.consumes.length).toBeGreaterThan(0);
    expect(linked.delivery?.name).toBe('ipn delivery');
    expect(linked.deliveryParent?.kind).toBe(SPAN_KIND.consumer);
  });
});
