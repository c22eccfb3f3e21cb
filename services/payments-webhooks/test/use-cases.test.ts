import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, UnprocessableError, ValidationError } from '@paymesh/core';
import { paymentStatusReported, Subjects } from '@paymesh/contracts';
import { createProvider } from '../src/app/create-provider';
import { createPayment } from '../src/app/create-payment';
import { cancelPayment } from '../src/app/cancel-payment';
import { handleWebhook } from '../src/app/handle-webhook';
import { deleteProvider, getProvider, listProviders, toggleProvider } from '../src/app/manage-providers';
import type { PaymentDoc } from '../src/domain/payment';
import { EVENT_CLAIMS, PAYMENTS, PROVIDERS, WEBHOOK_RECEIPTS } from '../src/store/collections';
import {
  harnessForTests,
  objectId,
  paymentCmd,
  rejection,
  signedEvent,
  testKey,
  testProvider,
  webhookSecret,
} from './harness';

const h = harnessForTests();

async function newProvider(
  opts: { organizationId?: string; mode?: 'live' | 'test'; secretKey?: string; secret?: string } = {},
) {
  const organizationId = opts.organizationId ?? objectId();
  const secret = opts.secret ?? webhookSecret();
  const secretKey = opts.secretKey ?? testKey();
  const provider = await testProvider(
    h.deps,
    'provider_a',
    'Cards',
    { secretKey, webhookSecret: secret },
    { organizationId, mode: opts.mode ?? 'test' },
  );
  return { provider, secret, secretKey, organizationId };
}

async function counts() {
  return {
    claims: await h.store.collection(EVENT_CLAIMS).count({}),
    outbox: (await h.store.outbox.pending(1000)).length,
  };
}

describe('provider records', () => {
  it('registers the webhook endpoint at the provider when no secret is given, and seals the credentials', async () => {
    const secretKey = testKey();
    const organizationId = objectId();
    const created = await createProvider(h.deps, {
      organizationId,
      mode: 'test',
      type: 'provider_a',
      name: '  Cards ',
      credentialsJson: JSON.stringify({ secretKey }),
    });
    expect(created.webhookSecret).toMatch(/^whsec_/);
    expect(created.provider).toMatchObject({ name: 'Cards', enabled: true, type: 'provider_a', mode: 'test' });
    expect(created.provider.credentialHints).toEqual({
      secretKey: `sk_test_…${secretKey.slice(-4)}`,
      webhookSecret: `whsec_…${created.webhookSecret!.slice(-4)}`,
    });

    const endpoints = await new Stripe(secretKey, {
      host: '127.0.0.1',
      port: Number(new URL(h.sandboxUrl).port),
      protocol: 'http',
    }).webhookEndpoints.list();
    expect(endpoints.data.map((e) => e.url)).toEqual([
      `http://127.0.0.1:18081/hooks/provider_a/${created.provider.id}`,
    ]);
    expect(endpoints.data[0]!.id).toBe(created.provider.webhookEndpointId);

    const stored = JSON.stringify(await h.store.collection(PROVIDERS).get(created.provider.id));
    expect(stored).not.toContain(secretKey);
    expect(stored).not.toContain(created.webhookSecret!);
  });

  it('scopes get and list by organization and mode, and hides deleted records', async () => {
    const a = await newProvider();
    const other = await newProvider();
    expect((await getProvider(h.deps, a.organizationId, 'test', a.provider.id)).id).toBe(a.provider.id);
    expect(await rejection(getProvider(h.deps, other.organizationId, 'test', a.provider.id))).toBeInstanceOf(
      NotFoundError,
    );
    expect(await rejection(getProvider(h.deps, a.organizationId, 'live', a.provider.id))).toBeInstanceOf(NotFoundError);
    expect((await listProviders(h.deps, a.organizationId, 'test', 1, 20)).items.map((p) => p.id)).toEqual([
      a.provider.id,
    ]);
    expect((await listProviders(h.deps, a.organizationId, 'live', 1, 20)).total).toBe(0);

    await deleteProvider(h.deps, a.organizationId, 'test', a.provider.id);
    expect(await rejection(getProvider(h.deps, a.organizationId, 'test', a.provider.id))).toBeInstanceOf(NotFoundError);
    expect((await listProviders(h.deps, a.organizationId, 'test', 1, 20)).total).toBe(0);
  });

  it('toggles: flips without a value, sets with one', async () => {
    const a = await newProvider();
    expect((await toggleProvider(h.deps, a.organizationId, 'test', a.provider.id, undefined)).enabled).toBe(false);
    expect((await toggleProvider(h.deps, a.organizationId, 'test', a.provider.id, false)).enabled).toBe(false);
    expect((await toggleProvider(h.deps, a.organizationId, 'test', a.provider.id, undefined)).enabled).toBe(true);
    expect(await rejection(toggleProvider(h.deps, objectId(), 'test', a.provider.id, undefined))).toBeInstanceOf(
      NotFoundError,
    );
  });

  it('rejects unknown types, bad JSON and live keys on test records without writing anything', async () => {
    const organizationId = objectId();
    const base = { organizationId, mode: 'test' as const, name: 'x' };
    const bad = [
      { ...base, type: 'provider_z', credentialsJson: '{}' },
      { ...base, type: 'provider_a', credentialsJson: '{not json' },
      { ...base, type: 'provider_a', credentialsJson: JSON.stringify({ secretKey: 'sk_live_abcdefgh12345' }) },
    ];
    for (const input of bad) expect(await rejection(createProvider(h.deps, input))).toBeInstanceOf(ValidationError);
    expect(await h.store.collection(PROVIDERS).count({ organizationId })).toBe(0);
  });
});

describe('payments', () => {
  it('is idempotent per transaction, also under concurrency, and refuses other parameters', async () => {
    const { provider } = await newProvider();
    const cmd = paymentCmd(provider);
    const results = await Promise.all(Array.from({ length: 5 }, () => createPayment(h.deps, cmd)));
    const ids = new Set(results.map((r) => r.providerPaymentId));
    expect(ids.size).toBe(1);
    expect(results[0]!.redirectUrl).toBe(`${h.sandboxUrl}/pay/${results[0]!.providerPaymentId}`);
    expect(await h.store.collection(PAYMENTS).count({ transactionId: cmd.transactionId })).toBe(1);
    const err = await rejection(createPayment(h.deps, { ...cmd, amount: 1 }));
    expect(err).toBeInstanceOf(ConflictError);
    expect(err).toMatchObject({ code: 'PAYMENT_CONFLICT' });
  });

  it('refuses unknown, foreign, other-mode and disabled providers', async () => {
    const { provider } = await newProvider();
    expect(await rejection(createPayment(h.deps, paymentCmd(provider, { organizationId: objectId() })))).toBeInstanceOf(
      NotFoundError,
    );
    expect(await rejection(createPayment(h.deps, paymentCmd(provider, { mode: 'live' })))).toBeInstanceOf(
      NotFoundError,
    );
    await toggleProvider(h.deps, provider.organizationId, 'test', provider.id, false);
    const disabled = await rejection(createPayment(h.deps, paymentCmd(provider)));
    expect(disabled).toBeInstanceOf(UnprocessableError);
    expect(disabled).toMatchObject({ code: 'PROVIDER_DISABLED' });
  });

  it('cancels idempotently, also through a disabled provider', async () => {
    const { provider } = await newProvider();
    const cmd = paymentCmd(provider);
    await createPayment(h.deps, cmd);
    await toggleProvider(h.deps, provider.organizationId, 'test', provider.id, false);
    const ref = { organizationId: provider.organizationId, providerId: provider.id, transactionId: cmd.transactionId };
    await cancelPayment(h.deps, ref);
    await cancelPayment(h.deps, ref);
    expect((await h.store.collection<PaymentDoc>(PAYMENTS).findOne({ transactionId: cmd.transactionId }))?.status).toBe(
      'cancelled',
    );
    expect(await rejection(cancelPayment(h.deps, { ...ref, organizationId: objectId() }))).toBeInstanceOf(
      NotFoundError,
    );
    expect(await rejection(cancelPayment(h.deps, { ...ref, transactionId: objectId() }))).toBeInstanceOf(NotFoundError);
  });
});

describe('inbound webhooks', () => {
  async function startedPayment() {
    const p = await newProvider();
    const cmd = paymentCmd(p.provider);
    const res = await createPayment(h.deps, cmd);
    const object = {
      id: res.providerPaymentId,
      object: 'payment_intent',
      status: 'succeeded',
      metadata: {
        transaction_id: cmd.transactionId,
        organization_id: cmd.organizationId,
        site_id: cmd.siteId,
        provider_id: p.provider.id,
      },
    };
    return { ...p, cmd, res, object };
  }

  it('claims concurrent duplicate deliveries exactly once and enqueues one status report', async () => {
    const { provider, secret, cmd, res, object } = await startedPayment();
    const eventId = `evt_${objectId()}`;
    const delivery = signedEvent(secret, { id: eventId, type: 'payment_intent.succeeded', object });
    const before = await counts();
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        handleWebhook(h.deps, { providerType: 'provider_a', providerId: provider.id, ...delivery }),
      ),
    );
    expect(results.filter((r) => r.outcome === 'accepted')).toHaveLength(1);
    expect(results.filter((r) => r.outcome === 'duplicate')).toHaveLength(7);
    const after = await counts();
    // The event's claim and the payment's outcome claim (which a reconciler look dedups against).
    expect(after.claims - before.claims).toBe(2);
    const reports = (await h.store.outbox.pending(1000)).filter(
      (e) => e.subject === Subjects.paymentStatusReported && JSON.stringify(e.payload).includes(eventId),
    );
    expect(reports).toHaveLength(1);
    const data = paymentStatusReported.parse((reports[0]!.payload as { data: unknown }).data);
    expect(data).toMatchObject({
      organizationId: cmd.organizationId,
      siteId: cmd.siteId,
      transactionId: cmd.transactionId,
      providerId: provider.id,
      providerType: 'provider_a',
      providerPaymentId: res.providerPaymentId,
      outcome: 'succeeded',
      providerEventId: eventId,
      providerEventType: 'payment_intent.succeeded',
    });
    expect((await h.store.collection<PaymentDoc>(PAYMENTS).findOne({ transactionId: cmd.transactionId }))?.status).toBe(
      'succeeded',
    );
    expect(await h.store.collection(WEBHOOK_RECEIPTS).count({ providerEventId: eventId })).toBe(8);
    expect(await h.store.collection(WEBHOOK_RECEIPTS).count({ providerEventId: eventId, outcome: 'accepted' })).toBe(1);
  });

  it('rejects forged, foreign and mismatched deliveries and writes nothing', async () => {
    const { provider, secret, object } = await startedPayment();
    const other = await startedPayment();
    const send = (d: { rawBody: Buffer; headers: Record<string, string> }, type = 'provider_a', id = provider.id) =>
      rejection(handleWebhook(h.deps, { providerType: type, providerId: id, ...d }));
    const ev = (
      over: Partial<{ id: string; type: string; livemode: boolean; object: Record<string, unknown> }> = {},
    ) => ({
      id: `evt_${objectId()}`,
      type: 'payment_intent.succeeded',
      object,
      ...over,
    });
    const before = await counts();
    const receiptsBefore = await h.store.collection(WEBHOOK_RECEIPTS).count({});
    const cases = [
      send(signedEvent(webhookSecret(), ev())), // wrong secret
      send(signedEvent(secret, ev()), 'provider_b'), // type mismatch
      send(signedEvent(secret, ev()), 'provider_a', objectId()), // unknown record
      send(signedEvent(secret, ev({ livemode: true }))), // live event to a test record
      send(signedEvent(secret, ev({ object: { ...object, id: 'pi_unknown000000000000' } }))), // unknown payment
      send(signedEvent(secret, ev({ object: other.object }))), // another record's payment
      send(
        signedEvent(
          secret,
          ev({ object: { ...object, metadata: { ...object.metadata, transaction_id: objectId() } } }),
        ),
      ),
      send(
        signedEvent(
          secret,
          ev({ object: { ...object, metadata: { ...object.metadata, organization_id: objectId() } } }),
        ),
      ),
    ];
    for (const err of await Promise.all(cases)) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).message).toMatch(/webhook/);
    }
    expect(await counts()).toEqual(before);
    expect(await h.store.collection(WEBHOOK_RECEIPTS).count({})).toBe(receiptsBefore);
  });

  it('acknowledges other events without effect and still settles payments of a disabled provider', async () => {
    const { provider, secret, object, cmd } = await startedPayment();
    const deliver = (type: string, event: Record<string, unknown>) =>
      handleWebhook(h.deps, {
        providerType: 'provider_a',
        providerId: provider.id,
        ...signedEvent(secret, { id: `evt_${objectId()}`, type, object: event }),
      });
    const before = await counts();
    const other = await deliver('charge.succeeded', { id: 'ch_1', object: 'charge' });
    expect(other.outcome).toBe('ignored');
    expect(await counts()).toEqual(before);
    // A refund event whose charge is malformed is refused (400) and changes nothing.
    await expect(deliver('charge.refunded', { id: 'ch_1', object: 'charge' })).rejects.toMatchObject({
      httpStatus: 400,
    });
    expect(await counts()).toEqual(before);

    await toggleProvider(h.deps, provider.organizationId, 'test', provider.id, false);
    // Disabling is announced (payments.provider.changed) for other services' caches.
    const disabled = await counts();
    expect(disabled.outbox - before.outbox).toBe(1);
    const failed = await deliver('payment_intent.payment_failed', { ...object, status: 'requires_payment_method' });
    expect(failed.outcome).toBe('accepted');
    expect((await h.store.collection<PaymentDoc>(PAYMENTS).findOne({ transactionId: cmd.transactionId }))?.status).toBe(
      'failed',
    );
    expect((await counts()).outbox - disabled.outbox).toBe(1);
  });
});
