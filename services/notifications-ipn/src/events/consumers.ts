import { Subjects, transactionStatusChangedBrief, type TransactionStatusChangedBrief } from '@paymesh/contracts';
import type { Bus, EventEnvelope, Subscription } from '@paymesh/bus';
import type { IpnDeps } from '../app/deps';
import { recordStatusChange, type ClaimOnRecord } from '../app/record-status-change';
import type { DeliveryDoc } from '../store/collections';

/**
 * Subscribes to transaction status changes: each one with an `ipnUrl` becomes a pending IPN
 * delivery (idempotently), then `onDeliveryCreated` hands it to the scheduler; with `claim`, a
 * transaction's first IPN is stored already claimed and sent in a slot it held.
 */
export async function startConsumers(
  bus: Bus,
  deps: Pick<IpnDeps, 'store' | 'logger' | 'clock'>,
  onDeliveryCreated: (delivery: DeliveryDoc) => void,
  /** Stores a transaction's first IPN with its first attempt claimed when a slot is free (one statement). */
  claim?: ClaimOnRecord,
): Promise<Subscription[]> {
  const sub = await bus.subscribe<TransactionStatusChangedBrief>({
    durable: 'transaction-status-ipn',
    // Money and tenancy facts are never dropped: retried (capped backoff) until handled.
    maxDeliver: -1,
    subjects: Subjects.transactionStatusChanged,
    decode: (d) => transactionStatusChangedBrief.parse(d),
    handler: async (event: EventEnvelope<TransactionStatusChangedBrief>) => {
      await recordStatusChange(deps, event.data, event.id, onDeliveryCreated, claim);
    },
  });
  return [sub];
}
