import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, eventually, startTestMesh, type TestMesh } from '../support/mesh';
import type { BootstrapResult } from '../../deploy/local/bootstrap-lib.mjs';

const MAIN_FRONTEND = 'https://checkout.paymesh.test';
const address = (email: string) => ({
  name: 'Erika Buyer',
  email,
  line1: 'Hauptstr. 1',
  city: 'Berlin',
  postalCode: '10115',
  country: 'DE',
});

/**
 * Disputes and customer risk holds end to end: the buyer pays through the provider_a sandbox, the
 * sandbox (or an operator through PATCH .../chargeback/:chargebackId) opens and decides the
 * dispute, and the next checkout of the same buyer is blocked, held or restricted as the
 * organization's hold policy says, with the documented 409 carrying its code and requestId.
 */
describe('disputes and customer risk holds', () => {
  let mesh: TestMesh;
  let boot: BootstrapResult;
  let provider: { id: string; secretKey: string };
  let sandbox: string;
  let admin: string;
  let pub: string;
  let n = 0;

  const adminCall = (method: string, path: string, body?: unknown) =>
    api(method, `${admin}${path}`, { token: boot.apiKey, ...(body !== undefined ? { body } : {}) });

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

  const statusOf = async (transactionId: string) =>
    (await api('GET', `${pub}/transactions/${transactionId}/status`)).body.status as number;
  const waitStatus = (transactionId: string, status: number) =>
    eventually(async () => (await statusOf(transactionId)) === status, 20_000);

  /** A checkout of the buyer `email` (the Admin API answer as it is). */
  const createCheckout = (email: string | undefined) =>
    adminCall('POST', `/checkouts/${boot.siteId}/create`, {
      amount: 5000,
      currency: 'EUR',
      externalReference: `hold-${++n}`,
      ...(email ? { email } : {}),
    });

  /** The buyer submits the session with a provider (record id or type). */
  const submit = (sessionPublicId: string, email: string, providerId = provider.id) =>
    api('POST', `${pub}/transactions/create`, {
      body: { sessionPublicId, providerId, billingAddress: address(email) },
      headers: { origin: MAIN_FRONTEND },
    });

  /** Buyer pays `sessionPublicId` through the sandbox. */
  async function pay(sessionPublicId: string, email: string): Promise<{ transactionId: string; charge: string }> {
    const t = await submit(sessionPublicId, email);
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    const transactionId = t.body.transactionId as string;
    const pi = (await adminCall('GET', `/transactions/${transactionId}`)).body.providerPaymentId as string;
    const paid = await sandboxCall('POST', `/v1/payment_intents/${pi}/confirm`, { payment_method: 'pm_card_visa' });
    expect(paid.status).toBe(200);
    await waitStatus(transactionId, 1);
    return { transactionId, charge: paid.body.latest_charge as string };
  }

  /** A paid checkout of `email` with an open dispute; answers the transaction and the dispute id. */
  async function disputed(email: string): Promise<{ transactionId: string; disputeId: string }> {
    const c = await createCheckout(email);
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    const { transactionId, charge } = await pay(c.body.sessionPublicId, email);
    const dispute = await sandboxCall('POST', `/_sandbox/charges/${charge}/dispute`, { reason: 'fraudulent' });
    expect(dispute.status).toBe(200);
    await waitStatus(transactionId, 4);
    return { transactionId, disputeId: dispute.body.id as string };
  }

  /** The documented 409: code and the request's own ID in the body. */
  function expectConflict(res: { status: number; headers: Headers; body: any }, code: string): void {
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.code).toBe(code);
    expect(res.body.requestId).toBeTruthy();
    expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
  }

  const holdsOf = async (transactionId: string) =>
    (await adminCall('GET', `/customer-holds?transactionId=${transactionId}`)).body.items as any[];

  beforeAll(async () => {
    mesh = await startTestMesh({ env: { MAIN_FRONTEND_ORIGIN: MAIN_FRONTEND } });
    admin = mesh.adminBaseUrl;
    pub = mesh.publicBaseUrl;
    sandbox = mesh.sandboxUrls['sandbox-provider-a']!;
    boot = await mesh.bootstrap();
    provider = boot.providers!.provider_a!;
  });

  afterAll(async () => {
    await mesh?.dispose();
  });

  it('an open dispute blocks the buyer (409 CHECKOUT_BLOCKED_BY_DISPUTE); won restores status 1 and leaves no hold', async () => {
    const { transactionId, disputeId } = await disputed('won@example.com');
    expectConflict(await createCheckout('Won@Example.com'), 'CHECKOUT_BLOCKED_BY_DISPUTE');
    // The buyer's e-mail entered on a session that does not name it.
    const anonymous = await createCheckout(undefined);
    expect(anonymous.status).toBe(200);
    expectConflict(await submit(anonymous.body.sessionPublicId, 'won@example.com'), 'CHECKOUT_BLOCKED_BY_DISPUTE');
    expect((await createCheckout('someone-else@example.com')).status).toBe(200);

    const view = (await adminCall('GET', `/transactions/${transactionId}`)).body;
    expect(view.chargebacks).toEqual([
      expect.objectContaining({
        id: disputeId,
        status: 'open',
        amount: 5000,
        currency: 'EUR',
        resolvedAt: null,
        decidedBy: 'provider',
      }),
    ]);
    expect(view.refunds).toEqual([]);

    expect((await sandboxCall('POST', `/_sandbox/disputes/${disputeId}/close`, { outcome: 'won' })).status).toBe(200);
    await waitStatus(transactionId, 1);
    expect((await createCheckout('won@example.com')).status).toBe(200);
    expect(await holdsOf(transactionId)).toEqual([]);
  });

  it('a lost dispute of an invoice payment writes ONE chargeback credit note and a hold; the next checkout answers 409 until an Admin lifts it', async () => {
    const email = 'lost@example.com';
    const client = await adminCall('POST', '/clients', {
      name: 'Lost Buyer',
      email,
      address: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
    });
    expect(client.status).toBe(201);
    const draft = await adminCall('POST', '/invoices', {
      siteId: boot.siteId,
      clientId: client.body.id,
      currency: 'EUR',
      items: [{ description: 'Consulting', quantity: 1, unitPrice: 11900, amountType: 'gross', itemType: 'service' }],
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const invoice = (await adminCall('POST', `/invoices/${draft.body.id}/issue`)).body;
    const link = await adminCall('POST', `/invoices/${invoice.id}/payment-checkout`, {});
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    const { transactionId, charge } = await pay(link.body.sessionPublicId, email);
    const dispute = await sandboxCall('POST', `/_sandbox/charges/${charge}/dispute`, {
      reason: 'product_not_received',
    });
    await waitStatus(transactionId, 4);
    expect((await sandboxCall('POST', `/_sandbox/disputes/${dispute.body.id}/close`, { outcome: 'lost' })).status).toBe(
      200,
    );

    const holds = await eventually(async () => {
      const list = await holdsOf(transactionId);
      return list.length ? list : undefined;
    }, 20_000);
    expect(holds).toHaveLength(1);
    expect(holds[0]).toMatchObject({
      status: 'active',
      action: 'block',
      buyer: { emails: [email] },
      source: { transactionId, chargebackId: dispute.body.id, outcome: 'lost', decidedBy: 'provider' },
    });
    const notes = await eventually(async () => {
      const items = (await adminCall('GET', `/credit-notes?invoiceId=${invoice.id}`)).body.items as any[];
      return items.length ? items : undefined;
    }, 20_000);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ kind: 'chargeback', transactionId });
    expect(await statusOf(transactionId)).toBe(4);

    expectConflict(await createCheckout(email), 'CHECKOUT_BLOCKED_BY_CUSTOMER_HOLD');
    expect((await adminCall('GET', `/customer-holds?email=LOST@example.com&status=active`)).body.total).toBe(1);

    const lifted = await adminCall('POST', `/customer-holds/${holds[0].id}/lift`, { reason: 'settled with the buyer' });
    expect(lifted.status, JSON.stringify(lifted.body)).toBe(200);
    expect(lifted.body).toMatchObject({
      status: 'lifted',
      liftReason: 'settled with the buyer',
      liftedBy: expect.stringMatching(/^api_key:/),
    });
    expect(lifted.body.liftedAt).toBeTruthy();
    expect((await createCheckout(email)).status).toBe(200);
    // Lifting again changes nothing; the hold stays on record.
    const again = await adminCall('POST', `/customer-holds/${holds[0].id}/lift`);
    expect(again.body.liftedAt).toBe(lifted.body.liftedAt);
    expect((await adminCall('GET', `/customer-holds/${holds[0].id}`)).body.status).toBe('lifted');
    expect((await adminCall('GET', `/credit-notes?invoiceId=${invoice.id}`)).body.items).toHaveLength(1);
  });

  it('manual resolution: PATCH lost holds the buyer (repeat answers unchanged, another status 409), PATCH won restores status 1', async () => {
    const lost = await disputed('manual-lost@example.com');
    const path = `/transactions/${lost.transactionId}/chargeback/${lost.disputeId}`;
    const res = await adminCall('PATCH', path, { status: 'lost', reason: 'no evidence to submit' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe(4);
    expect(res.body.chargebacks[0]).toMatchObject({
      status: 'lost',
      decidedBy: expect.stringMatching(/^api_key:/),
      decisionReason: 'no evidence to submit',
    });
    const repeat = await adminCall('PATCH', path, { status: 'lost' });
    expect(repeat.status).toBe(200);
    expect(repeat.body.updatedAt).toBe(res.body.updatedAt);
    expectConflict(await adminCall('PATCH', path, { status: 'won' }), 'CHARGEBACK_FINAL');
    expect(await holdsOf(lost.transactionId)).toHaveLength(1);
    expectConflict(await createCheckout('manual-lost@example.com'), 'CHECKOUT_BLOCKED_BY_CUSTOMER_HOLD');
    // The provider deciding it differently later changes nothing.
    expect((await sandboxCall('POST', `/_sandbox/disputes/${lost.disputeId}/close`, { outcome: 'won' })).status).toBe(
      200,
    );
    await eventually(
      () =>
        mesh
          .logs('checkout')
          .some(
            (l) =>
              l.includes(lost.transactionId) &&
              l.includes('refund or dispute recorded') &&
              l.includes('"result":"unchanged"'),
          ),
      20_000,
    );
    expect(await statusOf(lost.transactionId)).toBe(4);

    const won = await disputed('manual-won@example.com');
    const restored = await adminCall('PATCH', `/transactions/${won.transactionId}/chargeback/${won.disputeId}`, {
      status: 'won',
    });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body.status).toBe(1);
    expect(restored.body.statusHistory.at(-1)).toMatchObject({ from: 4, to: 1, trigger: 'manual_dispute_won' });
    expect(await holdsOf(won.transactionId)).toEqual([]);
    expect((await createCheckout('manual-won@example.com')).status).toBe(200);

    expect(
      (await adminCall('PATCH', `/transactions/${won.transactionId}/chargeback/dp_unknown`, { status: 'lost' })).status,
    ).toBe(404);
    expect((await adminCall('PATCH', path, { status: 'reversed' })).status).toBe(400);
  });

  it('restrict policy: the held buyer sees only bank-transfer-capable providers and a card payment answers 409 CHECKOUT_RESTRICTED_BY_CUSTOMER_HOLD', async () => {
    expect((await adminCall('PUT', '/organizations/settings/risk', { safeProviderTypes: ['provider_a'] })).status).toBe(
      400,
    );
    const policy = await adminCall('PUT', '/organizations/settings/risk', { holdPolicy: 'restrict' });
    expect(policy.status, JSON.stringify(policy.body)).toBe(200);
    expect(policy.body).toMatchObject({ holdPolicy: 'restrict', safeProviderTypes: ['provider_b'] });
    try {
      const transfer = await adminCall('POST', '/providers', {
        type: 'provider_b',
        name: 'Bank transfer',
        credentials: { apiKey: 'live_abcdefghijklmnopqrstuvwxyz' },
      });
      expect(transfer.status, JSON.stringify(transfer.body)).toBe(201);
      const held = await disputed('restricted@example.com');
      expect(
        (
          await adminCall('PATCH', `/transactions/${held.transactionId}/chargeback/${held.disputeId}`, {
            status: 'accepted',
          })
        ).status,
      ).toBe(200);
      expect((await holdsOf(held.transactionId))[0]).toMatchObject({
        action: 'restrict',
        safeProviderTypes: ['provider_b'],
        source: { outcome: 'accepted' },
      });

      const c = await createCheckout('restricted@example.com');
      expect(c.status, JSON.stringify(c.body)).toBe(200);
      const view = await api('GET', `${pub}/checkouts/${c.body.sessionPublicId}`, {
        headers: { origin: MAIN_FRONTEND },
      });
      expect(view.body.providers).toEqual(['provider_b']);
      expectConflict(
        await submit(c.body.sessionPublicId, 'restricted@example.com'),
        'CHECKOUT_RESTRICTED_BY_CUSTOMER_HOLD',
      );
      const other = await createCheckout('unrestricted@example.com');
      const otherView = await api('GET', `${pub}/checkouts/${other.body.sessionPublicId}`, {
        headers: { origin: MAIN_FRONTEND },
      });
      expect([...otherView.body.providers].sort()).toEqual(['provider_a', 'provider_b', 'provider_c', 'provider_d']);
    } finally {
      expect((await adminCall('PUT', '/organizations/settings/risk', { holdPolicy: 'block' })).status).toBe(200);
    }
  });
});
