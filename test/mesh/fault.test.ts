import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';

interface Received {
  id: string;
  status: number;
  validSignature: boolean;
}

/**
 * Crash safety of the money path: while payments are in flight, checkout and notifications-ipn
 * are killed (SIGKILL) and restarted. Afterwards every paid transaction is completed exactly once
 * and every IPN target received a correctly signed IPN with the final status.
 */
describe('fault: crashes of checkout and notifications-ipn during payments', () => {
  const FLOWS = 12;
  let mesh: TestMesh;
  let server: Server;
  let ipnUrl = '';
  const received: Received[] = [];
  let secret = '';

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const ts = String(req.headers['x-signature-timestamp'] ?? '');
        const sig = String(req.headers['x-signature-hmac-sha256'] ?? '');
        const expected = createHmac('sha256', secret).update(`${ts}.`).update(raw).digest('hex');
        const validSignature =
          sig.length === expected.length && timingSafeEqual(Buffer.from(sig), Buffer.from(expected));
        const body = JSON.parse(raw.toString('utf8')) as { id: string; status: number };
        received.push({ id: body.id, status: body.status, validSignature });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const addr = server.address();
    ipnUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/ipn`;
    mesh = await startTestMesh({ env: { IPN_BACKOFF_BASE_MS: '500' } });
  });

  afterAll(async () => {
    await mesh?.dispose();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  });

  it('completes every paid transaction exactly once and delivers its final status, signed', async () => {
    const boot = await mesh.bootstrap();
    secret = boot.webhookSigningSecret;
    const providerId = (boot.providers as { provider_a: { id: string } }).provider_a.id;
    const billingAddress = {
      name: 'Buyer',
      email: 'buyer@example.com',
      line1: 'Main St 1',
      city: 'Berlin',
      postalCode: '10115',
      country: 'DE',
    };

    // Open all checkouts and transactions first, so payments land while services are down.
    const flows = await Promise.all(
      Array.from({ length: FLOWS }, async (_, i) => {
        const checkout = await api('POST', `${mesh.adminBaseUrl}/checkouts/${boot.siteId}/create`, {
          token: boot.apiKey,
          body: {
            amount: 1000 + i,
            currency: 'EUR',
            email: 'buyer@example.com',
            externalReference: `fault-${i}`,
            returnUrl: 'https://shop.example/return/{transactionId}',
            cancelUrl: 'https://shop.example/cancel/{transactionId}',
            ipnUrl,
            items: [
              {
                name: 'Item',
                description: 'fault test',
                quantity: 1,
                unitPrice: 1000 + i,
                vatRate: 19,
                itemType: 'digital_service',
              },
            ],
          },
        });
        expect(checkout.status, JSON.stringify(checkout.body)).toBe(200);
        const tx = await api('POST', `${mesh.publicBaseUrl}/transactions/create`, {
          body: { sessionPublicId: checkout.body.sessionPublicId, providerId, billingAddress },
        });
        expect(tx.status, JSON.stringify(tx.body)).toBe(200);
        expect(tx.body.redirectUrl).toMatch(/^http/);
        return { transactionId: tx.body.transactionId as string, redirectUrl: tx.body.redirectUrl as string };
      }),
    );

    const pay = (url: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'outcome=pay',
        redirect: 'manual',
      });

    // A third of the buyers pay before the crash, a third while both services are down, the rest after.
    const third = Math.ceil(FLOWS / 3);
    await Promise.all(flows.slice(0, third).map((f) => pay(f.redirectUrl)));
    await Promise.all([mesh.kill('checkout'), mesh.kill('notifications-ipn')]);
    await Promise.all(flows.slice(third, 2 * third).map((f) => pay(f.redirectUrl)));
    await Promise.all([mesh.restart('checkout'), mesh.restart('notifications-ipn')]);
    await Promise.all(flows.slice(2 * third).map((f) => pay(f.redirectUrl)));

    for (const f of flows) {
      const record = await eventually(async () => {
        const r = await api('GET', `${mesh.adminBaseUrl}/transactions/${f.transactionId}`, { token: boot.apiKey });
        return r.status === 200 && r.body.status === 1 ? r.body : undefined;
      }, 60_000);
      const completions = (record.statusHistory as { to: number }[]).filter((h) => h.to === 1);
      expect(completions, f.transactionId).toHaveLength(1);
    }

    // Every target received the final status, correctly signed; nothing arrived unsigned.
    await eventually(
      () => flows.every((f) => received.some((r) => r.id === f.transactionId && r.status === 1)),
      60_000,
    );
    expect(received.filter((r) => !r.validSignature)).toEqual([]);
    for (const f of flows) {
      const mine = received.filter((r) => r.id === f.transactionId);
      expect(mine.at(-1)?.status, f.transactionId).toBe(1);
      // Exactly one delivery per status change: at most one "completed" delivery per transaction
      // (a POST can repeat only when a crash cut off an attempt before its outcome was recorded).
      const record = await api('GET', `${mesh.adminBaseUrl}/transactions/${f.transactionId}`, { token: boot.apiKey });
      const completedDeliveries = (record.body.ipn?.deliveries ?? []).filter((d: { status: number }) => d.status === 1);
      expect(completedDeliveries, f.transactionId).toHaveLength(1);
      expect(completedDeliveries[0].state).toBe('succeeded');
    }
  });
});
