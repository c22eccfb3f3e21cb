import { eventId, type CommitScope } from '@paymesh/bus';
import { Subjects, type EventMap } from '@paymesh/contracts';
import { liveTenantRecords, type CountedPage } from '@paymesh/store';
import type { Mode, ProviderDoc } from '../domain/provider';
import { PROVIDERS } from '../store/collections';
import type { PaymentsDeps } from './deps';
import { findOwnedProvider } from './provider-records';

export function getProvider(deps: PaymentsDeps, organizationId: string, mode: Mode, id: string): Promise<ProviderDoc> {
  return findOwnedProvider(deps, organizationId, mode, id);
}

export function listProviders(
  deps: PaymentsDeps,
  organizationId: string,
  mode: Mode,
  page: number,
  limit: number,
): Promise<CountedPage<ProviderDoc>> {
  return liveTenantRecords(deps.store.collection<ProviderDoc>(PROVIDERS), { organizationId, mode }, page, limit);
}

/** Sets `enabled`, or flips it when `enabled` is undefined. */
export async function toggleProvider(
  deps: PaymentsDeps,
  organizationId: string,
  mode: Mode,
  id: string,
  enabled: boolean | undefined,
): Promise<ProviderDoc> {
  await findOwnedProvider(deps, organizationId, mode, id);
  let flippedFrom: boolean | undefined;
  const updated = await deps.outbox.commit(async (tx) => {
    const doc = await tx.collection<ProviderDoc>(PROVIDERS).update(id, (cur) => {
      // A flip is decided once, on the state first read, so a CAS retry cannot flip it back.
      flippedFrom ??= cur.enabled;
      const next = enabled ?? !flippedFrom;
      if (cur.enabled === next) return null;
      return { ...cur, enabled: next, updatedAt: deps.clock.now().toISOString() };
    });
    emitProviderChanged(tx, doc);
    return doc;
  });
  deps.logger.info({ providerId: id, enabled: updated.enabled }, 'provider toggled');
  return updated;
}

/**
 * Deletes a provider record for the merchant: it disappears from the API and takes no new
 * payments. The sealed credentials stay, so payments already started through it still settle
 * (webhooks) and can still be cancelled.
 */
export async function deleteProvider(
  deps: PaymentsDeps,
  organizationId: string,
  mode: Mode,
  id: string,
): Promise<void> {
  await findOwnedProvider(deps, organizationId, mode, id);
  await deps.outbox.commit(async (tx) => {
    const doc = await tx.collection<ProviderDoc>(PROVIDERS).update(id, (cur) => {
      if (cur.deletedAt) return null;
      const now = deps.clock.now().toISOString();
      return { ...cur, enabled: false, deletedAt: now, updatedAt: now };
    });
    emitProviderChanged(tx, doc);
  });
  deps.adapters.forget(id);
  deps.logger.info({ providerId: id, organizationId }, 'provider deleted');
}

/**
 * Announces a provider record's state as written (one event per stored version, so a retried
 * commit or an unchanged toggle emits nothing new); caches of the organization's providers in
 * other services are dropped by it.
 */
export function emitProviderChanged(tx: CommitScope<EventMap>, doc: ProviderDoc): void {
  tx.emit(
    Subjects.providerChanged,
    {
      organizationId: doc.organizationId,
      providerId: doc.id,
      mode: doc.mode,
      enabled: doc.enabled,
      deleted: Boolean(doc.deletedAt),
      changedAt: doc.updatedAt,
    },
    { id: eventId(Subjects.providerChanged, doc.id, String(doc.version)), occurredAt: doc.updatedAt },
  );
}
