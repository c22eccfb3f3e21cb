import { Subjects } from '@paymesh/contracts';
import { PoisonEventError, type Bus, type EventEnvelope, type Subscription } from '@paymesh/bus';
import type { TaxDeps } from '../app/deps';
import { recordSourceEvent } from '../app/record-source-event';
import { isLedgerSubject, ledgerSource } from '../domain/source-event';

/**
 * The tax ledger's inputs: transaction status changes and provider refunds (checkout) and issued/voided invoices and
 * credit notes (billing). Each event is kept once in the ledger's inbox and derived into entries;
 * redeliveries write nothing new. Billing events the ledger does not use are acknowledged.
 */
export async function startConsumers(bus: Bus, deps: TaxDeps): Promise<Subscription[]> {
  const handler = async (event: EventEnvelope<unknown>): Promise<void> => {
    if (!isLedgerSubject(event.type)) return;
    let source;
    try {
      source = ledgerSource(event);
    } catch (err) {
      throw new PoisonEventError(
        `event data of ${event.type} rejected by the tax ledger: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
    await recordSourceEvent(deps, source);
  };
  // Durables per stream domain (a subscription reads one domain).
  const transactions = await bus.subscribe({
    durable: 'tax-ledger-transactions',
    // Money facts are never dropped: retried (capped backoff) until handled.
    maxDeliver: -1,
    subjects: Subjects.transactionStatusChanged,
    handler,
  });
  // Its own durable (one filter per consumer on NATS before 2.10): a refund and the move to 3 may
  // arrive in either order; the ledger's rules give the same totals both ways.
  const refunds = await bus.subscribe({
    durable: 'tax-ledger-refunds',
    maxDeliver: -1,
    subjects: Subjects.transactionRefunded,
    handler,
  });
  const billing = await bus.subscribe({
    durable: 'tax-ledger-billing',
    maxDeliver: -1,
    subjects: 'billing.>',
    handler,
  });
  return [transactions, refunds, billing];
}
