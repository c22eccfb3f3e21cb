import { beforeAll, describe, expect, it } from 'vitest';
import { paymentStatusReported, Subjects } from '@paymesh/contracts';
import { createPayment } from '../src/app/create-payment';
import type { PaymentsDeps } from '../src/app/deps';
import { handleWebhook } from '../src/app/handle-webhook';
import { lookAt, reconcilePayments } from '../src/app/reconcile-payments';
import type { PaymentDoc } from '../src/domain/payment';
import { providerAClient } from '../src/providers/provider-a/adapter';
import { EVENT_CLAIMS, PAYMENTS } from '../src/store/collections';
import { harnessForTests, objectId, paymentCmd, signedEvent, testKey, testProvider, webhookSecret } from './harness';

const h = harnessForTests();
let deps: PaymentsDeps;
const reconcile = { minPendingAgeMs: 0, intervalMs: 60_000, maxAgeMs: 3_600_000 };

beforeAll(() => {
  deps = { ...h.deps, reconcile };
});

async function startedPayment() {
  const secretKey = testKey();
  const secret = webhookSecret();
  const provider = await testProvider(deps, 'provider_a', 'Cards', { secretKey, webhookSecret: secret });
  const cmd = paymentCmd(provider);
  const res = await createPayment(deps, cmd);
  const stored = async () =>
    (await h.store.collection<PaymentDoc>(PAYMENTS).findOne({ transactionId: cmd.transactionId }))!;
  const client = providerAClient(secretKey, h.sandboxUrl, { timeoutMs: 3000, maxNetworkRetries: 0 });
  return { provider, secret, cmd, res, stored, client };
}

const reportsFor = async (transactionId: string) =>
  (await h.store.outbox.pending(1000))
    .filter((e) => e.subject === Subjects.paymentStatusReported)
    .map((e) => paymentStatusReported.parse((e.payload as { data: unknown }).data))
    .filter((d) => d.transactionId === transactionId);

describe('reconciler', () => {
  it('schedules a new payment, looks at it, and never guesses while the provider has it pending', async () => {
    const { cmd, stored } = await startedPayment();
    const before = await stored();
    expect(before).toMatchObject({ status: 'pending', reconcileAt: before.createdAt, reconcileLooks: 0 });
    expect(await lookAt(deps, before, reconcile)).toBe('unchanged');
    const after = await stored();
    expect(after.status).toBe('pending');
    expect(after.reconcileLooks).toBe(1);
    expect(Date.parse(after.reconcileAt!)).toBeGreaterThan(Date.parse(before.reconcileAt!));
    expect(await reportsFor(cmd.transactionId)).toEqual([]);
    // Not due again until its next look time.
    expect(await lookAt(deps, after, reconcile)).toBe('taken');
  });

  it('applies a missed success once however many replicas look, and a late webhook for it is a duplicate', async () => {
    const { provider, secret, cmd, res, stored, client } = await startedPayment();
    await client.paymentIntents.confirm(res.providerPaymentId, { payment_method: 'pm_card_visa' });
    const due = await stored();
    const results = await Promise.all(Array.from({ length: 4 }, () => lookAt(deps, due, reconcile)));
    expect(results.filter((r) => r === 'applied')).toHaveLength(1);
    expect(results.filter((r) => r === 'taken')).toHaveLength(3);
    expect((await stored()).status).toBe('succeeded');
    const reports = await reportsFor(cmd.transactionId);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({
      outcome: 'succeeded',
      providerEventId: `outcome:${res.providerPaymentId}:succeeded`,
      providerEventType: 'reconcile.succeeded',
    });

    const intent = await client.paymentIntents.retrieve(res.providerPaymentId);
    const late = await handleWebhook(deps, {
      providerType: 'provider_a',
      providerId: provider.id,
      ...signedEvent(secret, { id: `evt_${objectId()}`, type: 'payment_intent.succeeded', object: intent }),
    });
    expect(late.outcome).toBe('duplicate');
    expect(await reportsFor(cmd.transactionId)).toHaveLength(1);
    expect(await h.store.collection(EVENT_CLAIMS).count({ transactionId: cmd.transactionId })).toBe(1);
  });

  it('a pass takes due payments only, up to the batch size', async () => {
    const a = await startedPayment();
    await a.client.paymentIntents.cancel(a.res.providerPaymentId);
    const pass = await reconcilePayments(deps, { ...reconcile, batchSize: 1000 });
    expect(pass.applied).toBeGreaterThanOrEqual(1);
    expect((await a.stored()).status).toBe('cancelled');
    expect((await reportsFor(a.cmd.transactionId)).map((r) => r.outcome)).toEqual(['cancelled']);
    // Everything just looked at is scheduled a minute on: nothing is due now.
    expect((await reconcilePayments(deps, { ...reconcile, batchSize: 1000 })).looked).toBe(0);
  });
});
