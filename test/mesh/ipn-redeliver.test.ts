import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyIpn } from '../../libs/contracts/src/ipn-signature';
import { IpnReceiver } from '../support/ipn-receiver';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';

/**
 * `POST /transactions/:id/ipn/redeliver` through the whole mesh: a merchant asks for a
 * transaction's current status again and its receiver gets a new, freshly signed IPN; the attempt
 * log says who asked; a new round makes up to three attempts; it is refused while a delivery is
 * still running, without an ipnUrl, and to a Viewer.
 */
describe('sending an IPN again', () => {
  let mesh: TestMesh;
  let boot: Awaited<ReturnType<TestMesh['bootstrap']>>;
  const receiver = new IpnReceiver();
  let receiverUrl: string;
  /** Answers per path: a status, or 200 when not set. */
  const answers = new Map<string, number>();

  const admin = (method: string, path: string, body?: unknown, token = boot.apiKey) =>
    api(method, `${mesh.adminBaseUrl}${path}`, { token, ...(body !== undefined ? { body } : {}) });

  async function paidWithIpn(reference: string): Promise<string> {
    const created = await admin('POST', '/transactions/manual', {
      siteId: boot.siteId,
      amount: 1990,
      currency: 'EUR',
      status: -1,
      reason: 'bank transfer',
      externalReference: reference,
      ipnUrl: `${receiverUrl}/ipn/${reference}`,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const paid = await admin('PUT', `/transactions/${created.body.id}`, { status: 1, reason: 'transfer received' });
    expect(paid.status).toBe(200);
    return created.body.id as string;
  }

  const deliveries = async (id: string) => (await admin('GET', `/transactions/${id}`)).body.ipn.deliveries;

  beforeAll(async () => {
    receiverUrl = await receiver.start();
    receiver.respond = (req) => answers.get(req.path) ?? 200;
    mesh = await startTestMesh({ env: { IPN_BACKOFF_BASE_MS: '300', IPN_TIMEOUT_MS: '2000' } });
    boot = await mesh.bootstrap();
  });

  afterAll(async () => {
    await mesh?.dispose();
    await receiver.stop();
  });

  it('sends the current status again, freshly signed, and records who asked', async () => {
    const id = await paidWithIpn('order-again');
    await eventually(() => receiver.at('/ipn/order-again').length === 1, 20_000);
    await eventually(async () => (await deliveries(id))[0]?.state === 'succeeded', 10_000);

    const asked = await admin('POST', `/transactions/${id}/ipn/redeliver`);
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    expect(asked.body).toMatchObject({ status: 1, state: 'pending' });
    await eventually(() => receiver.at('/ipn/order-again').length === 2, 20_000);
    const [first, second] = receiver.at('/ipn/order-again');
    const verified = verifyIpn(boot.webhookSigningSecret, second!.headers, second!.rawBody);
    expect(verified.valid, JSON.stringify(verified)).toBe(true);
    expect(JSON.parse(second!.rawBody.toString())).toEqual({ id, externalReference: 'order-again', status: 1 });
    // A new signature over a new timestamp, not a replay of the first request.
    expect(second!.headers['x-signature-timestamp']).toBeDefined();
    expect(Number(second!.headers['x-signature-timestamp'])).toBeGreaterThanOrEqual(
      Number(first!.headers['x-signature-timestamp']),
    );

    const keyId = /^sk_live_([^.]+)\./.exec(boot.apiKey)?.[1];
    await eventually(async () => (await deliveries(id))[0]?.state === 'succeeded', 10_000);
    const [delivery] = await deliveries(id);
    expect(
      delivery.attempts.map((a: { number: number; httpStatus: number; requestedBy: string | null }) => [
        a.number,
        a.httpStatus,
        a.requestedBy,
      ]),
    ).toEqual([
      [1, 200, null],
      [2, 200, `api_key:${keyId}`],
    ]);
  });

  it('a new round makes the usual three attempts and is refused while it runs', async () => {
    const id = await paidWithIpn('order-down');
    await eventually(async () => (await deliveries(id))[0]?.state === 'succeeded', 20_000);
    answers.set('/ipn/order-down', 503);
    expect((await admin('POST', `/transactions/${id}/ipn/redeliver`)).status).toBe(202);
    // While the round runs, a second request is refused rather than doubling the deliveries.
    const again = await admin('POST', `/transactions/${id}/ipn/redeliver`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/still being delivered/);
    await eventually(async () => (await deliveries(id))[0]?.state === 'failed', 30_000);
    const [delivery] = await deliveries(id);
    expect(delivery.attempts.map((a: { number: number; httpStatus: number }) => [a.number, a.httpStatus])).toEqual([
      [1, 200],
      [2, 503],
      [3, 503],
      [4, 503],
    ]);
    expect(receiver.at('/ipn/order-down')).toHaveLength(4);
  });

  it('needs an ipnUrl and the Editor role', async () => {
    const plain = await admin('POST', '/transactions/manual', {
      siteId: boot.siteId,
      amount: 500,
      currency: 'EUR',
      status: -1,
      reason: 'cash',
      externalReference: 'order-no-ipn',
    });
    expect(plain.status, JSON.stringify(plain.body)).toBe(201);
    expect((await admin('POST', `/transactions/${plain.body.id}/ipn/redeliver`)).status).toBe(422);

    const viewerKey = await admin('POST', `/organizations/${boot.organizationId}/api-keys`, {
      name: 'read only',
      scopes: ['transaction:read', 'transaction:execute'],
      role: 'Viewer',
    });
    expect(viewerKey.status, JSON.stringify(viewerKey.body)).toBe(201);
    const refused = await admin(
      'POST',
      `/transactions/${plain.body.id}/ipn/redeliver`,
      undefined,
      viewerKey.body.token,
    );
    expect(refused.status).toBe(403);
    expect((await admin('POST', `/transactions/${'0'.repeat(24)}/ipn/redeliver`)).status).toBe(404);
  });
});
