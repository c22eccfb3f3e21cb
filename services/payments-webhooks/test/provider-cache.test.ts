import { describe, expect, it } from 'vitest';
import { createPayment } from '../src/app/create-payment';
import { cancelPayment } from '../src/app/cancel-payment';
import { handleWebhook } from '../src/app/handle-webhook';
import { deleteProvider } from '../src/app/manage-providers';
import { ProviderError } from '../src/providers/adapter';
import type { ProviderDoc } from '../src/domain/provider';
import { PROVIDERS } from '../src/store/collections';
import { harnessForTests, objectId, rejection, signedEvent, testKey, testProvider, webhookSecret } from './harness';

const h = harnessForTests();

/** Replaces a record's sealed credentials in the store, as an update or rotation (on any replica) does. */
async function replaceCredentials(id: string, value: { secretKey: string; webhookSecret: string }) {
  await h.store.collection<ProviderDoc>(PROVIDERS).update(id, (cur) => {
    const { id: _id, version: _v, ...rest } = cur;
    return {
      ...rest,
      credentials: h.deps.secrets.seal(JSON.stringify(value), id),
      updatedAt: new Date().toISOString(),
    };
  });
}

function delivery(secret: string, providerId: string, intent: { id: string; metadata: Record<string, string> }) {
  return {
    providerType: 'provider_a',
    providerId,
    ...signedEvent(secret, {
      id: `evt_${objectId()}`,
      type: 'payment_intent.processing',
      object: { object: 'payment_intent', status: 'processing', ...intent },
    }),
  };
}

describe('provider SDK clients are cached per record and credentials', () => {
  it('uses a changed secret key and webhook secret on the very next call', async () => {
    const organizationId = objectId();
    const keyA = testKey();
    const secretA = webhookSecret();
    const provider = await testProvider(
      h.deps,
      'provider_a',
      'Cards',
      { secretKey: keyA, webhookSecret: secretA },
      { organizationId },
    );
    const cmd = {
      organizationId,
      mode: 'test' as const,
      siteId: objectId(),
      providerId: provider.id,
      transactionId: objectId(),
      amount: 1500,
      currency: 'EUR',
      description: null,
      buyerEmail: null,
      returnUrl: null,
    };
    const started = await createPayment(h.deps, cmd);
    const intent = {
      id: started.providerPaymentId,
      metadata: {
        transaction_id: cmd.transactionId,
        organization_id: organizationId,
        site_id: cmd.siteId,
        provider_id: provider.id,
      },
    };
    // Authentic deliveries resolve (a processing event is acknowledged without effect); forged ones throw.
    await expect(handleWebhook(h.deps, delivery(secretA, provider.id, intent))).resolves.toHaveProperty('outcome');
    const built = h.deps.adapters.size;

    // Rotate both credentials: the sandbox keeps payments per API key, so the payment started
    // with key A is unknown to key B; a stale client would still find (and cancel) it.
    const secretB = webhookSecret();
    await replaceCredentials(provider.id, { secretKey: testKey(), webhookSecret: secretB });
    const err = await rejection(
      cancelPayment(h.deps, { organizationId, providerId: provider.id, transactionId: cmd.transactionId }),
    );
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).providerKind).toBe('not_found');
    expect(String(await rejection(handleWebhook(h.deps, delivery(secretA, provider.id, intent))))).toMatch(/signature/);
    await expect(handleWebhook(h.deps, delivery(secretB, provider.id, intent))).resolves.toHaveProperty('outcome');
    expect(h.deps.adapters.size).toBe(built);

    // Back to key A: the payment is found and cancelled with it.
    await replaceCredentials(provider.id, { secretKey: keyA, webhookSecret: secretA });
    await cancelPayment(h.deps, { organizationId, providerId: provider.id, transactionId: cmd.transactionId });

    // Deleting the record drops its client; webhooks of its payments still verify afterwards.
    await deleteProvider(h.deps, organizationId, 'test', provider.id);
    expect(h.deps.adapters.size).toBe(built - 1);
    await expect(handleWebhook(h.deps, delivery(secretA, provider.id, intent))).resolves.toHaveProperty('outcome');
  });
});
